-- 1020 event sinks (issue 16, admin › notifications › events): continuous export of the tenant's domain
-- events (migration 1000) and table snapshots (customers, loans, installments, transactions) to an
-- external Postgres database, a BigQuery dataset or an Apache Fineract instance (src/lib/sinks).
-- A sink keeps its own commit-order cursor into the outbox ({xid, seq}, see src/lib/events/README.md),
-- moved in the same transaction as the batch's bookkeeping (counters, batch log) only AFTER the
-- target accepted the batch: a crash between the two repeats the batch (targets upsert by id), never
-- loses it. `lease_owner`/`lease_until` keep two servers from running the same sink at once;
-- `generation` (bumped by replay and by a settings change) fences a run that started before.
-- Connection settings are sealed (src/lib/auth/secret-box.ts) and never sent back to the browser;
-- `settings_hint` is the masked summary shown instead.
create table event_sinks (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  type text not null check (type in ('postgres', 'bigquery', 'fineract')),
  name text not null,
  settings_sealed text not null,
  settings_hint text not null default '',
  event_filter text[] not null default '{*}',
  status text not null default 'active' check (status in ('active', 'paused')),
  cursor_xid xid8,
  cursor_seq bigint,
  generation integer not null default 1,
  revision integer not null default 1,
  -- the initial (or replay) snapshot, walked in pages by id: null when done
  snapshot_stage text check (snapshot_stage in ('customers', 'loans')),
  snapshot_after uuid,
  -- rows changed without an event (e.g. the daily close's penalties) are swept by (updated_at, id) from
  -- here: {"customers": {"at": ..., "id": ...}, "loans": {...}}, kept 10 minutes behind the clock
  sweep jsonb not null default '{}',
  delivered_count bigint not null default 0,
  first_event_at timestamptz,
  last_event_at timestamptz,
  last_delivered_at timestamptz,
  last_run_at timestamptz,
  last_error text,
  last_error_at timestamptz,
  last_test_at timestamptz,
  last_test_ok boolean,
  last_test_message text,
  lease_owner text,
  lease_until timestamptz,
  created_by uuid,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, id),
  unique (tenant_id, name)
);
select app_enable_tenant_rls('event_sinks');

-- One row per delivered batch: throughput (events per minute over the last hour) and the monthly
-- "events exported" usage. No foreign key: the usage of a deleted sink still counts.
create table event_sink_batches (
  tenant_id text not null references tenants(id),
  id bigint generated always as identity,
  sink_id uuid not null,
  sink_type text not null,
  delivered_at timestamptz not null default now(),
  events integer not null,
  snapshot_rows integer not null default 0,
  primary key (tenant_id, id)
);
create index event_sink_batches_time on event_sink_batches (tenant_id, delivered_at);
create index event_sink_batches_sink on event_sink_batches (tenant_id, sink_id, delivered_at);
select app_enable_tenant_rls('event_sink_batches');

-- Fineract sink: our id → the resource id Fineract gave it, so a second delivery updates instead of
-- creating again (and a resource created just before a crash is found again by its externalId).
create table event_sink_remote_ids (
  tenant_id text not null references tenants(id),
  sink_id uuid not null,
  object_type text not null,          -- 'client', 'loan', 'transaction'
  object_id text not null,            -- our id
  remote_id bigint not null,
  state text not null default '',     -- e.g. a loan's last pushed status ('submitted', 'approved', 'disbursed')
  updated_at timestamptz not null default now(),
  primary key (tenant_id, sink_id, object_type, object_id),
  foreign key (tenant_id, sink_id) references event_sinks (tenant_id, id) on delete cascade
);
select app_enable_tenant_rls('event_sink_remote_ids');

-- The sweep reads recently changed rows by (updated_at, id).
create index customers_updated_at on customers (tenant_id, updated_at, id);
create index loans_updated_at on loans (tenant_id, updated_at, id);
