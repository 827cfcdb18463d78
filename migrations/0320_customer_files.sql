-- 0320 customer files, credit-bureau PDF text and bank-statement imports (spec §2 customer profile: files,
-- upload-bureau-pdf, bank-statements; §6 customer file permissions).
-- Why: the profile keeps uploaded documents on disk (DATA_DIR/files by default) and only their metadata here;
-- a bureau PDF keeps its extracted text next to the file; a bank-statement CSV becomes rows of
-- customer_bank_transactions (source 'statement') that remember the import they came from, so an import can be
-- traced back to its file.
create table customer_files (
  tenant_id text not null,
  id uuid not null default gen_random_uuid(),
  customer_id uuid not null,
  kind text not null check (kind in ('document', 'bureau_pdf', 'bank_statement')),
  file_name text not null,
  content_type text not null,
  size_bytes integer not null check (size_bytes >= 0),
  sha256 text not null,
  storage_key text not null,                   -- path relative to the files root; never a request value
  extracted_text text,                         -- bureau PDFs: the text found in the PDF's content streams
  uploaded_by text not null,
  created_at timestamptz not null default now(),
  primary key (tenant_id, id),
  foreign key (tenant_id, customer_id) references customers(tenant_id, id)
);
create index customer_files_customer on customer_files (tenant_id, customer_id, kind, created_at desc);
select app_enable_tenant_rls('customer_files');

create table bank_statement_imports (
  tenant_id text not null,
  id uuid not null default gen_random_uuid(),
  customer_id uuid not null,
  file_id uuid not null,
  currency char(3) not null,
  row_count integer not null,
  first_date date not null,
  last_date date not null,
  imported_by text not null,
  created_at timestamptz not null default now(),
  primary key (tenant_id, id),
  foreign key (tenant_id, customer_id) references customers(tenant_id, id),
  foreign key (tenant_id, file_id) references customer_files(tenant_id, id)
);
create index bank_statement_imports_customer on bank_statement_imports (tenant_id, customer_id, created_at desc);
select app_enable_tenant_rls('bank_statement_imports');

alter table customer_bank_transactions add column import_id uuid;
