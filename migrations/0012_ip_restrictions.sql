-- 0012 IP restrictions: a tenant's allowlist of client networks (spec §2 /admin/user/ip-restriction,
-- security goal 14). Why: when a tenant lists any network, every signed-in request of that tenant
-- from an address outside all of them is refused (src/lib/tenancy/ip-allowlist.ts, checked by the
-- ip-restriction middleware step on every request, downloads included).
create table ip_restrictions (
  tenant_id text not null references tenants(id),
  id uuid not null default gen_random_uuid(),
  network cidr not null,                       -- '203.0.113.0/24', '2001:db8::/32', a single host as /32 or /128
  description text not null default '',
  created_by uuid,
  created_at timestamptz not null default now(),
  primary key (tenant_id, id),
  unique (tenant_id, network),
  foreign key (tenant_id, created_by) references users(tenant_id, id) on delete set null (created_by)
);
select app_enable_tenant_rls('ip_restrictions');
