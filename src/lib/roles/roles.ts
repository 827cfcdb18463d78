import type { Tx } from '../db/index.ts';
import type { RolesRow, UsersRow } from '../db/schema.generated.ts';
import { PERMISSION_KEYS } from '../auth/permissions.ts';
import { effectiveKeys } from './grants.ts';

/**
 * Reading roles (table `roles`, held through `user_roles`). Row-level security keeps every query to
 * the transaction's tenant; the writes are the commands of ./commands.ts.
 */

/** A role as the pages and the API show it. */
export type RoleView = {
  id: string;
  name: string;
  description: string;
  /** The Administrator role (spec §6 all_permissions): every permission, never edited or deleted. */
  isAdmin: boolean;
  /** The grants as stored: keys, resources (`loans.customers`) or areas (`loans`). */
  permissions: string[];
  /** How many table keys the role gives (every key for the Administrator role). */
  permissionCount: number;
  userCount: number;
  createdAt: Date;
};

/** A user holding a role, for the permissions page. */
export type RoleUser = { id: string; displayName: string; email: string; isActive: boolean };

type RoleRow = Pick<RolesRow, 'id' | 'name' | 'description' | 'is_admin' | 'authorities' | 'created_at'> & {
  user_count: number;
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a path id can name a role at all (anything else is simply not found, never a database error). */
export function isRoleId(id: string): boolean {
  return UUID.test(id);
}

const ROLE_SQL = `
  select r.id, r.name, r.description, r.is_admin, r.authorities, r.created_at,
    (select count(*)::int from user_roles ur where ur.tenant_id = r.tenant_id and ur.role_id = r.id) as user_count
  from roles r`;

function view(row: RoleRow): RoleView {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    isAdmin: row.is_admin,
    permissions: row.is_admin ? [] : row.authorities,
    permissionCount: row.is_admin ? PERMISSION_KEYS.length : effectiveKeys(row.authorities).length,
    userCount: row.user_count,
    createdAt: row.created_at,
  };
}

/** Every role of the tenant: the Administrator role first, then by name. */
export async function listRoles(tx: Tx): Promise<RoleView[]> {
  const rows = await tx.query<RoleRow>(`${ROLE_SQL} order by r.is_admin desc, lower(r.name), r.id`);
  return rows.map(view);
}

/** One role, or null when the tenant has none with this id. */
export async function findRole(tx: Tx, id: string, options: { lock?: boolean } = {}): Promise<RoleView | null> {
  if (!isRoleId(id)) return null;
  const [row] = await tx.query<RoleRow>(`${ROLE_SQL} where r.id = $1${options.lock ? ' for update of r' : ''}`, [id]);
  return row ? view(row) : null;
}

/** Another role of the tenant with this name, ignoring case (names are unique per tenant). */
export async function roleNamed(
  tx: Tx,
  name: string,
  exceptId?: string,
): Promise<Pick<RoleView, 'id' | 'name'> | null> {
  const [row] = await tx.query<Pick<RolesRow, 'id' | 'name'>>(
    `select id, name from roles where lower(name) = lower($1) and ($2::uuid is null or id <> $2::uuid) limit 1`,
    [name, exceptId ?? null],
  );
  return row ?? null;
}

/** The users of each role, by role id, by name. */
export async function usersByRole(tx: Tx): Promise<Map<string, RoleUser[]>> {
  const rows = await tx.query<
    Pick<UsersRow, 'id' | 'display_name' | 'email' | 'is_active'> & {
      role_id: string;
    }
  >(
    `select ur.role_id, u.id, u.display_name, u.email, u.is_active
       from user_roles ur join users u on u.tenant_id = ur.tenant_id and u.id = ur.user_id
      order by lower(u.display_name), u.email`,
  );
  const out = new Map<string, RoleUser[]>();
  for (const row of rows) {
    const list = out.get(row.role_id) ?? [];
    list.push({ id: row.id, displayName: row.display_name, email: row.email, isActive: row.is_active });
    out.set(row.role_id, list);
  }
  return out;
}

/** A role in the JSON of /v1/roles. */
export function roleJson(role: RoleView) {
  return {
    id: role.id,
    name: role.name,
    description: role.description,
    isAdmin: role.isAdmin,
    permissions: role.permissions,
    permissionCount: role.permissionCount,
    userCount: role.userCount,
    createdAt: role.createdAt,
  };
}
