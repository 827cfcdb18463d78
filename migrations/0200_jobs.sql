-- 0200 jobs: the Postgres-backed background job queue (src/lib/jobs).
-- Why a global table: one worker loop per app server claims work for every tenant, and it claims
-- through db.system (no tenant bound), so the queue cannot sit behind tenant row-level security.
-- Each job still carries its tenant_id and the handler runs its work inside db.tenant(tenant_id, …),
-- so tenant data stays row-secured. Payloads hold ids and parameters, never tenant data dumps.
create table jobs (
  id bigint generated always as identity primary key,
  name text not null,                              -- handler name, e.g. 'close.daily', 'loans.export'
  tenant_id text references tenants(id),           -- null for platform jobs (e.g. job pruning)
  payload jsonb not null default '{}'::jsonb,
  status text not null default 'queued'
    check (status in ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  priority integer not null default 100,           -- lower runs first
  run_at timestamptz not null default now(),       -- not before; retries push it by back-off
  attempts integer not null default 0,             -- claims so far (incremented at claim)
  max_attempts integer not null default 5 check (max_attempts >= 1),
  -- Exactly-once key for scheduled work, e.g. 'close.daily:demo-eu1:2026-11-21'. Several app
  -- servers enqueue the same period; the unique index lets only the first insert through.
  dedupe_key text unique,
  locked_by text,                                  -- worker id holding the lease
  lease_until timestamptz,                         -- a running job whose lease passed is reclaimable
  heartbeat_at timestamptz,
  progress_done bigint,
  progress_total bigint,
  last_error text,
  result jsonb,
  created_by uuid,                                 -- user who asked for it (exports), if any
  created_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz
);

-- The claim query: queued and due, or running with an expired lease.
create index jobs_claimable on jobs (priority, run_at) where status in ('queued', 'running');
create index jobs_tenant_name on jobs (tenant_id, name, created_at desc);
