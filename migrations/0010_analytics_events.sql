-- 0010 analytics events: first-party product analytics (spec §2: a 'login' event after a sign-in with a
-- remembered origin; page-view events named by the route manifest). Why: no third-party tracker; the
-- events stay in the tenant's own rows, row-secured like everything else.
create table analytics_events (
  tenant_id text not null references tenants(id),
  id bigint generated always as identity,
  name text not null,                         -- 'login', 'page_view:/loans/customers', …
  user_id uuid,                               -- null for API clients without a user
  path text,                                  -- the requested path (no query: it may carry personal data)
  properties jsonb not null default '{}'::jsonb,
  occurred_at timestamptz not null default now(),
  primary key (tenant_id, id),
  -- Events outlive a deleted user: keep the row, forget who.
  foreign key (tenant_id, user_id) references users(tenant_id, id) on delete set null (user_id)
);
create index analytics_events_by_time on analytics_events (tenant_id, occurred_at);
create index analytics_events_by_name on analytics_events (tenant_id, name, occurred_at);
select app_enable_tenant_rls('analytics_events');
