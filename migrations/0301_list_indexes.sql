-- 0301 list indexes: what the loans-workspace lists need to serve their first page fast on a
-- tenant with 100,000 customers (bench: npm run bench:lists). Why each:
-- - keyset paging by name and by creation time reads an index in order and stops after one page;
-- - search by phone / national id / account number is a prefix match (lower(x) like 'abc%'),
--   which a text_pattern_ops index answers without scanning the table;
-- - the loan tabs look up each loan's installments by loan and due date.
-- Name search ("contains") uses trigram indexes when the pg_trgm extension is available (real
-- Postgres); the embedded PGlite has no pg_trgm, and there the search scans, which is fine at its size.

create index customers_list_name on customers (tenant_id, lower(last_name || ' ' || first_name), id);
create index customers_list_created on customers (tenant_id, created_at, id);
create index customers_phone_prefix on customers (tenant_id, lower(phone) text_pattern_ops);
create index customers_national_id_prefix on customers (tenant_id, lower(national_id) text_pattern_ops);
create index customers_external_id_prefix on customers (tenant_id, lower(external_id) text_pattern_ops);
create index customers_email_prefix on customers (tenant_id, lower(email) text_pattern_ops);

create index loans_list_created on loans (tenant_id, created_at, id);
create index loans_list_status_created on loans (tenant_id, status, created_at, id);
create index loans_account_prefix on loans (tenant_id, lower(account_no) text_pattern_ops);
create index loans_officer on loans (tenant_id, officer_id);
create index loans_closed_on on loans (tenant_id, closed_on) where closed_on is not null;
create index loan_installments_loan_due on loan_installments (tenant_id, loan_id, due_date);

do $$
begin
  begin
    create extension if not exists pg_trgm;
  exception when others then
    -- PGlite without the extension bundled, or no right to create it: keep the plain indexes.
    return;
  end;
  execute 'create index customers_last_name_trgm on customers using gin (lower(last_name) gin_trgm_ops)';
  execute 'create index customers_first_name_trgm on customers using gin (lower(first_name) gin_trgm_ops)';
end $$;
