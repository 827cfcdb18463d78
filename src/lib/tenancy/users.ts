/**
 * The current user (GET /v1/users/me) and the tenant's administrators (GET
 * /v1/users/admin, listed on the 403 page). Read fresh from the tenant's rows on each call so a role
 * change shows at once.
 */
import type { Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import type { RolesRow, UserDataPermissionsRow, UsersRow } from '../db/schema.generated.ts';

/** Exactly the fields of the user contract, named as the API names them. */
export type CurrentUser = Pick<
  UsersRow,
  'id' | 'display_name' | 'email' | 'tenant_id' | 'language' | 'session_timeout' | 'password_change_required'
> & {
  roles: { name: string }[];
  data_permissions: { field: string; value: string }[];
  is_admin: boolean;
  authorities: string[];
};

export async function currentUser(tx: Tx, userId: string): Promise<CurrentUser> {
  const [user] = await tx.query<Omit<CurrentUser, 'roles' | 'data_permissions' | 'is_admin' | 'authorities'>>(
    `select id::text as id, display_name, email, tenant_id, language, session_timeout, password_change_required
       from users where id = $1 and is_active`,
    [userId],
  );
  if (!user) throw new AppError('UNAUTHORIZED', 'You are not authorized to access the board.');
  const roles = await tx.query<Pick<RolesRow, 'name' | 'is_admin' | 'authorities'>>(
    `select r.name, r.is_admin, r.authorities from user_roles ur join roles r on r.tenant_id = ur.tenant_id and r.id = ur.role_id
      where ur.user_id = $1 order by r.name`,
    [userId],
  );
  const dataPermissions = await tx.query<Pick<UserDataPermissionsRow, 'field' | 'value'>>(
    'select field, value from user_data_permissions where user_id = $1 order by field, value',
    [userId],
  );
  return {
    id: user.id,
    display_name: user.display_name,
    email: user.email,
    tenant_id: user.tenant_id,
    roles: roles.map((r) => ({ name: r.name })),
    data_permissions: dataPermissions.map((p) => ({ field: p.field, value: p.value })),
    is_admin: roles.some((r) => r.is_admin),
    authorities: [...new Set(roles.flatMap((r) => r.authorities))].sort(),
    language: user.language,
    session_timeout: user.session_timeout,
    password_change_required: user.password_change_required,
  };
}

export type Administrator = Pick<UsersRow, 'display_name' | 'email'>;

/** Active users holding an all_permissions role, by name. */
export async function listAdministrators(tx: Tx): Promise<Administrator[]> {
  return tx.query<Administrator>(
    `select u.display_name, u.email from users u
      where u.is_active and exists (
        select 1 from user_roles ur join roles r on r.tenant_id = ur.tenant_id and r.id = ur.role_id
         where ur.tenant_id = u.tenant_id and ur.user_id = u.id and r.is_admin)
      order by u.display_name, u.email`,
  );
}

/** Whether the user exists in the bound tenant (an administrator's action on another user). */
export async function userExists(tx: Tx, tenantId: string, userId: string): Promise<boolean> {
  const rows = await tx.query('select 1 from users where tenant_id = $1 and id = $2', [tenantId, userId]);
  return rows.length > 0;
}
