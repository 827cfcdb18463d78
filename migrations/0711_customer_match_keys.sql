-- 0711 normalised national id and phone of customers (issue 13, the public page's customer match).
-- Why: a public submission finds its customer by national id (upper-cased, letters and digits only) or
-- phone (digits only, a leading international 00 dropped), src/lib/intake/submit.ts. Normalising every
-- customer of the tenant per submit is a scan; generated columns keep the normalised values right for
-- customers created or edited anywhere, and per-tenant indexes make the match an index lookup.

alter table customers
  add column national_id_key text generated always as (
    nullif(regexp_replace(upper(national_id), '[^A-Z0-9]', '', 'g'), '')
  ) stored,
  add column phone_key text generated always as (
    nullif(regexp_replace(regexp_replace(phone, '\D', '', 'g'), '^00', ''), '')
  ) stored;

create index customers_national_id_key on customers (tenant_id, national_id_key, created_at) where national_id_key is not null;
create index customers_phone_key on customers (tenant_id, phone_key, created_at) where phone_key is not null;
