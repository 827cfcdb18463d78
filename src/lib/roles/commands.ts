import { z } from 'zod';
import type { Tx } from '../db/index.ts';
import { auditActor, recordAudit } from '../audit/record-audit.ts';
import { need } from '../auth/permissions.ts';
import { loadUserGrants } from '../auth/sessions.ts';
import { AppError } from '../errors/app-error.ts';
import { defineCommand } from '../http/command.ts';
import { getT, type Language } from '../i18n/index.ts';
import type { Actor } from '../lending/actor.ts';
import { grantLevel, grantsBeyond, normaliseGrants } from './grants.ts';
import { findRole, roleNamed, type RoleView } from './roles.ts';
import { lockIpRules, rolesReachAdministrators } from '../security-admin/ip-restrictions.ts';

/**
 * Creating, changing and deleting roles, as commands (src/lib/http/command.ts) that /v1/roles and the
 * role pages' forms both run. The rules, each refused with words for people in the writer's language:
 *  1. permissions are grants the table knows (keys, whole resources, whole areas; ./grants.ts);
 *  2. names are unique per tenant whatever their case;
 *  3. the Administrator role is nobody's to change or delete;
 *  4. nobody gives what they do not hold: a writer who is not an administrator may add to a role only
 *     grants they hold themselves, and may move a deleted role's users only to such a role;
 *  5. a role that users hold is deleted only once the writer says which role those users move to;
 *  6. deleting a role lifts no restriction: the IP rules and the password policy's MFA requirement
 *     that name it go with its users to the role they move to (a writer who is not an administrator
 *     may not carry an IP rule to a role an administrator holds); a role nobody holds is deleted
 *     while they name it only by an administrator (the rows then simply go).
 * The session re-reads its user's roles on every request (src/lib/auth/sessions.ts), so a change here
 * applies to the role's users on their next request. Every change is audited with before and after.
 */

const nameField = z.string().trim().min(1).max(80);
const descriptionField = z.string().trim().max(500);
const permissionsField = z.array(z.string().max(200)).max(1000);

export const createRoleInput = z
  .object({ name: nameField, description: descriptionField.default(''), permissions: permissionsField })
  .strict();
export const updateRoleInput = z
  .object({
    roleId: z.string(),
    name: nameField.optional(),
    description: descriptionField.optional(),
    permissions: permissionsField.optional(),
  })
  .strict();
export const deleteRoleInput = z
  .object({ roleId: z.string(), reassignTo: z.string().trim().min(1).nullish() })
  .strict();

type Snapshot = { name: string; description: string; permissions: string[] };
const snapshot = (role: Pick<RoleView, 'name' | 'description' | 'permissions'>): Snapshot => ({
  name: role.name,
  description: role.description,
  permissions: role.permissions,
});

async function words(language: Language) {
  return getT(language);
}

/** Rule 1: every grant known, then stored once each, in table order. */
async function checkedGrants(permissions: readonly string[], language: Language): Promise<string[]> {
  const trimmed = permissions.map((p) => p.trim()).filter(Boolean);
  const unknown = trimmed.find((p) => grantLevel(p) === null);
  if (unknown !== undefined) {
    const t = await words(language);
    throw new AppError('BAD_REQUEST', t('roles:errors.unknownKey', { key: unknown }), {
      field: 'permissions',
      details: { key: unknown },
    });
  }
  return normaliseGrants(trimmed);
}

/** Rule 2. */
async function checkName(tx: Tx, name: string, language: Language, exceptId?: string): Promise<void> {
  const taken = await roleNamed(tx, name, exceptId);
  if (taken) {
    const t = await words(language);
    throw new AppError('ALREADY_EXISTS', t('roles:errors.nameTaken', { name: taken.name }), { field: 'name' });
  }
}

/** Rule 4: the writer's own grants, read in this transaction (what the session will read next). */
async function checkGrantable(tx: Tx, actor: Actor, grants: readonly string[], language: Language): Promise<void> {
  if (grants.length === 0 || actor.isAdmin) return;
  const own = await loadUserGrants(tx, actor.tenantId, actor.userId);
  const beyond = grantsBeyond({ isAdmin: own?.is_admin ?? false, authorities: own?.authorities ?? [] }, grants);
  if (beyond.length > 0) {
    const t = await words(language);
    throw new AppError('FORBIDDEN', t('roles:errors.escalation', { keys: beyond.join(', ') }), {
      field: 'permissions',
      details: { keys: beyond },
    });
  }
}

