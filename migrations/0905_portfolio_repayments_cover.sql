-- 0905 portfolio repayments cover (issue 15, performance): the repayments of a date range with what
-- the portfolio's "collected in the month" needs (loan, amount, currency, and the id the reversal test
-- looks up), so the business-date figures read them from the index alone (no heap visit per repayment).
create index loan_transactions_repayment_cover on loan_transactions (tenant_id, transaction_date)
  include (loan_id, amount, currency, id)
  where type = 'REPAYMENT';

-- Every loan's currency, product and scope columns by id: what a repayment (or any row of a loan) is
-- grouped and scoped by, read from the index alone instead of the loans' heap.
create index loans_scope_cover on loans (tenant_id, id)
  include (currency, product_id, customer_branch_id, customer_officer_id, officer_id);

-- The loans disbursed in a date range with what "disbursed in the month" adds up, groups and scopes by.
create index loans_disbursed_cover on loans (tenant_id, disbursed_on)
  include (principal, currency, product_id, customer_branch_id, customer_officer_id, officer_id)
  where disbursed_on is not null;
