-- 0373 customer search: finds the customers of the bound tenant matching one search term, for the
-- lists' search box (src/lib/lists/query.ts).
-- Why a function: under row-level security Postgres evaluates the tenant policy before any
-- condition that is not "leakproof", and LIKE and lower() are not, so the trigram and prefix indexes
-- of 0301 cannot serve a search made through the policy: finding one customer by a number in their
-- name or phone read all 100,000 customers (0.2-2 s). This function runs with its owner's rights
-- (the migrations' role) and filters on the bound tenant itself, which is exactly what the policy
-- does, so the indexes apply. Where the owner is itself subject to the policy (a non-superuser
-- owner with forced row-level security), the answer is the same, only slower.
-- Matches: last or first name containing the term; phone, national id, external id or e-mail
-- starting with it. The caller passes LIKE patterns already escaped.

-- PL/pgSQL with EXECUTE so each call is planned with its own patterns: a prefix index can only
-- serve a pattern known when planning (a generic plan of a SQL function scanned every customer).
create function app_find_customers(contains_pattern text, prefix_pattern text, max_rows integer)
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
             or lower(c.external_id) like %2$L or lower(c.email) like %2$L)
      limit %3$s', contains_pattern, prefix_pattern, max_rows);
end $$;

-- Account numbers and offer codes are searched by prefix as a key range in byte order
-- (src/lib/lists/query.ts, mode 'code-prefix'), which these indexes serve under the policy.
create index loans_account_no_c on loans (tenant_id, (account_no collate "C"));
create index offers_code_c on offers (tenant_id, (code collate "C"));
