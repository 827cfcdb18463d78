-- 0300 custom views: a saved list view (columns, filters, sort, tab) of one of the loans
-- workspace lists, personal or shared with the team (every staff user of the tenant who can open
-- the list). Why: officers keep their working sets (e.g. "my overdue > 30 days") one click away;
-- views live at /loans/<list>/add-custom-view and /loans/<list>/update-custom-view/:id.
-- Filters are stored in their URL form (`{"status": "ACTIVE,APPROVED"}`) and re-validated against
-- the list definition whenever a view is read, so a view saved before a column changed cannot
-- smuggle anything into a query.

create table custom_views (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  owner_id uuid not null,
  list_name text not null check (list_name in ('customers', 'offers', 'loans', 'collaterals', 'payments')),
  name text not null check (length(name) between 1 and 80),
  columns text[] not null default '{}',
  filters jsonb not null default '{}'::jsonb check (jsonb_typeof(filters) = 'object'),
  sort text,                                   -- '-principal' = principal descending; null = list default
  tab text,                                    -- null = list default
  is_shared boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, id),
  foreign key (tenant_id, owner_id) references users(tenant_id, id) on delete cascade
);
-- One name per owner and list, compared case-insensitively, so the views menu is unambiguous.
create unique index custom_views_owner_name on custom_views (tenant_id, owner_id, list_name, lower(name));
create index custom_views_shared on custom_views (tenant_id, list_name) where is_shared;
select app_enable_tenant_rls('custom_views');
