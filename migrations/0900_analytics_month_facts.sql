-- 0900 analytics month facts (issue 15, portfolio and risk): the portfolio at each month end, rolled up
-- from the per-loan month-end snapshots (0201) by the month-end writer `portfolio`
-- (src/lib/analytics/portfolio-facts.ts), one row per month end × product × customer branch ×
-- customer officer × loan officer × currency × days-past-due band.
-- Why: the Overview's trend and the risk boards by product and branch read months of history; summed
-- from the snapshots they read one row per loan per month (millions on a 100,000-customer tenant),
-- from this table a few thousand rows. The three hierarchy columns are the loans' scope columns (0371),
-- so a viewer's scope filters the facts exactly as it filters the loans list.
-- dpd_band: 0 = current (0 days past due, and every loan not active at the month end), 1 = 1–30,
-- 2 = 31–60, 3 = 61–90, 4 = 91+ (the snapshot's past_due_days).
create table analytics_month_facts (
  tenant_id text not null,
  id uuid not null default gen_random_uuid(),
  month_end date not null,
  product_id uuid not null,
  customer_branch_id uuid,
  customer_officer_id uuid,
  officer_id uuid,
  currency char(3) not null,
  dpd_band smallint not null check (dpd_band between 0 and 4),
  loans integer not null,                    -- snapshot rows: loans open at some point of the month
  active_loans integer not null,             -- status ACTIVE at the month end
  principal_outstanding bigint not null,
  total_outstanding bigint not null,
  disbursed_count integer not null,          -- loans with a (non-reversed) disbursement in the month
  disbursed_amount bigint not null,
  written_off_count integer not null,        -- loans with a (non-reversed) write-off in the month
  written_off_principal bigint not null,
  collected_principal bigint not null,       -- non-reversed repayments dated in the month
  collected_interest bigint not null,
  collected_fees bigint not null,
  collected_penalties bigint not null,
  collected_total bigint not null,           -- the repayments' amounts (overpayments included)
  primary key (tenant_id, id),
  unique nulls not distinct (tenant_id, month_end, product_id, customer_branch_id, customer_officer_id, officer_id, currency, dpd_band),
  foreign key (tenant_id, product_id) references loan_products(tenant_id, id)
);
select app_enable_tenant_rls('analytics_month_facts');
