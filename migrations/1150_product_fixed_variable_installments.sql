-- 1150 fixed length, fixed installment amount and variable installments on loan products (issue 17).
-- Fineract's `fixedLength` (the last due date is the schedule start plus this many repayment units;
-- progressive, zero-interest products only), `canDefineInstallmentAmount` (a loan may be given its
-- own EMI) and `allowVariableInstallments` with the minimum and maximum number of days between two
-- installments (the installments of a loan may be moved, changed, added or deleted before
-- disbursement). The loan keeps its edits in `loans.terms` (variations, fixedEmiAmount), which
-- disbursement passes to the schedule engine. Older product versions (snapshots without these keys)
-- read as null: no fixed length, no fixed EMI, no variable installments.
alter table loan_products
  add column fixed_length integer check (fixed_length is null or fixed_length between 1 and 120000),
  add column allow_fixed_emi boolean not null default false,
  add column allow_variable_installments boolean not null default false,
  add column variable_installment_min_gap_days integer
    check (variable_installment_min_gap_days is null or variable_installment_min_gap_days between 0 and 3660),
  add column variable_installment_max_gap_days integer
    check (variable_installment_max_gap_days is null or variable_installment_max_gap_days between 1 and 3660),
  add constraint loan_products_variable_gap_order check (
    variable_installment_min_gap_days is null or variable_installment_max_gap_days is null
    or variable_installment_max_gap_days >= variable_installment_min_gap_days);
