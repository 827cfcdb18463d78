-- 0001 tenancy: tenants, the row-level-security helpers every tenant-owned table uses, the
-- organisation hierarchy (region → branch → officer), users, roles and data permissions.
-- Why: everything else is tenant-owned and references these.

-- The tenant bound to the current transaction (src/lib/db binds it with set_config(..., true)).
-- NULL when none is bound, so a query that forgets the tenant matches no row.
create function app_tenant() returns text
language sql stable as $$ select nullif(current_setting('app.tenant_id', true), '') $$;

-- Turns on forced row-level security for a tenant-owned table: rows are visible and writable only
-- for the bound tenant, and a write can never move a row to another tenant.
create function app_enable_tenant_rls(tbl regclass) returns void
language plpgsql as $$
begin
  execute format('alter table %s enable row level security', tbl);
  execute format('alter table %s force row level security', tbl);
  execute format('create policy tenant_isolation on %s using (tenant_id = app_tenant()) with check (tenant_id = app_tenant())', tbl);
end $$;

-- Attach as a BEFORE UPDATE OR DELETE trigger to make posted rows immutable (ledger, audit trail).
-- A trigger, not a grant, so even the table owner cannot edit history by accident.
create function app_forbid_change() returns trigger
language plpgsql as $$
begin
  raise exception 'rows of % are immutable; post a correcting entry instead', tg_table_name
    using errcode = 'check_violation';
end $$;

create table tenants (
  id text primary key,                       -- e.g. 'demo-eu1'; the project id is the part before the last dash
  slug text not null unique,                 -- 'demo'
  name text not null,
  currency char(3) not null,
  locale text not null default 'en-US',
  time_zone text not null default 'UTC',
  languages text[] not null default array['en'],
  default_language text not null default 'en',
  business_date date not null,               -- the lending "today"; only the daily close moves it
  config jsonb not null default '{}'::jsonb, -- tenant configuration of spec §3 (see src/lib/tenancy)
  is_active boolean not null default true,
  created_at timestamptz not null default now()
);

create table hierarchy_nodes (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  level text not null check (level in ('region', 'branch', 'officer')),
  parent_id uuid,
  code text not null,
  name text not null,
  user_id uuid,                              -- for officer nodes: the staff user
  primary key (tenant_id, id),
  unique (tenant_id, level, code),
  foreign key (tenant_id, parent_id) references hierarchy_nodes(tenant_id, id)
);
select app_enable_tenant_rls('hierarchy_nodes');

create table roles (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  name text not null,
  description text not null default '',
  is_admin boolean not null default false,   -- the all_permissions role of spec §6
  authorities text[] not null default '{}',  -- permission keys, src/lib/auth/permissions.ts
  created_at timestamptz not null default now(),
  primary key (tenant_id, id),
  unique (tenant_id, name)
);
select app_enable_tenant_rls('roles');

create table users (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  email text not null,
  display_name text not null,
  language text not null default 'en-US',
  password_hash text,
  password_change_required boolean not null default false,
  is_active boolean not null default true,
  session_timeout integer not null default 60,   -- idle seconds (spec §9, used for admins)
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, id)
);
create unique index users_tenant_email on users (tenant_id, lower(email));
select app_enable_tenant_rls('users');

create table user_roles (
  tenant_id text not null,
  user_id uuid not null,
  role_id uuid not null,
  primary key (tenant_id, user_id, role_id),
  foreign key (tenant_id, user_id) references users(tenant_id, id) on delete cascade,
  foreign key (tenant_id, role_id) references roles(tenant_id, id) on delete cascade
);
select app_enable_tenant_rls('user_roles');

-- Row filters on a user (spec §3 data_permissions), e.g. field 'branch' value '<branch code>'.
create table user_data_permissions (
  tenant_id text not null,
  user_id uuid not null,
  field text not null,
  value text not null,
  primary key (tenant_id, user_id, field, value),
  foreign key (tenant_id, user_id) references users(tenant_id, id) on delete cascade
);
select app_enable_tenant_rls('user_data_permissions');
