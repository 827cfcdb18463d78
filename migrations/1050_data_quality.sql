-- 1050 data quality runs and the API-call counter (issue 16, admin › data pages).
-- Why: /admin/data/data-quality-check shows the last run of the tenant's data-quality rules
-- (src/lib/data-quality/rules.ts): per rule the rows checked, the rows failing and a score, and the
-- failing rows' ids (at most 1,000 per rule) for the drill-down. A run is a job (on demand or nightly);
-- `job_id` ties the run to its job so a retried job resumes the same run. /admin/data/data-resource-usage
-- shows /v1 calls per month: the guard step counts them in memory and adds them here in batches
-- (src/lib/data-flow/api-calls.ts), one row per tenant and month of the tenant's time zone.

create table data_quality_runs (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  trigger text not null check (trigger in ('manual', 'nightly')),
  status text not null default 'queued' check (status in ('queued', 'running', 'done', 'failed')),
  job_id bigint,
  requested_by text,
  rules_total integer not null default 0,
  rules_done integer not null default 0,
  score numeric(6, 2),
  error text,
  created_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz,
  primary key (tenant_id, id)
);
create unique index data_quality_runs_job on data_quality_runs (tenant_id, job_id) where job_id is not null;
create index data_quality_runs_recent on data_quality_runs (tenant_id, created_at desc);
select app_enable_tenant_rls('data_quality_runs');

create table data_quality_results (
  tenant_id text not null,
  run_id uuid not null,
  rule text not null,
  entity text not null,
  position integer not null,
  checked bigint not null check (checked >= 0),
  failing bigint not null check (failing >= 0),
  score numeric(6, 2) not null,
  primary key (tenant_id, run_id, rule),
  foreign key (tenant_id, run_id) references data_quality_runs(tenant_id, id) on delete cascade
);
select app_enable_tenant_rls('data_quality_results');

create table data_quality_failures (
  tenant_id text not null,
  run_id uuid not null,
  rule text not null,
  row_id text not null,
  customer_id uuid,
  detail text,
  primary key (tenant_id, run_id, rule, row_id),
  foreign key (tenant_id, run_id, rule) references data_quality_results(tenant_id, run_id, rule) on delete cascade
);
select app_enable_tenant_rls('data_quality_failures');

create table api_call_counts (
  tenant_id text not null references tenants(id),
  month date not null,                         -- first day of the month, in the tenant's time zone
  calls bigint not null default 0 check (calls >= 0),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, month)
);
select app_enable_tenant_rls('api_call_counts');
