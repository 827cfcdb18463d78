-- 0605 lending strategies (issue 12): who is eligible, which product and terms they get, limits and
-- pricing by risk class, decided by a decision model version; the lifecycle of spec §4 with each
-- step signed by its own person; offers linked to the strategy version and decision that made them.
-- Why: a lender writes its credit policy, simulates it on its own customers and history, has it signed
-- off by the provider and by the client (two different people), puts it live, and can say for every
-- offer which strategy version and which rule made it.

create table strategies (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  name text not null check (length(name) between 1 and 120),
  description text not null default '' check (length(description) <= 2000),
  -- draft: never live yet; live: its live version generates offers; inactive: deactivated.
  status text not null default 'draft' check (status in ('draft', 'live', 'inactive')),
  live_version integer,
  requested_by text not null,
  requested_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  row_version integer not null default 1,
  primary key (tenant_id, id)
);
create unique index strategies_name on strategies (tenant_id, lower(name));
select app_enable_tenant_rls('strategies');

-- A version of a strategy's terms and where it is in its lifecycle. One open version (not
-- implemented, not superseded) at a time per strategy.
create table strategy_versions (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  strategy_id uuid not null,
  version integer not null check (version > 0),
  -- requested → encoded → simulated → validated (both signatures) → implemented; superseded when a
  -- later version is implemented or the draft is replaced.
  stage text not null default 'requested'
    check (stage in ('requested', 'encoded', 'simulated', 'validated', 'implemented', 'superseded')),
  request_note text not null default '' check (length(request_note) <= 2000),
  terms jsonb,                                  -- StrategyTerms (src/lib/strategies/terms.ts) once encoded
  encoded_by text,
  encoded_at timestamptz,
  simulation_id uuid,                           -- the simulation of these exact terms
  provider_validated_by text,
  provider_validated_at timestamptz,
  client_validated_by text,
  client_validated_at timestamptz,
  implemented_by text,
  implemented_at timestamptz,
  live_validated_by text,
  live_validated_at timestamptz,
  created_at timestamptz not null default now(),
  primary key (tenant_id, id),
  unique (tenant_id, strategy_id, version),
  foreign key (tenant_id, strategy_id) references strategies(tenant_id, id),
  check (provider_validated_by is null or client_validated_by is null or provider_validated_by <> client_validated_by)
);
create unique index strategy_versions_one_open on strategy_versions (tenant_id, strategy_id)
  where stage in ('requested', 'encoded', 'simulated', 'validated');
select app_enable_tenant_rls('strategy_versions');

-- A simulation of a version's terms over the tenant's customers, run as a job with progress.
create table strategy_simulations (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  strategy_id uuid not null,
  strategy_version integer not null,
  status text not null default 'queued' check (status in ('queued', 'running', 'done', 'failed')),
  customers_total integer not null default 0,
  customers_done integer not null default 0,
  business_date date not null,
  results jsonb,                                -- figures for the draft and the live baseline, by risk class
  error text,
  requested_by text not null,
  created_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz,
  primary key (tenant_id, id),
  foreign key (tenant_id, strategy_id) references strategies(tenant_id, id)
);
create index strategy_simulations_by_strategy on strategy_simulations (tenant_id, strategy_id, created_at desc);
select app_enable_tenant_rls('strategy_simulations');

-- The customers whose outcome the draft changes against the live baseline.
create table strategy_simulation_changes (
  tenant_id text not null references tenants(id),
  simulation_id uuid not null,
  customer_id uuid not null,
  live_outcome text not null check (live_outcome in ('offer', 'none')),
  draft_outcome text not null check (draft_outcome in ('offer', 'none')),
  live_amount bigint,
  draft_amount bigint,
  risk_class text,
  reason text not null default '',
  primary key (tenant_id, simulation_id, customer_id),
  foreign key (tenant_id, simulation_id) references strategy_simulations(tenant_id, id) on delete cascade
);
select app_enable_tenant_rls('strategy_simulation_changes');

-- Offers remember what made them.
alter table offers add column strategy_id uuid;
alter table offers add column strategy_version integer;
alter table offers add column decision_id uuid;
create index offers_by_strategy on offers (tenant_id, strategy_id) where strategy_id is not null;

-- Origination runs at most once per strategy, customer and business date (re-running the close makes
-- no duplicate offer): the row is claimed in the same transaction as the offer it produced.
create table strategy_originations (
  tenant_id text not null references tenants(id),
  strategy_id uuid not null,
  customer_id uuid not null,
  business_date date not null,
  strategy_version integer not null,
  outcome text not null check (outcome in ('offer', 'refused', 'skipped')),
  offer_id uuid,
  decision_id uuid,
  created_at timestamptz not null default now(),
  primary key (tenant_id, strategy_id, customer_id, business_date)
);
select app_enable_tenant_rls('strategy_originations');

-- A refusal overridden for one customer (customer.eligibility.force), with the reason; used by the
-- next origination of the named strategy (or any live strategy when strategy_id is null), once.
create table customer_eligibility_overrides (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  customer_id uuid not null,
  strategy_id uuid,
  reason text not null check (length(reason) between 3 and 1000),
  created_by text not null,
  created_at timestamptz not null default now(),
  used_at timestamptz,
  used_offer_id uuid,
  primary key (tenant_id, id),
  foreign key (tenant_id, customer_id) references customers(tenant_id, id)
);
create index customer_eligibility_overrides_open on customer_eligibility_overrides (tenant_id, customer_id) where used_at is null;
select app_enable_tenant_rls('customer_eligibility_overrides');
