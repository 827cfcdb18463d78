-- 0500 user administration (/admin/user/users, /v1/users): invitations reuse the password-reset
-- tokens with a purpose and a longer expiry, so there is one token system; a user may be marked as
-- signing in with single sign-on only (no password link); "last sign-in" is read from the sessions.
alter table password_reset_tokens
  add column purpose text not null default 'reset' check (purpose in ('reset', 'invitation'));

alter table users add column sso_only boolean not null default false;

-- Last sign-in per user (max created_at of the signed-in sessions) without scanning every session.
create index sessions_user_signed_in on sessions (tenant_id, user_id, created_at desc) where stage = 'active';
