-- 1122 the N+1 installment of a charge after maturity (issue 17, charges).
-- Why: Fineract adds one "additional" installment after a loan's last due date when a specified-due-date
-- charge is dated after it (m_loan_repayment_schedule.is_additional): principal and interest 0, due on
-- the latest such charge's date, carrying those charges. The flag tells it from a regular installment
-- (it holds no repayment period: re-amortisation and a charge's period search leave it out; the loan
-- page labels it), and lets a reversal remove it again once it carries nothing.
alter table loan_installments add column is_additional boolean not null default false;

-- loans.maturity_date (0370/0901) is the last regular due date: Fineract's maturity leaves the N+1
-- installment out (Loan.determineExpectedMaturityDate), so a charge after maturity does not move it
-- (the bullet-loan figures and the "maturing soon" list read it). Same function as 0901 otherwise.
create or replace function app_refresh_loan_summary() returns trigger
language plpgsql as $$
begin
  update loans l
     set outstanding = s.outstanding, oldest_unpaid_due_date = s.oldest_unpaid, maturity_date = s.maturity,
         principal_outstanding = s.principal_outstanding
    from (select k.tenant_id, k.loan_id,
                 coalesce(sum(x.amount), 0)::int8 as outstanding,
                 coalesce(sum(i.principal_due - i.principal_paid - i.principal_written_off), 0)::int8 as principal_outstanding,
                 min(i.due_date) filter (where x.amount > 0) as oldest_unpaid,
                 max(i.due_date) filter (where not i.is_additional) as maturity
            from (select distinct tenant_id, loan_id from changed) k
            left join loan_installments i on i.tenant_id = k.tenant_id and i.loan_id = k.loan_id
            left join lateral (select i.principal_due + i.interest_due + i.fee_due + i.penalty_due
                 - i.principal_paid - i.interest_paid - i.fee_paid - i.penalty_paid
                 - i.interest_waived - i.fee_waived - i.penalty_waived
                 - i.principal_written_off - i.interest_written_off - i.fee_written_off - i.penalty_written_off as amount) x on true
           group by k.tenant_id, k.loan_id) s
   where l.tenant_id = s.tenant_id and l.id = s.loan_id
     and (l.outstanding, l.oldest_unpaid_due_date, l.maturity_date, l.principal_outstanding)
         is distinct from (s.outstanding, s.oldest_unpaid, s.maturity, s.principal_outstanding);
  return null;
end $$;
