-- 0100 audit log: one append-only row per mutating action of the product (security goal 25):
-- who (actor), which tenant, what object, the state before and after, when, from which IP and
-- with which outcome (success, denied, failed). Why: an auditor must be able to reconstruct every
-- change, including refused ones, and the application itself must never be able to rewrite it.

create table audit_log (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  occurred_at timestamptz not null default now(),
  actor_id text,                              -- user id, API client id, or 'system' for jobs
  actor_kind text not null default 'user' check (actor_kind in ('user', 'token', 'system')),
  action text not null,                       -- verb such as 'loan.repay', 'application.approve'
  object_type text not null,                  -- 'loan', 'loan_application', 'offer', ...
  object_id text,
  before jsonb,
  after jsonb,
  ip text,
  request_id text,
  outcome text not null check (outcome in ('success', 'denied', 'failed')),
  reason text,                                -- why a denied/failed action did not happen
  primary key (tenant_id, id)
);
create index audit_log_object on audit_log (tenant_id, object_type, object_id, occurred_at);
create index audit_log_time on audit_log (tenant_id, occurred_at);
select app_enable_tenant_rls('audit_log');
create trigger audit_log_immutable before update or delete on audit_log
  for each row execute function app_forbid_change();