async function loadRole(tx: Tx, roleId: string, language: Language): Promise<RoleView> {
  const role = await findRole(tx, roleId, { lock: true });
  if (!role) {
    const t = await words(language);
    throw new AppError('NOT_FOUND', t('roles:errors.notFound'));
  }
  return role;
}

/** Rule 3. */
async function refuseAdminRole(role: RoleView, what: 'edit' | 'delete', language: Language): Promise<void> {
  if (!role.isAdmin) return;
  const t = await words(language);
  throw new AppError('FORBIDDEN', t(what === 'edit' ? 'roles:errors.adminLocked' : 'roles:errors.adminUndeletable'));
}

function audit(
  tx: Tx,
  actor: Actor,
  action: string,
  roleId: string,
  change: { before?: unknown; after?: unknown },
): Promise<string> {
  return recordAudit(tx, {
    ...auditActor(actor),
    action,
    objectType: 'role',
    objectId: roleId,
    outcome: 'success',
    ...change,
  });
}

export const createRoleCommand = defineCommand({
  action: 'role.create',
  objectType: 'role',
  permission: need('admin.roles.edit'),
  input: createRoleInput,
  run: async (tx, actor, input, { language }): Promise<RoleView> => {
    const grants = await checkedGrants(input.permissions, language);
    await checkName(tx, input.name, language);
    await checkGrantable(tx, actor, grants, language);
    const [row] = await tx.query<{ id: string }>(
      `insert into roles (tenant_id, name, description, is_admin, authorities)
       values ($1, $2, $3, false, $4) returning id`,
      [actor.tenantId, input.name, input.description, grants],
    );
    const role = (await findRole(tx, row.id))!;
    await audit(tx, actor, 'role.create', role.id, { after: snapshot(role) });
    return role;
  },
});

export const updateRoleCommand = defineCommand({
  action: 'role.update',
  objectType: 'role',
  permission: need('admin.roles.edit'),
  input: updateRoleInput,
  run: async (tx, actor, input, { language }): Promise<RoleView> => {
    const before = await loadRole(tx, input.roleId, language);
    await refuseAdminRole(before, 'edit', language);
    const grants = input.permissions ? await checkedGrants(input.permissions, language) : before.permissions;
    const name = input.name ?? before.name;
    if (name.toLowerCase() !== before.name.toLowerCase()) await checkName(tx, name, language, before.id);
    // Only what the change adds needs to be the writer's: trimming a role is always allowed.
    const held = new Set(before.permissions);
    await checkGrantable(
      tx,
      actor,
      grants.filter((g) => !held.has(g)),
      language,
    );
    await tx.query(`update roles set name = $2, description = $3, authorities = $4 where id = $1`, [
      before.id,
      name,
      input.description ?? before.description,
      grants,
    ]);
    const after = (await findRole(tx, before.id))!;
    await audit(tx, actor, 'role.update', before.id, { before: snapshot(before), after: snapshot(after) });
    return after;
  },
});

/** What restricts a role's users: the IP rules naming it, and whether the MFA policy names it. */
type Restrictions = { ipRestrictions: { id: string; network: string }[]; mfaRequired: boolean };

async function restrictionsOf(tx: Tx, roleId: string): Promise<Restrictions> {
  const ipRestrictions = await tx.query<{ id: string; network: string }>(
    `select r.id::text as id, r.network::text as network
       from ip_restriction_roles rr join ip_restrictions r on r.tenant_id = rr.tenant_id and r.id = rr.restriction_id
      where rr.role_id = $1 order by r.network`,
    [roleId],
  );
  const [mfa] = await tx.query<{ named: boolean }>(
    'select exists (select 1 from password_policy_mfa_roles where role_id = $1) as named',
    [roleId],
  );
  return { ipRestrictions, mfaRequired: mfa.named };
}

/** Rule 6, with users moving to `target`: the deleted role's IP rules and MFA requirement now name the target too. */
async function carryRestrictions(
  tx: Tx,
  actor: Actor,
  role: RoleView,
  target: RoleView,
  restrictions: Restrictions,
  language: Language,
): Promise<void> {
  if (restrictions.ipRestrictions.length) {
    if (!actor.isAdmin && (await rolesReachAdministrators(tx, [target.id]))) {
      const t = await words(language);
      throw new AppError(
        'FORBIDDEN',
        t('roles:errors.carryToAdmin', {
          networks: restrictions.ipRestrictions.map((r) => r.network).join(', '),
          role: target.name,
        }),
        { field: 'reassignTo' },
      );
    }
    await tx.query(
      `insert into ip_restriction_roles (tenant_id, restriction_id, role_id)
       select tenant_id, restriction_id, $2 from ip_restriction_roles where role_id = $1
       on conflict do nothing`,
      [role.id, target.id],
    );
  }
  if (restrictions.mfaRequired)
    await tx.query(
      `insert into password_policy_mfa_roles (tenant_id, role_id)
       select tenant_id, $2 from password_policy_mfa_roles where role_id = $1
       on conflict do nothing`,
      [role.id, target.id],
    );
}

