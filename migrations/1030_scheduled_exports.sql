-- 1030 scheduled exports (issue 16): a list or saved query written to CSV/XLSX on a cron schedule in
-- the tenant's time zone and delivered to the owner's downloads list, e-mail, SFTP or HTTP; with one
-- run row per scheduled time (unique, so a time is run at most once however many servers tick) and
-- the outcome of each target. Secrets (SFTP password or key, HTTP header value) are sealed in
-- `targets` (src/lib/auth/secret-box.ts) and never sent back to the browser.

create table scheduled_exports (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  name text not null check (length(name) between 1 and 120),
  -- { kind: 'list', list, viewId, tab, filters } or { kind: 'query', queryId }
  source jsonb not null,
  format text not null check (format in ('csv', 'xlsx')),
  cron text not null check (length(cron) between 1 and 120),
  -- { downloads: bool, email: {...} | null, sftp: {...} | null, http: {...} | null }
  targets jsonb not null,
  alert_user_ids uuid[] not null default '{}',
  alert_emails text[] not null default '{}',
  is_enabled boolean not null default true,
  -- Runs as this user (scope and permissions read when each run starts); whoever saves becomes it.
  owner_id uuid not null,
  next_run_at timestamptz,
  last_scheduled_at timestamptz,
  revision integer not null default 1,
  created_by uuid not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, id),
  foreign key (tenant_id, owner_id) references users(tenant_id, id)
);
create unique index scheduled_exports_name on scheduled_exports (tenant_id, lower(name));
create index scheduled_exports_due on scheduled_exports (tenant_id, next_run_at) where is_enabled;
select app_enable_tenant_rls('scheduled_exports');

create table scheduled_export_runs (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  export_id uuid not null,
  trigger text not null check (trigger in ('schedule', 'manual')),
  -- The cron time this run is for (schedule), or when "run now" was asked (manual).
  scheduled_for timestamptz not null,
  status text not null default 'queued' check (status in ('queued', 'running', 'retrying', 'succeeded', 'failed')),
  requested_by uuid,
  started_at timestamptz,
  finished_at timestamptz,
  attempts integer not null default 0,
  rows integer,
  bytes bigint,
  file_name text,
  -- The file kept between attempts (a retry delivers it again without producing a second one).
  file_path text,
  download_id uuid,
  -- { downloads: {status, ...}, email: {...}, sftp: {...}, http: {...} }
  targets jsonb not null default '{}',
  error text,
  created_at timestamptz not null default now(),
  primary key (tenant_id, id),
  foreign key (tenant_id, export_id) references scheduled_exports(tenant_id, id) on delete cascade
);
create unique index scheduled_export_runs_once on scheduled_export_runs (tenant_id, export_id, scheduled_for)
  where trigger = 'schedule';
create index scheduled_export_runs_recent on scheduled_export_runs (tenant_id, export_id, created_at desc);
create index scheduled_export_runs_month on scheduled_export_runs (tenant_id, started_at);
select app_enable_tenant_rls('scheduled_export_runs');
