-- 0710 public application drafts and proof-of-work spends (issue 13, the public page /application/:id).
-- Why: the public page works without JavaScript, one step per page, so an applicant's answers live on
-- the server between steps. A draft is found by an unguessable random token carried in a hidden field
-- (only its SHA-256 is stored), bound to the tenant, the form and the version it was started on, and
-- expires after a day. Submitting a draft records its submission on it, so a second submit of the same
-- draft answers the same submission (no second application).

create table form_drafts (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  -- sha256 (hex) of the token the applicant's page carries; the token itself is never stored.
  token_hash text not null check (token_hash ~ '^[0-9a-f]{64}$'),
  form_id uuid not null,
  form_version integer not null,
  language text not null default 'en' check (language in ('en', 'fr')),
  -- The furthest step reached (0-based); a step after it cannot be opened by editing the page.
  step integer not null default 0 check (step >= 0),
  answers jsonb not null default '{}',
  submission_id uuid,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  expires_at timestamptz not null,
  primary key (tenant_id, id),
  foreign key (tenant_id, form_id, form_version) references application_form_versions(tenant_id, form_id, version)
);
create unique index form_drafts_token on form_drafts (token_hash);
create index form_drafts_expires on form_drafts (expires_at);
select app_enable_tenant_rls('form_drafts');

-- An uploaded file belongs to its draft until the draft is submitted (then to the submission too).
alter table form_submission_files add column draft_id uuid;
create index form_submission_files_draft on form_submission_files (tenant_id, draft_id);

-- Proof-of-work solutions already used (src/lib/intake/abuse.ts): a solution is accepted once. Global
-- (the challenge is solved before any tenant data is touched); rows past their challenge's expiry are
-- of no use and deleted as new ones come.
create table form_pow_spent (
  signature text primary key,
  expires_at timestamptz not null
);
create index form_pow_spent_expires on form_pow_spent (expires_at);
