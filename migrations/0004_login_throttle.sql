-- 0004 login throttle: failed sign-in and second-factor attempts, keyed by account and by client IP.
-- Why: throttling must hold across several app servers, so the counts live in the database, not in
-- process memory. Global (no row-level security): sign-in runs before a tenant is bound.
create table login_failures (
  id bigint generated always as identity primary key,
  -- 'account:<email>', 'ip:<address>' or 'totp:<tenant>:<user>'
  key text not null,
  at timestamptz not null
);
create index login_failures_key_at on login_failures (key, at);
