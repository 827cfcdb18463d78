-- 0830 boards (issue 14): the loans overview and performance boards add up, for the viewer's scope,
-- the active loans (outstanding, days past due), the installments due in a period (expected, still
-- unpaid) and the repayments of a period (collected). On a 100,000-customer tenant each is tens of
-- thousands of rows; read from the tables they cost 50-400 ms (wide rows spread over many pages).
-- Covering indexes let each be an index-only range read:
-- - active loans with the figures the boards sum and the scope copies (0370, 0371);
create index loans_active_summary on loans (tenant_id)
  include (outstanding, oldest_unpaid_due_date, customer_branch_id, customer_officer_id, officer_id)
  where status = 'ACTIVE';
-- - installments by due date with every amount (expected = dues; unpaid = the payments list's rule);
create index loan_installments_due_amounts on loan_installments (tenant_id, due_date)
  include (loan_id, obligations_met_on, principal_due, interest_due, fee_due, penalty_due,
           principal_paid, interest_paid, fee_paid, penalty_paid, interest_waived, fee_waived, penalty_waived,
           principal_written_off, interest_written_off, fee_written_off, penalty_written_off);
-- - repayments by date (loan_transactions_loan leads with the loan).
create index loan_transactions_repayment_date on loan_transactions (tenant_id, transaction_date)
  include (loan_id, amount) where type = 'REPAYMENT';
