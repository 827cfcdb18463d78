-- 0003 sessions: the server-side session record behind every session cookie.
-- Why: a sealed cookie alone cannot be revoked. Every request checks this row (revoked, idle and
-- absolute timeouts), so logout, disabling a user, a role change or "end sessions" apply at once.
create table sessions (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  user_id uuid not null,
  -- 'mfa': password accepted, waiting for the TOTP code (grants nothing); 'active': signed in.
  stage text not null check (stage in ('mfa', 'active')),
  -- how the user proved who they are: 'password', 'password+totp' or 'sso'
  method text not null,
  created_at timestamptz not null,
  last_seen_at timestamptz not null,
  absolute_expires_at timestamptz not null,
  revoked_at timestamptz,
  revoked_reason text,
  ip text,
  user_agent text,
  -- single sign-on: the issuer and ID token kept for RP-initiated logout (id_token_hint)
  oidc_issuer text,
  oidc_id_token text,
  primary key (tenant_id, id),
  foreign key (tenant_id, user_id) references users(tenant_id, id) on delete cascade
);
create index sessions_user on sessions (tenant_id, user_id) where revoked_at is null;
select app_enable_tenant_rls('sessions');
