-- 0008 single sign-on: users linked to an identity provider by (issuer, subject), and the short-lived
-- state of authorisation requests in flight (state, nonce, PKCE verifier), consumed once.
create table oidc_links (
  tenant_id text not null,
  issuer text not null,
  subject text not null,
  user_id uuid not null,
  created_at timestamptz not null,
  primary key (tenant_id, issuer, subject),
  foreign key (tenant_id, user_id) references users(tenant_id, id) on delete cascade
);
select app_enable_tenant_rls('oidc_links');

-- Global: the callback knows only the state until this row names the tenant.
create table oidc_auth_requests (
  state text primary key,
  tenant_id text not null references tenants(id),
  nonce text not null,
  code_verifier text not null,
  redirect_to text not null default '/',
  created_at timestamptz not null,
  expires_at timestamptz not null
);
