-- 0022 downloads: files generated for one user (exports, reports), listed at
-- /{section}/user/downloads-list with status and progress. The bytes live under
-- DATA_DIR/downloads/<tenant>/<id>; this table says who may fetch them and how far along they are.
-- Why: long exports run in the background and must be fetchable only by the user who asked.

create table downloads (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  user_id uuid not null,
  kind text not null,                             -- what produced it, e.g. 'loans-export'
  file_name text not null check (length(file_name) between 1 and 200),
  content_type text not null default 'application/octet-stream',
  status text not null default 'queued' check (status in ('queued', 'running', 'done', 'failed')),
  progress integer not null default 0 check (progress between 0 and 100),
  size_bytes bigint,
  error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  completed_at timestamptz,
  primary key (tenant_id, id),
  foreign key (tenant_id, user_id) references users(tenant_id, id) on delete cascade
);
create index downloads_by_user on downloads (tenant_id, user_id, created_at desc);
select app_enable_tenant_rls('downloads');
