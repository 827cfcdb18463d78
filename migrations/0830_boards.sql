-- 0830 boards (issue 14): the loans overview and performance boards sum the repayments of a period
-- (this month, or the chosen period) for the viewer's scope. Without an index on the date, that is a
-- walk over every transaction of the tenant (loan_transactions_loan leads with the loan).
create index loan_transactions_repayment_date on loan_transactions (tenant_id, transaction_date)
  where type = 'REPAYMENT';
