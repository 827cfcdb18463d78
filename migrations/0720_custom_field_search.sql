-- 0720 customized fields in the lists' search (issue 13): the text values of a row's custom_fields
-- (customers, loan applications, collaterals; migration 0700) as one lower-cased text, so the list
-- search matches them ("contains", like names). src/lib/forms/custom-fields.ts writes the values.
-- Only string values count (text, choices' codes, dates, money amounts); numbers and booleans do not.

create function app_custom_search(v jsonb) returns text
language sql immutable parallel safe
as $$ select lower(jsonb_path_query_array(v, '$.* ? (@.type() == "string")')::text) $$;

-- Customers are found through app_find_customers (migration 0373, under the tenant's policy with its
-- indexes); it now also matches a customized text value. Rows without customized values are skipped
-- by the predicate itself, so on Postgres a small partial trigram index serves the match (a tenant
-- without customized fields pays nothing: the index is empty).
create or replace function app_find_customers(contains_pattern text, prefix_pattern text, max_rows integer)
returns setof uuid
language plpgsql stable security definer
set search_path = pg_catalog, public
as $$
begin
  return query execute format(
    'select c.id from public.customers c
      where c.tenant_id = public.app_tenant()
        and (lower(c.last_name) like %1$L or lower(c.first_name) like %1$L
             or lower(c.phone) like %2$L or lower(c.national_id) like %2$L
             or lower(c.external_id) like %2$L or lower(c.email) like %2$L
             or (c.custom_fields <> ''{}''::jsonb and public.app_custom_search(c.custom_fields) like %1$L))
      limit %3$s', contains_pattern, prefix_pattern, max_rows);
end $$;

do $$
begin
  if not exists (select 1 from pg_extension where extname = 'pg_trgm') then
    -- PGlite without pg_trgm (see 0301): the search scans, which is fine at its size.
    return;
  end if;
  execute $i$create index customers_custom_search_trgm on customers
    using gin (app_custom_search(custom_fields) gin_trgm_ops) where custom_fields <> '{}'::jsonb$i$;
  execute $i$create index loan_applications_custom_search_trgm on loan_applications
    using gin (app_custom_search(custom_fields) gin_trgm_ops) where custom_fields <> '{}'::jsonb$i$;
  execute $i$create index collaterals_custom_search_trgm on collaterals
    using gin (app_custom_search(custom_fields) gin_trgm_ops) where custom_fields <> '{}'::jsonb$i$;
end $$;
