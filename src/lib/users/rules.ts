/**
 * The two guards of user administration, each in one function that every path (PATCH /v1/users/{id},
 * the edit page's forms, the invitation) calls:
 *
 *  - `assertAdministratorKept`: the tenant always keeps one active administrator. Disabling the last
 *    active administrator, or taking the Administrator role from them, is refused (409); and nobody
 *    disables themselves or removes their own administrator right (409: another administrator must
 *    do it, so no one locks themselves out by mistake). Serialised per tenant by an advisory lock, so
 *    two administrators demoting each other at the same moment cannot both succeed.
 *  - `assertMayGrant`: no escalation. Only an administrator grants the Administrator role or changes
 *    an administrator's account; anyone else may only grant roles whose every permission they hold
 *    themselves, and a user restricted to part of the hierarchy only gives scopes inside their own and only
 *    acts on users whose scope lies inside it, a tenant-wide user never (403).
 */
import {
  allows,
  keyFallbacks,
  need,
  PERMISSION_KEYS,
  type PermissionSubject,
  type RuleKey,
} from '../auth/permissions.ts';
import { loadUserGrants } from '../auth/sessions.ts';
import { scopeNodesFor } from '../auth/data-permissions.ts';
import type { Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import type { TFunction } from 'i18next';
import type { Actor } from '../lending/actor.ts';
import type { RolesRow } from '../db/schema.generated.ts';

/** Advisory-lock class of "who administers this tenant" changes: `pg_advisory_xact_lock(class, hashtext(tenant))`. */
const ADMIN_LOCK_CLASS = 0x5553;

type RoleRef = Pick<RolesRow, 'name' | 'is_admin' | 'authorities'> & { id: string };

/** Loads roles by id in the bound tenant; an id that is not a role of the tenant is a 400 on roleIds. */
export async function loadRoles(tx: Tx, roleIds: readonly string[], t: TFunction): Promise<RoleRef[]> {
  const unique = [...new Set(roleIds)];
  if (unique.length === 0) return [];
  const rows = await tx.query<RoleRef>(
    'select id::text as id, name, is_admin, authorities from roles where id = any($1::uuid[])',
    [unique],
  );
  if (rows.length !== unique.length) {
    throw new AppError('BAD_REQUEST', t('users:errors.unknownRole'), { field: 'roleIds' });
  }
  return rows;
}

/**
 * Refuses a change that would leave the tenant without an active administrator, or that takes the
 * actor's own administrator right or account away. `next` is the target's state after the change.
 */
export async function assertAdministratorKept(
  tx: Tx,
  input: {
    tenantId: string;
    actorId: string;
    targetId: string;
    wasActive: boolean;
    wasAdmin: boolean;
    next: { active: boolean; admin: boolean };
  },
  t: TFunction,
): Promise<void> {
  const self = input.actorId === input.targetId;
  if (self && input.wasActive && !input.next.active) {
    throw new AppError('CONFLICT', t('users:errors.selfDisable'), { field: 'disabled' });
  }
  const losesAdmin = input.wasActive && input.wasAdmin && !(input.next.active && input.next.admin);
  if (!losesAdmin) return;
  if (self) throw new AppError('CONFLICT', t('users:errors.selfAdmin'), { field: 'roleIds' });
  await tx.query('select pg_advisory_xact_lock($1, hashtext($2))', [ADMIN_LOCK_CLASS, input.tenantId]);
  const [{ others }] = await tx.query<{ others: number }>(
    `select count(*)::int as others from users u
      where u.is_active and u.id <> $1 and exists (
        select 1 from user_roles ur join roles r on r.tenant_id = ur.tenant_id and r.id = ur.role_id
         where ur.tenant_id = u.tenant_id and ur.user_id = u.id and r.is_admin)`,
    [input.targetId],
  );
  if (others === 0) {
    throw new AppError('CONFLICT', t('users:errors.lastAdmin'), {
      field: input.next.active ? 'roleIds' : 'disabled',
      details: { reason: 'last_administrator' },
    });
  }
}

/** Takes the lock of assertAdministratorKept (a change that makes someone an administrator waits for one that removes one). */
export async function lockAdministrators(tx: Tx, tenantId: string): Promise<void> {
  await tx.query('select pg_advisory_xact_lock($1, hashtext($2))', [ADMIN_LOCK_CLASS, tenantId]);
}

/** The table keys an authority of a role grants ('loans' → every loans key; an exact key → itself). */
function keysOf(authority: string): string[] {
  const covered = PERMISSION_KEYS.filter((key) => keyFallbacks(key).includes(authority));
  return covered.length ? covered : [authority];
}

/**
 * Refuses escalation: an actor who is not an administrator may not touch an administrator's account,
 * grant the Administrator role, grant a role holding a permission they do not hold, or give a data
 * scope outside their own.
 */
export async function assertMayGrant(
  tx: Tx,
  actor: Actor,
  input: {
    targetIsAdmin: boolean;
    addedRoles: readonly RoleRef[];
    /**
     * The target's data scope after the change (the new one, or the current one when unchanged), as
     * hierarchy node ids; empty = the whole tenant. A scoped actor acts only on users inside their own
     * scope, so a tenant-wide user is out of their reach.
     */
    scopeNodeIds: readonly string[];
  },
  t: TFunction,
): Promise<void> {
  if (actor.isAdmin) return;
  if (input.targetIsAdmin) throw new AppError('FORBIDDEN', t('users:errors.adminTarget'));
  const grants = await loadUserGrants(tx, actor.tenantId, actor.userId);
  const subject: PermissionSubject = { isAdmin: false, authorities: grants?.authorities ?? [] };
  for (const role of input.addedRoles) {
    if (role.is_admin) throw new AppError('FORBIDDEN', t('users:errors.grantAdmin'), { field: 'roleIds' });
    const missing = role.authorities.flatMap(keysOf).find((key) => !allows(subject, need(key as RuleKey)));
    if (missing) {
      throw new AppError('FORBIDDEN', t('users:errors.grantBeyondOwn', { role: role.name, permission: missing }), {
        field: 'roleIds',
      });
    }
  }
  const own = await scopeNodesFor(tx, actor);
  if (own && (input.scopeNodeIds.length === 0 || input.scopeNodeIds.some((id) => !own.includes(id)))) {
    throw new AppError('FORBIDDEN', t('users:errors.scopeBeyondOwn'), { field: 'dataPermissions' });
  }
}

/**
 * A user's current data scope as hierarchy node ids (empty = the whole tenant). A stored permission
 * naming no node counts as '' (inside nobody's scope), so it never widens what a scoped actor may touch.
 */
export async function targetScopeNodes(tx: Tx, userId: string): Promise<string[]> {
  const rows = await tx.query<{ id: string | null }>(
    `select n.id::text as id from user_data_permissions p
       left join hierarchy_nodes n on n.tenant_id = p.tenant_id and n.level = p.field and n.code = p.value
      where p.user_id = $1`,
    [userId],
  );
  return rows.map((r) => r.id ?? '');
}

/**
 * The roles the tenant's single sign-on gives a user who has none at their first SSO sign-in
 * (src/lib/auth/oidc.ts), as loaded roles; ids that are no longer roles are skipped as the sign-in does.
 * Empty when no SSO is configured.
 */
export async function ssoFirstSignInRoles(tx: Tx, config: Record<string, unknown>): Promise<RoleRef[]> {
  const login = config.login as { sso?: Record<string, unknown> | null } | undefined;
  const sso = login?.sso;
  if (!sso || typeof sso.issuer !== 'string' || typeof sso.client_id !== 'string') return [];
  const ids = Array.isArray(sso.roles) ? sso.roles.filter((r): r is string => typeof r === 'string') : [];
  if (ids.length === 0) return [];
  return tx.query<RoleRef>(
    'select id::text as id, name, is_admin, authorities from roles where id::text = any($1::text[])',
    [ids],
  );
}
