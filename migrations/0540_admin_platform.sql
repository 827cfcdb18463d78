-- 0540 admin platform (issue 11): download expiry, plan change requests, service contracts.
-- Why: administrators see every generated file with its expiry (expired files are removed by the
-- daily `downloads.expire` job), ask the provider for a plan change without a phone call, and keep
-- the tenant's service agreements (document, dates, status, signatories) in the product.

-- A generated file is kept 30 days unless a producer says otherwise.
alter table downloads add column expires_at timestamptz;
update downloads set expires_at = created_at + interval '30 days' where expires_at is null;
alter table downloads alter column expires_at set not null;
alter table downloads alter column expires_at set default now() + interval '30 days';
create index downloads_by_tenant_created on downloads (tenant_id, created_at desc);
create index downloads_by_expiry on downloads (tenant_id, expires_at);

-- A request for a different plan, recorded for the provider (who acknowledges, then does it).
create table plan_change_requests (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  features text[] not null check (cardinality(features) between 1 and 50),
  message text not null default '' check (length(message) <= 2000),
  status text not null default 'requested' check (status in ('requested', 'acknowledged', 'done')),
  requested_by uuid not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, id),
  foreign key (tenant_id, requested_by) references users(tenant_id, id)
);
create index plan_change_requests_by_created on plan_change_requests (tenant_id, created_at desc);
select app_enable_tenant_rls('plan_change_requests');

-- A service agreement between the tenant and the provider. The document (a PDF) lives on disk under
-- DATA_DIR/contracts/<tenant>/<id>/<version>; the row names it.
create table contracts (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  title text not null check (length(title) between 1 and 200),
  reference text not null check (length(reference) between 1 and 100),
  status text not null default 'draft' check (status in ('draft', 'active', 'expired', 'terminated')),
  starts_on date not null,
  ends_on date,
  notes text not null default '' check (length(notes) <= 2000),
  document_name text,
  document_size bigint,
  document_sha256 text,
  document_key text,
  document_version integer not null default 0,
  document_uploaded_at timestamptz,
  created_by uuid not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, id),
  unique (tenant_id, reference),
  check (ends_on is null or ends_on >= starts_on),
  foreign key (tenant_id, created_by) references users(tenant_id, id)
);
select app_enable_tenant_rls('contracts');

create table contract_signatories (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  contract_id uuid not null,
  position integer not null,
  name text not null check (length(name) between 1 and 200),
  title text not null default '' check (length(title) <= 200),
  signed_on date,
  primary key (tenant_id, id),
  unique (tenant_id, contract_id, position),
  foreign key (tenant_id, contract_id) references contracts(tenant_id, id) on delete cascade
);
select app_enable_tenant_rls('contract_signatories');
