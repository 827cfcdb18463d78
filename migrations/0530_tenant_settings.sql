-- 0530 tenant settings (admin › general settings): the tenant's logo, and "test sign-in" requests.
-- Why: the logo is stored in the database (one row per tenant, row-secured) so several app servers
-- serve the same file; tenants.logo_updated_at tells the header, without reading the bytes, whether
-- there is a logo and which version to ask for. A single sign-on request started by the "test
-- sign-in" button is marked so its callback reports the outcome instead of signing anyone in.
create table tenant_logos (
  tenant_id text not null references tenants(id),
  content_type text not null check (content_type in ('image/png', 'image/jpeg')),
  bytes bytea not null,
  updated_at timestamptz not null default now(),
  updated_by uuid,
  primary key (tenant_id)
);
select app_enable_tenant_rls('tenant_logos');

alter table tenants add column logo_updated_at timestamptz;

alter table oidc_auth_requests
  add column purpose text not null default 'sign-in' check (purpose in ('sign-in', 'test'));
