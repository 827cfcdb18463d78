-- 0371 customer scope on rows: loans, offers, loan applications and collaterals carry a copy of
-- their customer's branch and officer, kept equal to the customer's by triggers.
-- Why: a row of these lists is in a viewer's scope when its customer's branch or officer is one of
-- the viewer's nodes. Tested through the customer, a one-branch viewer's counts either join every
-- row of the tenant to customers or probe the row table once per allowed customer (5,000 index
-- descents for one branch of a 100,000-customer tenant: 40-70 ms); with the copy, the test is an
-- index range on the row table itself (a few ms), and the counts read the viewer's rows only.
-- The copies are never written by the application: a BEFORE trigger fills them from the customer
-- on insert (or when a row changes customer), and an AFTER trigger on customers follows a customer
-- who moves to another branch or officer.

alter table loans add column customer_branch_id uuid, add column customer_officer_id uuid;
alter table offers add column customer_branch_id uuid, add column customer_officer_id uuid;
alter table loan_applications add column customer_branch_id uuid, add column customer_officer_id uuid;
alter table collaterals add column customer_branch_id uuid, add column customer_officer_id uuid;

create function app_copy_customer_scope() returns trigger
language plpgsql as $$
begin
  select c.branch_id, c.officer_id into new.customer_branch_id, new.customer_officer_id
    from customers c where c.tenant_id = new.tenant_id and c.id = new.customer_id;
  return new;
end $$;

create trigger loans_customer_scope before insert or update of customer_id on loans
  for each row execute function app_copy_customer_scope();
create trigger offers_customer_scope before insert or update of customer_id on offers
  for each row execute function app_copy_customer_scope();
create trigger loan_applications_customer_scope before insert or update of customer_id on loan_applications
  for each row execute function app_copy_customer_scope();
create trigger collaterals_customer_scope before insert or update of customer_id on collaterals
  for each row execute function app_copy_customer_scope();

create function app_follow_customer_scope() returns trigger
language plpgsql as $$
begin
  update loans set customer_branch_id = new.branch_id, customer_officer_id = new.officer_id
   where tenant_id = new.tenant_id and customer_id = new.id;
  update offers set customer_branch_id = new.branch_id, customer_officer_id = new.officer_id
   where tenant_id = new.tenant_id and customer_id = new.id;
  update loan_applications set customer_branch_id = new.branch_id, customer_officer_id = new.officer_id
   where tenant_id = new.tenant_id and customer_id = new.id;
  update collaterals set customer_branch_id = new.branch_id, customer_officer_id = new.officer_id
   where tenant_id = new.tenant_id and customer_id = new.id;
  return null;
end $$;

create trigger customers_scope_follow after update of branch_id, officer_id on customers
  for each row when (old.branch_id is distinct from new.branch_id or old.officer_id is distinct from new.officer_id)
  execute function app_follow_customer_scope();

-- Rows that exist already.
update loans x set customer_branch_id = c.branch_id, customer_officer_id = c.officer_id
  from customers c where c.tenant_id = x.tenant_id and c.id = x.customer_id;
update offers x set customer_branch_id = c.branch_id, customer_officer_id = c.officer_id
  from customers c where c.tenant_id = x.tenant_id and c.id = x.customer_id;
update loan_applications x set customer_branch_id = c.branch_id, customer_officer_id = c.officer_id
  from customers c where c.tenant_id = x.tenant_id and c.id = x.customer_id;
update collaterals x set customer_branch_id = c.branch_id, customer_officer_id = c.officer_id
  from customers c where c.tenant_id = x.tenant_id and c.id = x.customer_id;

create index loans_customer_branch on loans (tenant_id, customer_branch_id);
create index loans_customer_officer on loans (tenant_id, customer_officer_id);
create index offers_customer_branch on offers (tenant_id, customer_branch_id);
create index offers_customer_officer on offers (tenant_id, customer_officer_id);
create index loan_applications_customer_branch on loan_applications (tenant_id, customer_branch_id);
create index loan_applications_customer_officer on loan_applications (tenant_id, customer_officer_id);
create index collaterals_customer_branch on collaterals (tenant_id, customer_branch_id);
create index collaterals_customer_officer on collaterals (tenant_id, customer_officer_id);
