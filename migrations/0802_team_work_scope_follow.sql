-- 0802 the scope copies of issue 14's rows follow their customer (review of issue 14).
-- Why: tasks, conversations and collection cases carry a copy of their customer's branch and officer
-- (their lists test the viewer's scope on the row itself, as loans do since 0371). When a customer
-- moves to another branch or officer, those copies must move too, or the old branch keeps seeing them.
create or replace function app_follow_customer_scope() returns trigger
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
  update tasks set customer_branch_id = new.branch_id, customer_officer_id = new.officer_id
   where tenant_id = new.tenant_id and customer_id = new.id;
  update conversations set customer_branch_id = new.branch_id, customer_officer_id = new.officer_id
   where tenant_id = new.tenant_id and customer_id = new.id;
  update collection_cases set customer_branch_id = new.branch_id, customer_officer_id = new.officer_id
   where tenant_id = new.tenant_id and customer_id = new.id;
  return null;
end $$;
