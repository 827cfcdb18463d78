-- 0920 analytics rollups of issue 15's delinquency transitions and vintage boards (src/lib/analytics),
-- written by MONTH_END_WRITERS from loan_month_end_snapshots at each month end.
-- Why: the roll-rate matrix and the vintage curves sum over every loan of every month end of a period;
-- read from the per-loan snapshots that is millions of rows at 100,000 customers. These rollups hold one
-- row per month end × cell × product × scope copy, so a board reads a few thousand rows.

-- Transitions from the previous month end to `month_end`: one row per from-bucket × to-bucket × product ×
-- scope columns. Buckets are coded by the first day of the tenant's collection bucket (0 = current,
-- 0 days past due); exits: -1 closed (repaid), -2 written off. Amounts: principal outstanding at the
-- start month end.
create table analytics_delinquency_transitions (
  tenant_id text not null,
  month_end date not null,               -- end of the pair
  from_month_end date not null,          -- start of the pair (the previous month end)
  from_bucket integer not null,
  to_bucket integer not null,
  product_id uuid not null,
  currency char(3) not null,
  customer_branch_id uuid,
  customer_officer_id uuid,
  officer_id uuid,
  loans integer not null,
  principal bigint not null,
  foreign key (tenant_id, product_id) references loan_products(tenant_id, id)
);
create index analytics_delinquency_transitions_month on analytics_delinquency_transitions (tenant_id, month_end);
select app_enable_tenant_rls('analytics_delinquency_transitions');

-- The bucket boundaries (first days, in order) a month's transitions were written with: when the tenant
-- edits its collection buckets, the board sees the difference and computes those months from the
-- snapshots until `npm run analytics:rebuild` writes them again.
create table analytics_delinquency_months (
  tenant_id text not null references tenants(id),
  month_end date not null,
  bucket_mins integer[] not null,
  primary key (tenant_id, month_end)
);
select app_enable_tenant_rls('analytics_delinquency_months');

-- Per loan: its cohort (disbursement month), principal disbursed, and the first month end at which it
-- was more than 30 / 60 / 90 days past due or written off ("ever reached"). Kept by the vintage writer.
create table analytics_loan_vintage (
  tenant_id text not null,
  loan_id uuid not null,
  cohort date not null,                  -- first day of the disbursement month
  product_id uuid not null,
  currency char(3) not null,
  customer_branch_id uuid,
  customer_officer_id uuid,
  officer_id uuid,
  disbursed bigint not null,
  reached30_on date,
  reached60_on date,
  reached90_on date,
  written_off_on date,
  primary key (tenant_id, loan_id),
  foreign key (tenant_id, loan_id) references loans(tenant_id, id)
);
select app_enable_tenant_rls('analytics_loan_vintage');

-- Per month end × cohort × product × scope copy: loans, principal disbursed, and the principal of the
-- loans that had ever reached each measure by that month end.
create table analytics_vintages (
  tenant_id text not null,
  month_end date not null,
  cohort date not null,
  product_id uuid not null,
  currency char(3) not null,
  customer_branch_id uuid,
  customer_officer_id uuid,
  officer_id uuid,
  loans integer not null,
  disbursed bigint not null,
  ever30 bigint not null,
  ever60 bigint not null,
  ever90 bigint not null,
  written_off bigint not null
);
create index analytics_vintages_month on analytics_vintages (tenant_id, month_end, cohort);
select app_enable_tenant_rls('analytics_vintages');
