-- 1122 the N+1 installment of a charge after maturity (issue 17, charges).
-- Why: Fineract adds one "additional" installment after a loan's last due date when a specified-due-date
-- charge is dated after it (m_loan_repayment_schedule.is_additional): principal and interest 0, due on
-- the latest such charge's date, carrying those charges. The flag tells it from a regular installment
-- (it holds no repayment period: re-amortisation and a charge's period search leave it out; the loan
-- page labels it), and lets a reversal remove it again once it carries nothing.
alter table loan_installments add column is_additional boolean not null default false;
