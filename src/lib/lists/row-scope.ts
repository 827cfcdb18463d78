import type { Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { resolveScopeNodes, type ScopeSubject } from '../tenancy/scope.ts';
import type { RowScope } from './query.ts';
import type { ScopeParam } from './url-state.ts';
import type { UserDataPermissionsRow } from '../db/schema.generated.ts';

export type { ScopeSubject };

/**
 * The list queries' `rowScope` for a user and the `scope` URL parameter, from B2's hierarchy scope
 * (src/lib/tenancy/scope.ts): data permissions on region / branch / officer codes, expanded down the
 * hierarchy, intersected with the scope node and everything below it. Null = unrestricted; an empty
 * set = no row (fail closed).
 */
export async function resolveRowScope(tx: Tx, subject: ScopeSubject, scope: ScopeParam | null): Promise<RowScope> {
  const nodes = await resolveScopeNodes(tx, subject, scope);
  return nodes === null ? null : [nodes];
}

/** The same subject read from the database, for background jobs that run after the request. */
export async function loadScopeSubject(tx: Tx, userId: string): Promise<ScopeSubject> {
  const [user] = await tx.query<{ is_admin: boolean; is_active: boolean }>(
    `select coalesce((select bool_or(r.is_admin) from user_roles ur join roles r on r.tenant_id = ur.tenant_id and r.id = ur.role_id
                       where ur.tenant_id = u.tenant_id and ur.user_id = u.id), false) as is_admin, u.is_active
       from users u where u.id = $1`,
    [userId],
  );
  // A deleted or disabled user keeps no access, even to a job they queued before.
  if (!user || !user.is_active) throw new AppError('FORBIDDEN', 'This user can no longer see this list.');
  const dataPermissions = await tx.query<Pick<UserDataPermissionsRow, 'field' | 'value'>>(
    'select field, value from user_data_permissions where user_id = $1 order by field, value',
    [userId],
  );
  return { isAdmin: user.is_admin, dataPermissions };
}
