/**
 * The tenant's staff as the administrator sees them (/admin/user/users, GET /v1/users): the list with
 * its search, filters and paging, one user with roles and data permissions, and the choices the forms
 * offer (roles, hierarchy nodes, languages). Reads only; the changes are in ./commands.ts.
 *
 * Status: `disabled` (is_active false), `invited` (active, no password and never signed in: the
 * invitation is not accepted yet), else `active`. Invited users are active accounts and hold a seat.
 * Last sign-in is the newest signed-in session (sessions.stage 'active').
 */
import type { TFunction } from 'i18next';
import type { Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { QueryReader } from '../http/query-params.ts';
import { HIERARCHY_LEVELS, type HierarchyLevel } from '../tenancy/scope.ts';
import type { HierarchyNodesRow, RolesRow, UsersRow } from '../db/schema.generated.ts';

export const USER_STATUSES = ['active', 'invited', 'disabled'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

export type UserRole = { id: string; name: string; is_admin: boolean };
export type UserDataPermission = { field: string; value: string; name: string | null };

/** One user as the API answers it (no password hash, no secrets). */
export type AdminUser = Pick<UsersRow, 'id' | 'email' | 'display_name' | 'language' | 'sso_only' | 'created_at'> & {
  status: UserStatus;
  is_admin: boolean;
  mfa_enrolled: boolean;
  last_sign_in_at: Date | null;
  roles: UserRole[];
  data_permissions: UserDataPermission[];
};

export type UserListFilters = {
  q?: string;
  roleId?: string;
  /** A branch code: users scoped to it, to its region, or to one of its officers. */
  branch?: string;
  status?: UserStatus;
};

export const USER_PAGE_SIZE = 25;

export type UserListPage = { items: AdminUser[]; total: number; page: number; pages: number; page_size: number };

/** The list filters and page from a URL's query (the page and GET /v1/users read the same names). */
export function readUserListQuery(params: URLSearchParams): UserListFilters & { page: number } {
  const reader = new QueryReader(params);
  return {
    q: reader.text('q', { max: 100 })?.trim() || undefined,
    roleId: reader.uuid('role'),
    branch: reader.text('branch', { max: 100 }) || undefined,
    status: reader.oneOf('status', USER_STATUSES),
    page: reader.int('page', { min: 1, max: 100_000, fallback: 1 }),
  };
}

const USER_FIELDS = `
  select u.id::text as id, u.email, u.display_name, u.language, u.sso_only, u.created_at, u.is_active,
         (u.password_hash is not null) as has_password,
         (select max(s.created_at) from sessions s
           where s.tenant_id = u.tenant_id and s.user_id = u.id and s.stage = 'active') as last_sign_in_at,
         exists (select 1 from user_totp m where m.tenant_id = u.tenant_id and m.user_id = u.id and m.confirmed_at is not null) as mfa_enrolled
    from users u`;

type UserBaseRow = Pick<
  UsersRow,
  'id' | 'email' | 'display_name' | 'language' | 'sso_only' | 'created_at' | 'is_active'
> & {
  has_password: boolean;
  last_sign_in_at: Date | null;
  mfa_enrolled: boolean;
};

function statusOf(row: Pick<UserBaseRow, 'is_active' | 'has_password' | 'last_sign_in_at'>): UserStatus {
  if (!row.is_active) return 'disabled';
  return !row.has_password && !row.last_sign_in_at ? 'invited' : 'active';
}

/** The SQL condition of a status (on the columns of USER_FIELDS' `u`). */
const STATUS_SQL: Record<UserStatus, string> = {
  disabled: 'not u.is_active',
  invited: `u.is_active and u.password_hash is null
            and not exists (select 1 from sessions s where s.tenant_id = u.tenant_id and s.user_id = u.id and s.stage = 'active')`,
  active: `u.is_active and (u.password_hash is not null
            or exists (select 1 from sessions s where s.tenant_id = u.tenant_id and s.user_id = u.id and s.stage = 'active'))`,
};

async function withRolesAndScopes(tx: Tx, rows: UserBaseRow[]): Promise<AdminUser[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const roles = await tx.query<UserRole & { user_id: string }>(
    `select ur.user_id::text as user_id, r.id::text as id, r.name, r.is_admin
       from user_roles ur join roles r on r.tenant_id = ur.tenant_id and r.id = ur.role_id
      where ur.user_id = any($1::uuid[]) order by r.name`,
    [ids],
  );
  const scopes = await tx.query<UserDataPermission & { user_id: string }>(
    `select p.user_id::text as user_id, p.field, p.value, n.name
       from user_data_permissions p
       left join hierarchy_nodes n on n.tenant_id = p.tenant_id and n.level = p.field and n.code = p.value
      where p.user_id = any($1::uuid[]) order by p.field, p.value`,
    [ids],
  );
  return rows.map((row) => {
    const own = roles.filter((r) => r.user_id === row.id).map(({ id, name, is_admin }) => ({ id, name, is_admin }));
    return {
      id: row.id,
      email: row.email,
      display_name: row.display_name,
      language: row.language,
      sso_only: row.sso_only,
      created_at: row.created_at,
      status: statusOf(row),
      is_admin: own.some((r) => r.is_admin),
      mfa_enrolled: row.mfa_enrolled,
      last_sign_in_at: row.last_sign_in_at,
      roles: own,
      data_permissions: scopes
        .filter((s) => s.user_id === row.id)
        .map(({ field, value, name }) => ({ field, value, name })),
    };
  });
}

/** One page of the tenant's users, by name then e-mail (offset paging: the page number is in the URL). */
export async function listUsers(tx: Tx, filters: UserListFilters, page = 1): Promise<UserListPage> {
  const where: string[] = [];
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  if (filters.q) {
    const term = `%${filters.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const p = param(term);
    where.push(`(lower(u.display_name) like ${p} or lower(u.email) like ${p})`);
  }
  if (filters.roleId) {
    where.push(
      `exists (select 1 from user_roles ur where ur.tenant_id = u.tenant_id and ur.user_id = u.id and ur.role_id = ${param(filters.roleId)})`,
    );
  }
  if (filters.branch) {
    const p = param(filters.branch);
    where.push(`exists (
      select 1 from user_data_permissions dp
        join hierarchy_nodes b on b.tenant_id = dp.tenant_id and b.level = 'branch' and b.code = ${p}
       where dp.tenant_id = u.tenant_id and dp.user_id = u.id and (
         (dp.field = 'branch' and dp.value = b.code)
         or (dp.field = 'region' and dp.value = (select r.code from hierarchy_nodes r where r.tenant_id = b.tenant_id and r.id = b.parent_id))
         or (dp.field = 'officer' and dp.value in (select o.code from hierarchy_nodes o where o.tenant_id = b.tenant_id and o.parent_id = b.id))))`);
  }
  if (filters.status) where.push(`(${STATUS_SQL[filters.status]})`);
  const condition = where.length ? `where ${where.join(' and ')}` : '';
  const [{ total }] = await tx.query<{ total: number }>(
    `select count(*)::int as total from users u ${condition}`,
    params,
  );
  const pages = Math.max(1, Math.ceil(total / USER_PAGE_SIZE));
  const current = Math.min(Math.max(1, page), pages);
  const rows = await tx.query<UserBaseRow>(
    `${USER_FIELDS} ${condition} order by lower(u.display_name), lower(u.email), u.id limit ${USER_PAGE_SIZE} offset ${(current - 1) * USER_PAGE_SIZE}`,
    params,
  );
  return { items: await withRolesAndScopes(tx, rows), total, page: current, pages, page_size: USER_PAGE_SIZE };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One user of the bound tenant, or null. */
export async function findUser(tx: Tx, userId: string): Promise<AdminUser | null> {
  if (!UUID.test(userId)) return null;
  const rows = await tx.query<UserBaseRow>(`${USER_FIELDS} where u.id = $1`, [userId]);
  const [user] = await withRolesAndScopes(tx, rows);
  return user ?? null;
}

/** One user, or NOT_FOUND worded in the request's language (the page's 404, the API's 404). */
export async function getUser(tx: Tx, userId: string, t: TFunction): Promise<AdminUser> {
  const user = await findUser(tx, userId);
  if (!user) throw new AppError('NOT_FOUND', t('users:errors.notFound'));
  return user;
}

/** The roles a form offers: every role of the tenant, by name. */
export async function listRoleChoices(
  tx: Tx,
): Promise<(Pick<RolesRow, 'name' | 'description' | 'is_admin' | 'authorities'> & { id: string })[]> {
  return tx.query(
    'select id::text as id, name, description, is_admin, authorities from roles order by is_admin desc, name',
  );
}

export type ScopeChoice = { level: HierarchyLevel; code: string; name: string; parent: string | null };

/** The hierarchy nodes a data permission may name, regions first, each level by name. */
export async function listScopeChoices(tx: Tx): Promise<ScopeChoice[]> {
  const rows = await tx.query<
    Pick<HierarchyNodesRow, 'code' | 'name'> & { level: HierarchyLevel; parent: string | null }
  >(
    `select n.level, n.code, n.name, p.name as parent
       from hierarchy_nodes n left join hierarchy_nodes p on p.tenant_id = n.tenant_id and p.id = n.parent_id
      order by n.name, n.code`,
  );
  const order = (level: HierarchyLevel) => HIERARCHY_LEVELS.indexOf(level);
  return rows.sort((a, b) => order(a.level) - order(b.level));
}

/** A user as the audit trail keeps it: no password hash, no token, no secret. */
export function auditView(user: AdminUser): Record<string, unknown> {
  return {
    email: user.email,
    display_name: user.display_name,
    language: user.language,
    status: user.status,
    sso_only: user.sso_only,
    roles: user.roles.map((r) => r.name),
    data_permissions: user.data_permissions.map((p) => `${p.field}:${p.value}`),
    mfa_enrolled: user.mfa_enrolled,
  };
}
