-- 1010 webhooks (src/lib/webhooks): endpoints an administrator registers, the per-tenant cursor of
-- the dispatcher over the outbox (domain_events), one delivery per endpoint × event, and every
-- attempt of a delivery (the delivery log). Why the trigger at the end: a delivery must start within
-- seconds of its change's commit, and the change's own transaction is the only place that knows an
-- event was written; the trigger queues one dispatcher job per writing transaction (dedupe key on
-- its xid), in that transaction, only for tenants that have an enabled endpoint.

create table webhook_endpoints (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  url text not null,
  description text not null default '',
  event_types text[] not null,                      -- exact types, 'area.*', 'area.object.*' or '*'
  is_enabled boolean not null default true,
  disabled_reason text,                             -- why the system disabled it (410 Gone), shown on the page
  secret_sealed text not null,                      -- sealSecret('whsec_…')
  previous_secret_sealed text,                      -- the secret before the last rotation, also signing until…
  previous_secret_until timestamptz,                -- …this moment (24 h after the rotation)
  revision integer not null default 1,              -- optimistic concurrency of edits
  created_by text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, id)
);
select app_enable_tenant_rls('webhook_endpoints');

-- Where the dispatcher stopped reading the tenant's events (readCommittedEvents' cursor).
create table webhook_cursors (
  tenant_id text not null references tenants(id),
  cursor_xid xid8,
  cursor_seq bigint,
  updated_at timestamptz not null default now(),
  primary key (tenant_id)
);
select app_enable_tenant_rls('webhook_cursors');

create table webhook_deliveries (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  endpoint_id uuid not null,
  event_id uuid not null,                           -- the domain event (or the test event's own id)
  event_type text not null,
  msg_id text not null,                             -- webhook-id header, the same on every attempt
  payload text not null,                            -- the exact body signed and sent on every attempt
  status text not null default 'pending' check (status in ('pending', 'delivered', 'failed', 'cancelled')),
  attempts integer not null default 0,
  next_attempt_at timestamptz,                      -- when the next automatic attempt is due (pending only)
  last_status integer,
  last_error text,
  last_attempt_at timestamptz,
  delivered_at timestamptz,
  created_at timestamptz not null default now(),
  primary key (tenant_id, id),
  unique (tenant_id, endpoint_id, event_id),
  foreign key (tenant_id, endpoint_id) references webhook_endpoints (tenant_id, id) on delete cascade
);
create index webhook_deliveries_log on webhook_deliveries (tenant_id, endpoint_id, created_at desc, id);
create index webhook_deliveries_month on webhook_deliveries (tenant_id, created_at);
select app_enable_tenant_rls('webhook_deliveries');

create table webhook_attempts (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  delivery_id uuid not null,
  endpoint_id uuid not null,
  attempt integer not null,                         -- 1, 2, … of the delivery (manual resends too)
  is_manual boolean not null default false,
  started_at timestamptz not null,
  duration_ms integer not null,
  request_headers jsonb not null,                   -- sent headers, signature left out
  response_status integer,
  response_body text,                               -- first 2 KiB
  error text,
  primary key (tenant_id, id),
  foreign key (tenant_id, delivery_id) references webhook_deliveries (tenant_id, id) on delete cascade
);
create index webhook_attempts_delivery on webhook_attempts (tenant_id, delivery_id, started_at);
select app_enable_tenant_rls('webhook_attempts');

-- One dispatcher job per transaction that writes events, for tenants with an enabled endpoint.
-- Row-level security already binds the event to the current tenant, so the endpoint lookup sees
-- exactly that tenant's endpoints.
create function app_webhooks_dispatch_soon() returns trigger
language plpgsql as $$
begin
  if exists (select 1 from webhook_endpoints where tenant_id = new.tenant_id and is_enabled) then
    insert into jobs (name, tenant_id, payload, priority, max_attempts, dedupe_key)
    values ('webhooks.dispatch', new.tenant_id, '{}'::jsonb, 20, 10,
            'webhooks.dispatch:' || new.tenant_id || ':' || pg_current_xact_id()::text)
    on conflict (dedupe_key) do nothing;
  end if;
  return null;
end $$;
create trigger domain_events_webhooks after insert on domain_events
  for each row execute function app_webhooks_dispatch_soon();
