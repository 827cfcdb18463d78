-- 0021 translations: per-tenant overrides of the bundled UI texts (admin > platform > translations)
-- and the keys a browser asked for that no bundle has (POST /v1/translations/{lng}/{ns}).
-- Why: a lender can reword labels without a release, and translators see what is missing.

create table translation_overrides (
  tenant_id text not null references tenants(id),
  language text not null check (language in ('en', 'fr')),
  namespace text not null,
  key text not null,                              -- dotted path inside the namespace, e.g. 'nav.loans'
  value text not null check (length(value) <= 2000),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, language, namespace, key)
);
select app_enable_tenant_rls('translation_overrides');

-- One row per missing key, however often it is reported: translators need the list, not the noise.
create table translation_missing_keys (
  tenant_id text not null references tenants(id),
  language text not null check (language in ('en', 'fr')),
  namespace text not null,
  key text not null check (length(key) <= 300),
  fallback text not null default '' check (length(fallback) <= 2000),
  times_reported integer not null default 1,
  first_seen_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  primary key (tenant_id, language, namespace, key)
);
select app_enable_tenant_rls('translation_missing_keys');
