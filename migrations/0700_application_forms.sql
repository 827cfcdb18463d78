-- 0700 application forms (issue 13): forms in the one definition format (JSON Schema + UI description,
-- src/lib/forms), their published versions, the public links that serve them, and what applicants send.
-- Why: applicants had no way in; a lender builds its own application form, publishes it at a public
-- link, and every submission keeps the version it was made with, its answers, files and outcome.

create table application_forms (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  -- The public link's id: /application/<slug>. Unique across tenants (./public_form_links).
  slug text not null check (slug ~ '^[a-z0-9][a-z0-9-]{2,62}$'),
  name text not null check (length(name) between 1 and 120),
  description text not null default '' check (length(description) <= 2000),
  -- The working draft (a form document); publishing copies it to a new immutable version.
  draft jsonb not null,
  -- Loan products the form applies for (the applicant picks one when more than one).
  product_ids uuid[] not null default '{}',
  -- The version the public link serves, or null: unpublished (the link answers 404).
  published_version integer check (published_version > 0),
  -- Bumped by every change (optimistic concurrency: a stale editor gets 409).
  revision integer not null default 1,
  created_by text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, id)
);
create unique index application_forms_slug on application_forms (slug);
create unique index application_forms_name on application_forms (tenant_id, lower(name));
select app_enable_tenant_rls('application_forms');

create table application_form_versions (
  tenant_id text not null references tenants(id),
  form_id uuid not null,
  version integer not null check (version > 0),
  document jsonb not null,
  product_ids uuid[] not null default '{}',
  published_by text not null,
  published_at timestamptz not null default now(),
  primary key (tenant_id, form_id, version),
  foreign key (tenant_id, form_id) references application_forms(tenant_id, id)
);
select app_enable_tenant_rls('application_form_versions');

-- A published version is what submissions were made with: it never changes.
create function application_form_versions_immutable() returns trigger language plpgsql as $$
begin
  raise exception 'application form versions are immutable' using errcode = '55000';
end $$;
create trigger application_form_versions_immutable before update or delete on application_form_versions
  for each row execute function application_form_versions_immutable();

-- The public links, global by design (no tenant is bound yet when /application/<slug> is opened): only published
-- forms are here. Kept in step with application_forms by a trigger, so a link exists exactly while
-- its form is published.
create table public_form_links (
  slug text primary key,
  tenant_id text not null references tenants(id),
  form_id uuid not null,
  version integer not null
);

create function application_forms_public_link() returns trigger language plpgsql as $$
begin
  if tg_op in ('UPDATE', 'DELETE') then
    delete from public_form_links where tenant_id = old.tenant_id and form_id = old.id;
  end if;
  if tg_op in ('INSERT', 'UPDATE') and new.published_version is not null then
    insert into public_form_links (slug, tenant_id, form_id, version)
    values (new.slug, new.tenant_id, new.id, new.published_version);
  end if;
  return null;
end $$;
create trigger application_forms_public_link after insert or update of slug, published_version or delete
  on application_forms for each row execute function application_forms_public_link();

create table form_submissions (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  form_id uuid not null,
  form_version integer not null,
  -- What the applicant is told and quotes: unique per tenant, easy to read over the phone.
  reference text not null check (reference ~ '^[A-Z0-9-]{6,20}$'),
  -- received → processed (application made) or failed (kept for a person to handle; nothing is lost).
  status text not null default 'received' check (status in ('received', 'processed', 'failed')),
  answers jsonb not null,
  language text not null default 'en' check (language in ('en', 'fr')),
  customer_id uuid,
  -- created: a new customer; matched: same national id or phone, same details; review: matched but
  -- the details differ (flagged for a person to check; nothing on the customer is overwritten).
  customer_match text check (customer_match in ('created', 'matched', 'review')),
  customer_differences jsonb not null default '[]',
  application_id uuid,
  -- The decision engine's decision on the application, when one was taken.
  decision_id uuid,
  -- The next step told to the applicant: 'approved', 'referred', 'rejected', 'received'.
  outcome text check (outcome in ('approved', 'referred', 'rejected', 'received')),
  error text,
  -- The applicant's address, hashed (abuse limits and investigations; not the address itself).
  client_hash text,
  receipt_email text,
  created_at timestamptz not null default now(),
  processed_at timestamptz,
  primary key (tenant_id, id),
  unique (tenant_id, reference),
  foreign key (tenant_id, form_id, form_version) references application_form_versions(tenant_id, form_id, version)
);
create index form_submissions_form on form_submissions (tenant_id, form_id, created_at desc);
create index form_submissions_customer on form_submissions (tenant_id, customer_id);
select app_enable_tenant_rls('form_submissions');

-- The files an applicant uploaded, stored like customer files (src/lib/customer-files) and, once the
-- submission has its customer, also listed among that customer's files (customer_file_id).
create table form_submission_files (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  submission_id uuid,
  field text not null,
  file_name text not null check (length(file_name) between 1 and 255),
  content_type text not null,
  size_bytes integer not null check (size_bytes > 0),
  sha256 text not null,
  storage_key text not null,
  customer_file_id uuid,
  created_at timestamptz not null default now(),
  primary key (tenant_id, id)
);
create index form_submission_files_submission on form_submission_files (tenant_id, submission_id);
select app_enable_tenant_rls('form_submission_files');

-- Customized forms: extra fields a tenant adds to customers, loan applications and collaterals, one
-- form document per entity; the values live in each row's custom_fields.
create table custom_field_forms (
  tenant_id text not null references tenants(id),
  entity text not null check (entity in ('customer', 'loan_application', 'collateral')),
  document jsonb not null,
  revision integer not null default 1,
  updated_by text not null,
  updated_at timestamptz not null default now(),
  primary key (tenant_id, entity)
);
select app_enable_tenant_rls('custom_field_forms');

alter table customers add column custom_fields jsonb not null default '{}';
alter table loan_applications add column custom_fields jsonb not null default '{}';
alter table collaterals add column custom_fields jsonb not null default '{}';
