-- 0002 sign-in directory: a global map from e-mail to the tenants where that e-mail has an account.
-- Why: the login form asks only for e-mail and password, before any tenant is bound, while users are
-- row-secured per tenant. The directory is global (no row-level security) and holds nothing but the
-- e-mail, the tenant and the user id; a trigger on users keeps it exact, whoever writes users.
create table sign_in_directory (
  email_lower text not null,
  tenant_id text not null references tenants(id),
  user_id uuid not null,
  primary key (email_lower, tenant_id)
);
create index sign_in_directory_user on sign_in_directory (tenant_id, user_id);

create function app_sync_sign_in_directory() returns trigger
language plpgsql as $$
begin
  if tg_op in ('UPDATE', 'DELETE') then
    delete from sign_in_directory where tenant_id = old.tenant_id and user_id = old.id;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    insert into sign_in_directory (email_lower, tenant_id, user_id) values (lower(new.email), new.tenant_id, new.id);
  end if;
  return null;
end $$;

create trigger users_sign_in_directory after insert or delete or update of email on users
  for each row execute function app_sync_sign_in_directory();
