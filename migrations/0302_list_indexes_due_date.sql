-- 0302 list indexes, second part: installments by due date and loan, for the loans list's
-- "maturing" tab (loans with an installment due in the next 30 days and none after), which reads
-- installments by due-date range across the tenant. Why a new file: 0301 is committed and never edited.
create index loan_installments_due_loan on loan_installments (tenant_id, due_date, loan_id);
