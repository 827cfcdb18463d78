-- 0006 TOTP: one authenticator per user (RFC 6238). confirmed_at is null until the user proved the
-- enrolment with a code; last_used_step stops a code from being used twice.
create table user_totp (
  tenant_id text not null,
  user_id uuid not null,
  secret text not null,                 -- base32 shared secret
  created_at timestamptz not null,
  confirmed_at timestamptz,
  last_used_step bigint not null default 0,
  primary key (tenant_id, user_id),
  foreign key (tenant_id, user_id) references users(tenant_id, id) on delete cascade
);
select app_enable_tenant_rls('user_totp');
