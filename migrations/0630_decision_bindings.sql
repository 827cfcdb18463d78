-- 0630 decision engine bindings (issue 12): which model version runs at which point of the process
-- (an application submitted, a checker's review), on which input groups, with which outcome mapping
-- and, for a submitted application, what a reject does. Offer generation is configured by the
-- lending strategies (strategy_versions.terms), not here.
-- Why: every application decision must be reproducible: the binding pins one model version, and at
-- most one binding per point is enabled at a time.

create table decision_bindings (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  name text not null check (length(name) between 1 and 120),
  point text not null check (point in ('application_submitted', 'review')),
  model_id uuid not null,
  model_version_id uuid not null,
  -- The input groups the model receives: exactly these keys of the decision input.
  inputs text[] not null check (
    cardinality(inputs) between 1 and 5
    and inputs <@ array['customer', 'bankStatement', 'bureau', 'exposure', 'application']::text[]
  ),
  mapping jsonb not null,                        -- OutcomeMapping (src/lib/decisioning/decisions.ts)
  -- At application_submitted: 'recommend' leaves a rejected application for the checker with the
  -- recommendation; 'auto_reject' has the system reject it. Approve and refer always stay.
  reject_action text not null default 'recommend' check (reject_action in ('recommend', 'auto_reject')),
  enabled boolean not null default false,
  created_by text not null,
  created_at timestamptz not null default now(),
  updated_by text,
  updated_at timestamptz not null default now(),
  row_version integer not null default 1,
  primary key (tenant_id, id),
  foreign key (tenant_id, model_version_id) references decision_model_versions(tenant_id, id),
  foreign key (tenant_id, model_id) references decision_models(tenant_id, id)
);
create unique index decision_bindings_name on decision_bindings (tenant_id, lower(name));
create unique index decision_bindings_one_enabled on decision_bindings (tenant_id, point) where enabled;
select app_enable_tenant_rls('decision_bindings');

-- An application whose automatic decision could not be taken (the model failed at run time) waits for
-- a person: the reason is kept here and shown to the checker.
alter table loan_applications add column manual_review_reason text check (length(manual_review_reason) <= 2000);
