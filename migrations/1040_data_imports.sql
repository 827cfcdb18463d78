-- 1040 data upload and import buckets (issue 16): files of customers, loans, repayments or bank
-- transactions imported all or nothing through the lending commands.
--  - data_imports: one uploaded (or bucket-fetched) file, its bytes until it is processed, the
--    mapping used, the outcome and the row-level error report; the file's SHA-256 is kept so the
--    history says when the same file came twice.
--  - data_import_keys: the natural key of every row imported (customer / loan / repayment / bank
--    transaction external id), so the same row in a later file is skipped, never imported twice.
--  - data_import_mappings: the last column mapping per import kind, offered next time.
--  - import_buckets, import_bucket_runs, import_bucket_files: watched S3-compatible buckets and SFTP
--    folders, each run's history, and the files already processed (by key and hash).

create table data_imports (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  kind text not null check (kind in ('customers', 'loans', 'repayments', 'bank_transactions')),
  file_name text not null,
  file_type text not null check (file_type in ('csv', 'xlsx')),
  file_size integer not null,
  sha256 text not null,
  content bytea,                                   -- dropped once the import has committed
  headers jsonb not null default '[]',
  total_rows integer not null default 0,
  mapping jsonb,
  status text not null default 'uploaded'
    check (status in ('uploaded', 'queued', 'running', 'checked', 'refused', 'imported', 'failed')),
  mode text check (mode in ('dry_run', 'commit')),
  source text not null default 'upload' check (source in ('upload', 'bucket')),
  bucket_id uuid,
  job_id bigint,
  processed_rows integer not null default 0,
  created_count integer not null default 0,
  skipped_count integer not null default 0,
  error_count integer not null default 0,
  errors jsonb not null default '[]',              -- [{ row, column, key, params, message }], at most 200
  is_duplicate_file boolean not null default false,
  first_date date,
  last_date date,
  created_by text,
  created_at timestamptz not null default now(),
  finished_at timestamptz,
  version integer not null default 1,
  primary key (tenant_id, id)
);
create index data_imports_recent on data_imports (tenant_id, created_at desc);
create index data_imports_sha on data_imports (tenant_id, kind, sha256);
select app_enable_tenant_rls('data_imports');

create table data_import_keys (
  tenant_id text not null references tenants(id),
  kind text not null,
  natural_key text not null,
  object_id uuid,
  import_id uuid not null,
  created_at timestamptz not null default now(),
  primary key (tenant_id, kind, natural_key),
  foreign key (tenant_id, import_id) references data_imports(tenant_id, id)
);
create index data_import_keys_import on data_import_keys (tenant_id, import_id);
select app_enable_tenant_rls('data_import_keys');

create table data_import_mappings (
  tenant_id text not null references tenants(id),
  kind text not null,
  mapping jsonb not null,
  updated_by text,
  updated_at timestamptz not null default now(),
  primary key (tenant_id, kind)
);
select app_enable_tenant_rls('data_import_mappings');

create table import_buckets (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  name text not null,
  type text not null check (type in ('s3', 'sftp')),
  kind text not null check (kind in ('customers', 'loans', 'repayments', 'bank_transactions')),
  endpoint text,                                   -- s3: https://s3.example.com (empty: AWS)
  region text,
  bucket text,
  prefix text not null default '',
  access_key_id text,
  host text,                                       -- sftp
  port integer,
  username text,
  path text,
  secret_sealed text not null,                     -- s3 secret access key or sftp password (secret-box)
  mapping jsonb not null default '{}',
  is_enabled boolean not null default true,
  last_run_at timestamptz,
  created_by text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  version integer not null default 1,
  primary key (tenant_id, id),
  unique (tenant_id, name)
);
select app_enable_tenant_rls('import_buckets');

create table import_bucket_runs (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  bucket_id uuid not null,
  trigger text not null check (trigger in ('schedule', 'manual')),
  status text not null default 'running' check (status in ('running', 'ok', 'failed')),
  files_seen integer not null default 0,
  files_imported integer not null default 0,
  files_skipped integer not null default 0,
  files_failed integer not null default 0,
  details jsonb not null default '[]',             -- [{ file, outcome, reason?, importId? }]
  error text,
  started_at timestamptz not null default now(),
  finished_at timestamptz,
  primary key (tenant_id, id),
  foreign key (tenant_id, bucket_id) references import_buckets(tenant_id, id) on delete cascade
);
create index import_bucket_runs_bucket on import_bucket_runs (tenant_id, bucket_id, started_at desc);
select app_enable_tenant_rls('import_bucket_runs');

create table import_bucket_files (
  tenant_id text not null references tenants(id),
  bucket_id uuid not null,
  file_key text not null,
  sha256 text not null,
  outcome text not null check (outcome in ('imported', 'duplicate', 'failed')),
  import_id uuid,
  processed_at timestamptz not null default now(),
  primary key (tenant_id, bucket_id, file_key, sha256),
  foreign key (tenant_id, bucket_id) references import_buckets(tenant_id, id) on delete cascade
);
select app_enable_tenant_rls('import_bucket_files');

-- Bank transactions from an import are told apart from statements and the API.
alter table customer_bank_transactions drop constraint customer_bank_transactions_source_check;
alter table customer_bank_transactions add constraint customer_bank_transactions_source_check
  check (source in ('simulated', 'statement', 'api', 'import'));
