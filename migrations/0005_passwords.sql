-- 0005 passwords: each tenant's password policy, the recent password hashes of each user (no reuse
-- of the last N) and single-use password-reset tokens (stored as SHA-256 hashes only).
create table password_policies (
  tenant_id text not null references tenants(id),
  min_length integer not null default 12 check (min_length between 8 and 128),
  -- how many previous passwords a new one may not repeat
  history_count integer not null default 5 check (history_count between 0 and 24),
  refuse_common boolean not null default true,
  refuse_breached boolean not null default true,
  updated_at timestamptz not null default now(),
  primary key (tenant_id)
);
select app_enable_tenant_rls('password_policies');

create table password_history (
  tenant_id text not null,
  id uuid not null default gen_random_uuid(),
  user_id uuid not null,
  password_hash text not null,
  created_at timestamptz not null,
  primary key (tenant_id, id),
  foreign key (tenant_id, user_id) references users(tenant_id, id) on delete cascade
);
create index password_history_user on password_history (tenant_id, user_id, created_at desc);
select app_enable_tenant_rls('password_history');

create table password_reset_tokens (
  tenant_id text not null,
  id uuid not null default gen_random_uuid(),
  user_id uuid not null,
  token_hash text not null unique,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  used_at timestamptz,
  primary key (tenant_id, id),
  foreign key (tenant_id, user_id) references users(tenant_id, id) on delete cascade
);
select app_enable_tenant_rls('password_reset_tokens');