/** Rule 6, nobody moving: only an administrator deletes a role an IP rule or the MFA policy still names. */
async function refuseLiftingRestrictions(actor: Actor, restrictions: Restrictions, language: Language): Promise<void> {
  if (actor.isAdmin || (!restrictions.ipRestrictions.length && !restrictions.mfaRequired)) return;
  const t = await words(language);
  const names = [
    ...(restrictions.ipRestrictions.length
      ? [t('roles:errors.namedByIpRules', { networks: restrictions.ipRestrictions.map((r) => r.network).join(', ') })]
      : []),
    ...(restrictions.mfaRequired ? [t('roles:errors.namedByMfa')] : []),
  ];
  const what = new Intl.ListFormat(language, { type: 'conjunction' }).format(names);
  throw new AppError('CONFLICT', t('roles:errors.stillRestricting', { what }), {
    details: {
      ipRestrictions: restrictions.ipRestrictions.map((r) => r.id),
      mfaRequired: restrictions.mfaRequired,
    },
  });
}

export type DeletedRole = { id: string; name: string; reassignedTo: string | null; movedUsers: number };

export const deleteRoleCommand = defineCommand({
  action: 'role.delete',
  objectType: 'role',
  permission: need('admin.roles.edit'),
  input: deleteRoleInput,
  run: async (tx, actor, input, { language }): Promise<DeletedRole> => {
    const role = await loadRole(tx, input.roleId, language);
    await refuseAdminRole(role, 'delete', language);
    // The IP rules' lock: no rule change runs between what is read here and the delete.
    await lockIpRules(tx, actor.tenantId);
    const restrictions = await restrictionsOf(tx, role.id);
    let target: RoleView | null = null;
    if (role.userCount > 0) {
      const t = await words(language);
      // Rule 5: the users do not silently lose their access; the writer says where they go.
      if (!input.reassignTo)
        throw new AppError('CONFLICT', t('roles:errors.inUse', { count: role.userCount }), {
          field: 'reassignTo',
          details: { userCount: role.userCount },
        });
      target = input.reassignTo === role.id ? null : await findRole(tx, input.reassignTo);
      if (!target) throw new AppError('BAD_REQUEST', t('roles:errors.badReassign'), { field: 'reassignTo' });
      // Rule 4 again: moving people to a role gives them its grants.
      if (target.isAdmin && !actor.isAdmin)
        throw new AppError('FORBIDDEN', t('roles:errors.escalation', { keys: t('roles:admin.badge') }), {
          field: 'reassignTo',
        });
      await checkGrantable(tx, actor, target.permissions, language);
      await tx.query(
        `insert into user_roles (tenant_id, user_id, role_id)
         select tenant_id, user_id, $2 from user_roles where role_id = $1
         on conflict do nothing`,
        [role.id, target.id],
      );
      await carryRestrictions(tx, actor, role, target, restrictions, language);
    } else {
      await refuseLiftingRestrictions(actor, restrictions, language);
    }
    // user_roles, ip_restriction_roles and password_policy_mfa_roles rows of the role go with it (on delete cascade).
    await tx.query('delete from roles where id = $1', [role.id]);
    const result: DeletedRole = {
      id: role.id,
      name: role.name,
      reassignedTo: target?.id ?? null,
      movedUsers: target ? role.userCount : 0,
    };
    await audit(tx, actor, 'role.delete', role.id, {
      before: { ...snapshot(role), userCount: role.userCount },
      after: {
        deleted: true,
        reassignedTo: target ? { id: target.id, name: target.name } : null,
        // The restrictions that named the role: carried over to the target, or lifted (an administrator, nobody moving).
        ...(restrictions.ipRestrictions.length || restrictions.mfaRequired
          ? { [target ? 'carriedOver' : 'lifted']: restrictions }
          : {}),
      },
    });
    return result;
  },
});
