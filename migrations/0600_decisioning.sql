-- 0600 decisioning core (issue 12): decision models as versioned JDM documents, and every decision
-- the product takes, with its inputs, model version, output and the trace of the rules that fired.
-- Why: a lender must be able to say, for every offer and every application decision, which rule and
-- which model version made it; a version that has taken a decision can never change afterwards.

create table decision_models (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  name text not null check (length(name) between 1 and 120),
  -- What the browser editor shows: one decision table, one set of expressions, a scorecard, or a
  -- free graph (imported JDM) the editor shows read-only as JSON.
  kind text not null check (kind in ('table', 'expression', 'scorecard', 'graph')),
  description text not null default '' check (length(description) <= 2000),
  created_by text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, id)
);
create unique index decision_models_name on decision_models (tenant_id, lower(name));
select app_enable_tenant_rls('decision_models');

create table decision_model_versions (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  model_id uuid not null,
  version integer not null check (version > 0),
  content jsonb not null,                      -- a GoRules JSON Decision Model (nodes, edges)
  test_cases jsonb not null default '[]',      -- [{ name, input, expected }]
  test_report jsonb,                           -- the last run of the test cases (all passed to be saved)
  created_by text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- Set when the version first takes part in a decision or is named by a live configuration: from
  -- then on the version is immutable (a trigger refuses changes to content and test cases).
  used_at timestamptz,
  primary key (tenant_id, id),
  unique (tenant_id, model_id, version),
  foreign key (tenant_id, model_id) references decision_models(tenant_id, id)
);
select app_enable_tenant_rls('decision_model_versions');

create function decision_model_versions_immutable() returns trigger language plpgsql as $$
begin
  if old.used_at is not null and (new.content is distinct from old.content or new.test_cases is distinct from old.test_cases) then
    raise exception 'decision model version % is in use and cannot change', old.id using errcode = 'check_violation';
  end if;
  if old.used_at is not null and new.used_at is null then
    raise exception 'decision model version % is in use', old.id using errcode = 'check_violation';
  end if;
  return new;
end $$;
create trigger decision_model_versions_immutable before update on decision_model_versions
  for each row execute function decision_model_versions_immutable();
create function decision_model_versions_no_delete() returns trigger language plpgsql as $$
begin
  if old.used_at is not null then
    raise exception 'decision model version % is in use and cannot be deleted', old.id using errcode = 'check_violation';
  end if;
  return old;
end $$;
create trigger decision_model_versions_no_delete before delete on decision_model_versions
  for each row execute function decision_model_versions_no_delete();

-- One decision: a model version evaluated on inputs at a point of the process.
create table decisions (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  point text not null check (point in ('application_submitted', 'offer_generation', 'review')),
  subject_type text not null check (subject_type in ('application', 'customer', 'offer')),
  subject_id uuid not null,
  customer_id uuid not null,
  model_id uuid not null,
  model_version_id uuid not null,
  model_version integer not null,
  -- What configured the call: a decision-engine binding or a strategy version (either may be null).
  binding_id uuid,
  strategy_id uuid,
  strategy_version integer,
  inputs jsonb not null,
  output jsonb not null,
  trace jsonb not null,
  -- The fired rules in words, for the "why" shown on the application, offer and customer profile.
  reasons jsonb not null default '[]',
  outcome text not null check (outcome in ('approve', 'refer', 'reject')),
  currency char(3),
  limit_amount bigint check (limit_amount is null or limit_amount >= 0),
  annual_interest_rate numeric(9, 6),
  -- A refusal overridden for this customer (customer.eligibility.force), with the reason.
  forced_by text,
  forced_reason text,
  business_date date not null,
  created_by text not null,
  created_at timestamptz not null default now(),
  primary key (tenant_id, id),
  foreign key (tenant_id, model_version_id) references decision_model_versions(tenant_id, id),
  foreign key (tenant_id, customer_id) references customers(tenant_id, id)
);
create index decisions_by_subject on decisions (tenant_id, subject_type, subject_id, created_at desc);
create index decisions_by_customer on decisions (tenant_id, customer_id, created_at desc);
select app_enable_tenant_rls('decisions');

create function decisions_immutable() returns trigger language plpgsql as $$
begin
  raise exception 'decisions are immutable' using errcode = 'check_violation';
end $$;
create trigger decisions_immutable before update or delete on decisions
  for each row execute function decisions_immutable();
