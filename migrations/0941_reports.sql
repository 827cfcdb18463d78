-- 0941 tabular reports (issue 15): a dataset (a server-side list) with its URL filters, grouped by a
-- rows dimension and optionally a columns dimension (a pivot), with measures: built-in aggregates
-- ({ "fn": "count|sum|average|min|max", "field": "…" }) and custom metrics ({ "metric": "type/name" }).
-- No SQL is stored: src/lib/analytics/aggregate.ts builds it from the list definition.
create table reports (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  name text not null check (length(name) between 1 and 120),
  dataset text not null,
  filters jsonb not null default '{}'::jsonb,
  rows_dimension text not null,
  columns_dimension text,
  measures jsonb not null check (jsonb_typeof(measures) = 'array' and jsonb_array_length(measures) between 1 and 8),
  revision integer not null default 1,
  created_by text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, id)
);
create index reports_name on reports (tenant_id, lower(name));
select app_enable_tenant_rls('reports');
