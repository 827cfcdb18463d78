-- 0520 security administration (issue 11: /admin/user/ip-restriction, /admin/platform/password-policy).
-- Why:
--  * An IP rule applies to everyone or only to users holding one of given roles. `applies_to_all` says
--    which, explicitly: inferring "everyone" from an empty role list would turn a rule whose roles were
--    all deleted into a rule for everyone and could lock the whole tenant out. Existing rules keep
--    applying to everyone (src/lib/tenancy/ip-allowlist.ts has the semantics).
--  * The password policy gains an expiry (0 = never; an older password must be changed at the next
--    sign-in), the account lockout of the sign-in throttle (N failures lock the account for M minutes:
--    src/lib/auth/throttle.ts), and roles whose users must enrol in TOTP before using the app.
--  * users.password_changed_at dates the current password for the expiry. Existing users count from
--    this migration (their real date is not known).
alter table ip_restrictions add column applies_to_all boolean not null default true;

create table ip_restriction_roles (
  tenant_id text not null,
  restriction_id uuid not null,
  role_id uuid not null,
  primary key (tenant_id, restriction_id, role_id),
  foreign key (tenant_id, restriction_id) references ip_restrictions(tenant_id, id) on delete cascade,
  foreign key (tenant_id, role_id) references roles(tenant_id, id) on delete cascade
);
create index ip_restriction_roles_role on ip_restriction_roles (tenant_id, role_id);
select app_enable_tenant_rls('ip_restriction_roles');

alter table password_policies
  add column expiry_days integer not null default 0 check (expiry_days between 0 and 3650),
  add column lockout_threshold integer not null default 10 check (lockout_threshold between 3 and 100),
  add column lockout_minutes integer not null default 15 check (lockout_minutes between 1 and 1440);

create table password_policy_mfa_roles (
  tenant_id text not null references tenants(id),
  role_id uuid not null,
  primary key (tenant_id, role_id),
  foreign key (tenant_id, role_id) references roles(tenant_id, id) on delete cascade
);
select app_enable_tenant_rls('password_policy_mfa_roles');

alter table users add column password_changed_at timestamptz not null default now();
