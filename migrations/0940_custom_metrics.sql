-- 0940 custom metrics (issue 15): a named aggregate over an analytics dataset (a server-side list),
-- usable on the boards (show_on_board) and as a measure of a report. The definition holds no SQL:
-- `filters` are the dataset's URL filters (`{"days_past_due": "1.."}`), fields are column keys, and
-- src/lib/analytics/aggregate.ts builds the query from the list definition's own SQL.
create table custom_metrics (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  metric_type text not null check (metric_type in ('count', 'sum', 'average', 'ratio')),
  name text not null check (name ~ '^[a-z][a-z0-9_-]{0,59}$'),
  label_en text not null check (length(label_en) between 1 and 120),
  label_fr text not null check (length(label_fr) between 1 and 120),
  dataset text not null,
  filters jsonb not null default '{}'::jsonb,
  -- count: none; sum/average: the column; ratio: the numerator and denominator terms
  -- ({ "fn": "count|sum|average", "field": "…"?, "filters": { … } }).
  field text,
  numerator jsonb,
  denominator jsonb,
  format text not null check (format in ('number', 'money', 'percent')),
  show_on_board boolean not null default false,
  revision integer not null default 1,
  created_by text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, id),
  unique (tenant_id, metric_type, name),
  check ((metric_type in ('sum', 'average')) = (field is not null)),
  check ((metric_type = 'ratio') = (numerator is not null and denominator is not null))
);
select app_enable_tenant_rls('custom_metrics');
