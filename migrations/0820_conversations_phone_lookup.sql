-- 0820 inbound SMS: find the customer of the bound tenant whose phone number has these digits
-- ("+33 6 12…" = "33612…"), for POST /v1/conversations/inbound (src/lib/conversations/inbound.ts).
-- Why a function: under row-level security the digits expression (regexp_replace is not leakproof)
-- is evaluated only after the tenant policy, so the expression index could not serve it and every
-- customer of the tenant was read. Like app_find_customers (0373), it runs with its owner's rights and
-- filters on the bound tenant itself, exactly what the policy does.
create index customers_phone_digits on customers (tenant_id, (regexp_replace(phone, '\D', '', 'g')))
  where phone is not null;

create function app_find_customer_by_phone(digits text)
returns setof uuid
language sql stable security definer
set search_path = pg_catalog, public
as $$
  select c.id from public.customers c
   where c.tenant_id = public.app_tenant() and c.phone is not null
     and regexp_replace(c.phone, '\D', '', 'g') = digits
   order by c.created_at desc
   limit 1
$$;
