-- 0610 loan product versions (issue 12): a change to a loan product never alters existing loans,
-- applications or offers.
-- Why: an administrator edits a product's rate, grace or repayment allocation; loans already made
-- with it must keep the conventions they were made with (schedule, allocation, overpayment,
-- arrears ageing, penalties). `loan_products` stays the current version (with `version`); every
-- version is kept as an immutable snapshot in `loan_product_versions`, written by a trigger so no
-- writer can forget it; offers, applications and loans record the version they were made with.

alter table loan_products
  add column version integer not null default 1 check (version > 0),
  add column updated_by text,
  add column updated_at timestamptz not null default now();

create table loan_product_versions (
  tenant_id text not null references tenants(id),
  product_id uuid not null,
  version integer not null check (version > 0),
  -- The whole loan_products row of this version (to_jsonb); read back with jsonb_populate_record.
  snapshot jsonb not null,
  created_by text,
  created_at timestamptz not null default now(),
  primary key (tenant_id, product_id, version),
  foreign key (tenant_id, product_id) references loan_products(tenant_id, id)
);
select app_enable_tenant_rls('loan_product_versions');
create trigger loan_product_versions_immutable before update or delete on loan_product_versions
  for each row execute function app_forbid_change();

-- Every insert and every version change of a product writes its snapshot; a change that does not
-- move the version (a writer that forgot) is refused, so a snapshot always matches its version.
create function loan_products_snapshot() returns trigger language plpgsql as $$
begin
  if tg_op = 'UPDATE' then
    if new.version = old.version then
      raise exception 'a loan product change must create a new version' using errcode = 'check_violation';
    end if;
    if new.version <> old.version + 1 then
      raise exception 'loan product versions follow each other' using errcode = 'check_violation';
    end if;
  end if;
  insert into loan_product_versions (tenant_id, product_id, version, snapshot, created_by)
  values (new.tenant_id, new.id, new.version, to_jsonb(new), new.updated_by);
  return new;
end $$;
create trigger loan_products_snapshot after insert or update on loan_products
  for each row execute function loan_products_snapshot();

insert into loan_product_versions (tenant_id, product_id, version, snapshot, created_by, created_at)
select p.tenant_id, p.id, p.version, to_jsonb(p), null, p.created_at from loan_products p;

alter table offers add column product_version integer;
alter table loan_applications add column product_version integer;
alter table loans add column product_version integer;
update offers set product_version = 1;
update loan_applications set product_version = 1;
update loans set product_version = 1;

-- A row made without naming the version gets the product's current one (seeds, the simulator).
create function app_default_product_version() returns trigger language plpgsql as $$
begin
  if new.product_version is null then
    select version into new.product_version from loan_products where tenant_id = new.tenant_id and id = new.product_id;
  end if;
  return new;
end $$;
create trigger offers_product_version before insert on offers
  for each row execute function app_default_product_version();
create trigger loan_applications_product_version before insert on loan_applications
  for each row execute function app_default_product_version();
create trigger loans_product_version before insert on loans
  for each row execute function app_default_product_version();

alter table offers alter column product_version set not null,
  add foreign key (tenant_id, product_id, product_version) references loan_product_versions(tenant_id, product_id, version);
alter table loan_applications alter column product_version set not null,
  add foreign key (tenant_id, product_id, product_version) references loan_product_versions(tenant_id, product_id, version);
alter table loans alter column product_version set not null,
  add foreign key (tenant_id, product_id, product_version) references loan_product_versions(tenant_id, product_id, version);
