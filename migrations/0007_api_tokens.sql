-- 0007 API tokens: bearer tokens for API clients, per tenant, created by administrators. Only a
-- SHA-256 hash is stored; the token acts with the roles of the user it belongs to.
create table api_tokens (
  tenant_id text not null,
  id uuid not null default gen_random_uuid(),
  name text not null,
  user_id uuid not null,
  token_hash text not null unique,
  created_by uuid,
  created_at timestamptz not null,
  last_used_at timestamptz,
  expires_at timestamptz,
  revoked_at timestamptz,
  primary key (tenant_id, id),
  foreign key (tenant_id, user_id) references users(tenant_id, id) on delete cascade
);
select app_enable_tenant_rls('api_tokens');
