-- 0020 error reports: what islands send to POST /v1/error-reports (spec §3 "Error report", §8),
-- automatically for failed calls and uncaught errors, or by the "Report error" button.
-- Why: administrators need to see what broke for whom without access to browser consoles.
-- Text columns are bounded here as well as in the endpoint, so no client can fill the disk.

create table error_reports (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  user_id uuid,                                   -- the signed-in reporter; kept when the user is deleted
  message text not null check (length(message) <= 2000),
  stack text not null default '' check (length(stack) <= 20000),
  context jsonb not null default '{}'::jsonb,     -- url, method, page_url, user_agent, screen, timestamp, module
  report_type text not null check (report_type in ('auto', 'manual')),
  is_resolved boolean not null default false,
  created_at timestamptz not null default now(),
  primary key (tenant_id, id),
  foreign key (tenant_id, user_id) references users(tenant_id, id) on delete set null (user_id)
);
create index error_reports_recent on error_reports (tenant_id, created_at desc);
select app_enable_tenant_rls('error_reports');
