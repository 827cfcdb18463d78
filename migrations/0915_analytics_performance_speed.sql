-- 0915 performance boards at 100,000 customers (issue 15): index-only reads for the live month.
-- Why: the monthly revenue of the month not closed yet reads every journal entry of the month, then
-- its income lines, then the loan's product and scope columns; 0910's indexes lacked the entry's loan,
-- the line's currency and the loan's scope columns, so each of ~30,000 entries cost three heap reads.
-- The portfolio composition of the business date reads loans.principal_outstanding (0901) of the
-- active loans instead of summing their unpaid installments; its index carries what the dimensions
-- group by (product, scope columns, customer, number of repayments, principal), and customers carry
-- segment and risk class for an index-only join.

drop index journal_entries_date;
create index journal_entries_date on journal_entries (tenant_id, entry_date) include (id, loan_id);

drop index journal_lines_income;
create index journal_lines_income on journal_lines (tenant_id, entry_id)
  include (account_code, loan_id, currency, debit, credit)
  where account_code in ('INTEREST_INCOME', 'FEE_INCOME', 'PENALTY_INCOME');

-- A loan's product and scope copies by id (the revenue's lines → their loan's group): 0905's
-- loans_scope_cover already holds them.

-- The active loans that still owe principal, with what the composition groups by.
create index loans_active_principal on loans (tenant_id)
  include (currency, principal_outstanding, product_id, customer_branch_id, customer_officer_id, officer_id,
           customer_id, number_of_repayments, principal)
  where status = 'ACTIVE' and principal_outstanding > 0;

-- A customer's segment and risk class by id (the composition by segment / risk class).
create index customers_classes on customers (tenant_id, id) include (segment, risk_class);
