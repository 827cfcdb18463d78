-- Issue 15: list-export queries (src/lib/analytics/queries.ts). A query is a dataset (one of the
-- lists, or loan transactions; src/lib/analytics/datasets.ts) with filters, columns, sort, tab and
-- scope, kept as the JSON of QueryDefinition; the application checks it against the dataset on
-- every save. `revision` grows by one on each change: an edit based on an older revision is refused
-- (409), so two analysts editing the same query do not silently overwrite each other.
create table saved_queries (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  name text not null check (length(name) between 1 and 120),
  description text not null default '' check (length(description) <= 1000),
  definition jsonb not null check (jsonb_typeof(definition) = 'object' and definition ? 'dataset'),
  created_by uuid not null,
  updated_by uuid,
  revision integer not null default 1 check (revision >= 1),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, id),
  foreign key (tenant_id, created_by) references users(tenant_id, id),
  foreign key (tenant_id, updated_by) references users(tenant_id, id)
);
-- One name per tenant, compared case-insensitively: the list of queries is shared by the analysts.
create unique index saved_queries_name on saved_queries (tenant_id, lower(name));
select app_enable_tenant_rls('saved_queries');
