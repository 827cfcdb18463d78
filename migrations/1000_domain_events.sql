-- 1000 domain events (the outbox): one row per change of a customer, offer, application, loan,
-- payment, collateral, task or conversation, written by `recordAudit` in the transaction of the change,
-- so an event exists exactly when its change does (security goal 16: 0 events lost). Consumers
-- (webhooks, event sinks) read them after commit, in commit-safe order: only rows whose writing
-- transaction is older than every transaction still running (`xid < pg_snapshot_xmin(...)`), ordered
-- by (xid, seq), so an event committed late is never skipped by a cursor that moved past it.

create table domain_events (
  tenant_id text not null references tenants(id),
  seq bigint generated always as identity,
  id uuid not null default gen_random_uuid(),  -- the event's id: the webhook-id of every delivery of it
  type text not null,                          -- area.object.verb, e.g. loan.repayment.created
  object_type text not null,
  object_id text,
  actor_id text,
  occurred_at timestamptz not null default now(),
  data jsonb not null,
  xid xid8 not null default pg_current_xact_id(),
  primary key (tenant_id, seq)
);
create unique index domain_events_id on domain_events (tenant_id, id);
create index domain_events_order on domain_events (tenant_id, xid, seq);
create index domain_events_time on domain_events (tenant_id, occurred_at);
select app_enable_tenant_rls('domain_events');
create trigger domain_events_immutable before update on domain_events
  for each row execute function app_forbid_change();
