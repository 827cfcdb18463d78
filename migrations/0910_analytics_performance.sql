-- 0910 analytics performance boards (issue 15): monthly revenue, portfolio analysis, bullet loans.
-- Why: at 100,000 customers, summing the journal's income lines or the per-loan month-end snapshots
-- for twelve months on every page view costs seconds. Two month-level rollups, written by the
-- analytics month-end writers (src/lib/analytics/month-end.ts) in the close of each month's last day
-- and rebuilt by `npm run analytics:rebuild`, keep one row per month × group × hierarchy node:
-- - analytics_revenue_months: income EARNED in the month from the ledger (credits − debits on the
--   income accounts of journal entries dated in the month, so reversals and waivers net out), per
--   loan product and the loan's scope columns (customer branch, customer officer, loan officer);
-- - analytics_portfolio_months: the month end's outstanding principal and number of loans per
--   dimension (product, branch, segment, risk class at the month end, term band, size band) and key,
--   per scope columns.
-- The month after the last closed month end is read from the ledger / loans directly (indexes below).

create table analytics_revenue_months (
  tenant_id text not null references tenants(id),
  month_end date not null,
  currency char(3) not null,
  product_id uuid,                     -- null: an income line not linked to a loan
  customer_branch_id uuid,             -- the loan's scope copies (0371) when the month was written
  customer_officer_id uuid,
  officer_id uuid,
  interest bigint not null,            -- minor units, credits − debits on INTEREST_INCOME
  fees bigint not null,                -- FEE_INCOME
  penalties bigint not null            -- PENALTY_INCOME
);
create index analytics_revenue_months_month on analytics_revenue_months (tenant_id, month_end);
select app_enable_tenant_rls('analytics_revenue_months');

create table analytics_portfolio_months (
  tenant_id text not null references tenants(id),
  month_end date not null,
  currency char(3) not null,
  dimension text not null check (dimension in ('product', 'branch', 'segment', 'risk_class', 'term_band', 'size_band')),
  key text,                            -- the group (product id, branch id, segment, class, band); null: none
  customer_branch_id uuid,
  customer_officer_id uuid,
  officer_id uuid,
  loans integer not null,
  principal_outstanding bigint not null
);
create index analytics_portfolio_months_month on analytics_portfolio_months (tenant_id, dimension, month_end);
select app_enable_tenant_rls('analytics_portfolio_months');

-- The current month's revenue: the month's journal entries by date, then their income lines.
create index journal_entries_date on journal_entries (tenant_id, entry_date) include (id);
create index journal_lines_income on journal_lines (tenant_id, entry_id) include (account_code, loan_id, debit, credit)
  where account_code in ('INTEREST_INCOME', 'FEE_INCOME', 'PENALTY_INCOME');

-- The current composition: principal still owed on unpaid installments (a met installment owes nothing).
create index loan_installments_unpaid_principal on loan_installments (tenant_id)
  include (loan_id, principal_due, principal_paid, principal_written_off) where obligations_met_on is null;

-- Bullet loans (one repayment) by maturity date (0370's maturity_date = the single installment's due date).
create index loans_bullet_maturity on loans (tenant_id, maturity_date)
  include (customer_branch_id, customer_officer_id, officer_id, status)
  where number_of_repayments = 1 and disbursed_on is not null;
