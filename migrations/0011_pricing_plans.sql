-- 0011 pricing plans: per tenant, the plan features of spec §3 ("Pricing feature": name,
-- supports_usage_limit, usage_unit, plans with enabled/unlimited/usage_limit, the first plan used)
-- and the usage counted against limited features. Why: GET /v1/pricing-plans/current feeds the
-- islands' feature flags, and the server enforces the same limits (src/lib/plans).
create table pricing_features (
  tenant_id text not null references tenants(id),
  name text not null,                          -- 'exports', 'users', 'strategies', …
  supports_usage_limit boolean not null default false,
  usage_unit text,                             -- 'users', 'exports per month', …
  primary key (tenant_id, name)
);
select app_enable_tenant_rls('pricing_features');

create table pricing_plans (
  tenant_id text not null,
  feature_name text not null,
  position integer not null default 0,         -- §3: the first plan (lowest position) is the one used
  plan_name text not null,
  enabled boolean not null default true,
  unlimited boolean not null default false,
  usage_limit bigint check (usage_limit is null or usage_limit >= 0),
  primary key (tenant_id, feature_name, position),
  foreign key (tenant_id, feature_name) references pricing_features(tenant_id, name) on delete cascade
);
select app_enable_tenant_rls('pricing_plans');

-- Usage of limited features that are counted as they are consumed (not derivable from other rows).
create table pricing_usage (
  tenant_id text not null,
  feature_name text not null,
  used bigint not null default 0 check (used >= 0),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, feature_name),
  foreign key (tenant_id, feature_name) references pricing_features(tenant_id, name) on delete cascade
);
select app_enable_tenant_rls('pricing_usage');
