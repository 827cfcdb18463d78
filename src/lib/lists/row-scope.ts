import type { Tx } from '../db/index.ts';
import type { RowScope } from './query.ts';
import type { ScopeParam } from './url-state.ts';

/**
 * Which hierarchy nodes a user's rows may hang from, for the list queries' `rowScope`.
 *
 * - Data permissions (spec §3, `user_data_permissions`) on the hierarchy fields `region`, `branch`
 *   and `officer` name node codes; together they form one allowed set (a user allowed branch A and
 *   region R sees both). An admin, or a user with no hierarchy permission, is not restricted.
 * - The `scope` URL parameter (the hierarchy filter, `level:id`) narrows further to one node: it is
 *   a second set, so it can only ever narrow what the permissions allow, never widen it.
 * Permissions on other fields do not restrict by hierarchy. A permission naming a code that does
 * not exist allows nothing (an empty set), never everything.
 */
const HIERARCHY_FIELDS = ['region', 'branch', 'officer'] as const;

export type ScopeSubject = {
  isAdmin: boolean;
  dataPermissions: readonly { field: string; value: string }[];
};

export async function resolveRowScope(tx: Tx, subject: ScopeSubject, scope: ScopeParam | null): Promise<RowScope> {
  const sets: string[][] = [];
  const hierarchy = subject.isAdmin
    ? []
    : subject.dataPermissions.filter((p) => (HIERARCHY_FIELDS as readonly string[]).includes(p.field));
  if (hierarchy.length) {
    const rows = await tx.query<{ id: string }>(
      `select n.id::text as id from hierarchy_nodes n
        join unnest($1::text[], $2::text[]) as p(level, code) on n.level = p.level and n.code = p.code`,
      [hierarchy.map((p) => p.field), hierarchy.map((p) => p.value)],
    );
    sets.push(rows.map((r) => r.id));
  }
  if (scope) sets.push([scope.id]);
  return sets.length ? sets : null;
}

/** The same subject read from the database, for background jobs that run after the request. */
export async function loadScopeSubject(tx: Tx, userId: string): Promise<ScopeSubject> {
  const [user] = await tx.query<{ is_admin: boolean; is_active: boolean }>(
    `select coalesce((select bool_or(r.is_admin) from user_roles ur join roles r on r.tenant_id = ur.tenant_id and r.id = ur.role_id
                       where ur.tenant_id = u.tenant_id and ur.user_id = u.id), false) as is_admin, u.is_active
       from users u where u.id = $1`,
    [userId],
  );
  // A deleted or disabled user keeps no access: an empty allowed set matches no row.
  if (!user || !user.is_active) return { isAdmin: false, dataPermissions: [{ field: 'branch', value: '\u0000none' }] };
  const dataPermissions = await tx.query<{ field: string; value: string }>(
    'select field, value from user_data_permissions where user_id = $1 order by field, value',
    [userId],
  );
  return { isAdmin: user.is_admin, dataPermissions };
}
