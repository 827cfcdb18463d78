-- 0925 per-loan rows behind the delinquency transition matrix (src/lib/analytics/delinquency.ts).
-- Why: the drill-down of a matrix cell recomputed every month-end pair of the period from
-- loan_month_end_snapshots (seconds at 100,000 customers), and filtered by the loan's CURRENT branch and
-- officers while the matrix counts the scope copy recorded at each month end, so a cell and its drill-down
-- disagreed once a customer moved. The month-end writer now stores one row per loan × pair with that scope
-- copy; the matrix rollup (analytics_delinquency_transitions) is summed from these rows in the same
-- transaction, and the drill-down reads them through the cell index.
create table analytics_delinquency_moves (
  tenant_id text not null,
  month_end date not null,               -- end of the pair
  loan_id uuid not null,
  from_month_end date not null,
  from_bucket integer not null,
  to_bucket integer not null,
  product_id uuid not null,
  currency char(3) not null,
  customer_branch_id uuid,
  customer_officer_id uuid,
  officer_id uuid,
  account_no text not null,
  principal_start bigint not null,
  principal_end bigint,
  pdd_start integer not null,
  pdd_end integer,
  status_end text not null,
  primary key (tenant_id, month_end, loan_id),
  foreign key (tenant_id, loan_id) references loans(tenant_id, id)
);
create index analytics_delinquency_moves_cell
  on analytics_delinquency_moves (tenant_id, from_bucket, to_bucket, month_end desc, account_no);
select app_enable_tenant_rls('analytics_delinquency_moves');

-- Months written before this migration have no per-loan rows: they are read from the snapshots (like a
-- month written with other bucket boundaries) until `npm run analytics:rebuild` writes them again.
alter table analytics_delinquency_months add column with_moves boolean not null default false;
