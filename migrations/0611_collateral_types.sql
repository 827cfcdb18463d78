-- 0611 collateral types (issue 12): the kinds of collateral a tenant accepts, with the loan-to-value
-- ceiling, the haircut and how often a valuation must be renewed.
-- Why: the collateral forms offered a hard-coded list; lenders configure their own types and want a
-- warning when a loan is above the type's loan-to-value or a valuation is too old.

create table collateral_types (
  tenant_id text not null references tenants(id),
  code text not null check (code ~ '^[a-z][a-z0-9_]{0,39}$'),
  name_en text not null check (length(name_en) between 1 and 120),
  name_fr text not null check (length(name_fr) between 1 and 120),
  max_ltv_percent numeric(7, 4) not null check (max_ltv_percent > 0 and max_ltv_percent <= 1000),
  haircut_percent numeric(7, 4) not null default 0 check (haircut_percent >= 0 and haircut_percent <= 100),
  revaluation_months integer not null check (revaluation_months between 1 and 240),
  is_active boolean not null default true,
  version integer not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, code)
);
select app_enable_tenant_rls('collateral_types');

-- The defaults every tenant starts with: the types collaterals already use.
create function app_default_collateral_types(tenant text) returns void language plpgsql as $$
declare
  previous text := current_setting('app.tenant_id', true);
begin
  perform set_config('app.tenant_id', tenant, true);
  insert into collateral_types (tenant_id, code, name_en, name_fr, max_ltv_percent, haircut_percent, revaluation_months)
  values (tenant, 'vehicle', 'Vehicle', 'Véhicule', 70, 20, 12),
         (tenant, 'real_estate', 'Real estate', 'Bien immobilier', 80, 10, 36),
         (tenant, 'deposit', 'Cash deposit', 'Dépôt en espèces', 95, 0, 12),
         (tenant, 'guarantee', 'Guarantee', 'Garantie', 100, 25, 12),
         (tenant, 'equipment', 'Equipment', 'Équipement', 60, 30, 12),
         (tenant, 'other', 'Other', 'Autre', 50, 40, 12)
  on conflict (tenant_id, code) do nothing;
  perform set_config('app.tenant_id', coalesce(previous, ''), true);
end $$;

create function tenants_default_collateral_types() returns trigger language plpgsql as $$
begin
  perform app_default_collateral_types(new.id);
  return new;
end $$;
create trigger tenants_default_collateral_types after insert on tenants
  for each row execute function tenants_default_collateral_types();

select app_default_collateral_types(id) from tenants;
