/**
 * The administration of the IP allowlist (/admin/user/ip-restriction, /v1/ip-restrictions): add,
 * edit and delete rules as commands, each audited with before and after. The rules' meaning is in
 * src/lib/tenancy/ip-allowlist.ts. A change that would refuse the administrator's own address (the
 * same client address as the middleware step: X-Forwarded-For only as far as TRUST_PROXY says) is
 * refused and rolled back, with a message naming that address.
 *
 * Two more rules keep the administrators in:
 *  - a writer who is not an administrator may not create, edit or delete a rule that applies (before
 *    or after the change) to everyone, to an administrator role, or to a role an administrator holds
 *    (403): such a rule could shut out every administrator, and only they can judge their own networks;
 *  - every command first takes a per-tenant advisory lock, so two changes never run side by side: two
 *    administrators editing each other's rules at the same moment cannot both pass the self-lockout
 *    check (the second one waits, then checks against what the first one did).
 */
import { z } from 'zod';
import { auditActor, recordAudit } from '../audit/record-audit.ts';
import { need } from '../auth/permissions.ts';
import type { Tx } from '../db/index.ts';
import { AppError, pgCode } from '../errors/app-error.ts';
import { validationError } from '../errors/messages.ts';
import { defineCommand } from '../http/command.ts';
import { getT, languageOf } from '../i18n/index.ts';
import type { Actor } from '../lending/actor.ts';
import {
  addIpRestriction,
  displayIp,
  getIpRestriction,
  isIpAllowed,
  removeIpRestriction,
  updateIpRestriction,
  type IpRestriction,
} from '../tenancy/ip-allowlist.ts';

/** Advisory-lock class of IP rule changes: `pg_advisory_xact_lock(class, hashtext(tenant))`. */
const IP_RULES_LOCK_CLASS = 0x4950;

/** Serialises the tenant's IP rule changes until the transaction ends (see the header). */
export async function lockIpRules(tx: Tx, tenantId: string): Promise<void> {
  await tx.query('select pg_advisory_xact_lock($1, hashtext($2))', [IP_RULES_LOCK_CLASS, tenantId]);
}

export type RoleChoice = { id: string; name: string };

/** The tenant's roles, for the "applies to" choice. */
export async function listRoleChoices(tx: Tx): Promise<RoleChoice[]> {
  return tx.query<RoleChoice>('select id::text as id, name from roles order by name');
}

/** The JSON shape of a rule in /v1. */
export function ipRestrictionJson(rule: IpRestriction) {
  return {
    id: rule.id,
    network: rule.network,
    label: rule.label,
    appliesTo: rule.appliesToAll ? 'everyone' : 'roles',
    roleIds: rule.roles.map((r) => r.id),
    roles: rule.roles,
    createdAt: rule.createdAt,
  };
}

function auditView(rule: IpRestriction | null) {
  return rule
    ? {
        network: rule.network,
        label: rule.label,
        appliesToAll: rule.appliesToAll,
        roleIds: rule.roles.map((r) => r.id),
      }
    : null;
}

async function assertRolesExist(tx: Tx, roleIds: readonly string[]): Promise<void> {
  if (!roleIds.length) return;
  const [row] = await tx.query<{ found: number }>(
    'select count(*)::int as found from roles where id = any($1::uuid[])',
    [roleIds],
  );
  if (row.found !== new Set(roleIds).size) throw validationError('roleIds', 'security.roleUnknown');
}

/** `appliesTo: 'roles'` with no role is a mistake in the form, not a rule for everyone. */
function roleIdsOf(input: { appliesTo?: 'everyone' | 'roles'; roleIds?: string[] }): string[] | undefined {
  if (input.appliesTo === 'everyone') return [];
  if (input.appliesTo === 'roles' && !input.roleIds?.length) throw validationError('roleIds', 'security.rolesRequired');
  return input.roleIds === undefined ? undefined : [...new Set(input.roleIds)];
}

/** Whom a rule applies to: everyone, or the users holding one of these roles (none: nobody). */
type Reach = { everyone: boolean; roleIds: readonly string[] };

const reachOf = (rule: IpRestriction): Reach => ({ everyone: rule.appliesToAll, roleIds: rule.roles.map((r) => r.id) });

/**
 * A writer who is not an administrator touches only rules that cannot reach an administrator: not for
 * everyone, not for an administrator role, not for a role an administrator holds (403 otherwise).
 */
async function assertMayTouch(tx: Tx, actor: Actor, ...reaches: Reach[]): Promise<void> {
  if (actor.isAdmin) return;
  const roleIds = [...new Set(reaches.flatMap((r) => (r.everyone ? [] : r.roleIds)))];
  if (reaches.some((r) => r.everyone) || (await rolesReachAdministrators(tx, roleIds)))
    throw validationError('roleIds', 'security.adminRule', {}, 'FORBIDDEN');
}

/** Whether one of these roles is an administrator role or is held by an administrator. */
export async function rolesReachAdministrators(tx: Tx, roleIds: readonly string[]): Promise<boolean> {
  if (!roleIds.length) return false;
  const [row] = await tx.query<{ admins: boolean }>(
    `select exists (
       select 1 from roles r
        where r.id = any($1::uuid[])
          and (r.is_admin or exists (
            select 1 from user_roles ur join user_roles ua on ua.tenant_id = ur.tenant_id and ua.user_id = ur.user_id
              join roles ra on ra.tenant_id = ua.tenant_id and ra.id = ua.role_id
             where ur.tenant_id = r.tenant_id and ur.role_id = r.id and ra.is_admin))) as admins`,
    [roleIds],
  );
  return row.admins;
}

/** After the change, inside its transaction: the author's own address must still be accepted. */
async function assertAuthorKeepsAccess(tx: Tx, actor: Actor): Promise<void> {
  if (await isIpAllowed(tx, actor.ip ?? null, actor.userId)) return;
  const ip = actor.ip ? displayIp(actor.ip) : 'unknown';
  throw validationError('network', 'security.lockout', { ip }, 'CONFLICT', { ip });
}

function duplicateNetwork(error: unknown): never {
  if (pgCode(error) === '23505') throw validationError('network', 'security.networkTaken', {}, 'ALREADY_EXISTS');
  throw error;
}

const ruleFields = {
  network: z.string().max(100),
  label: z.string().max(200),
  appliesTo: z.enum(['everyone', 'roles']).optional(),
  roleIds: z.array(z.uuid()).max(100).optional(),
};

export const addIpRestrictionCommand = defineCommand({
  action: 'ip_restriction.create',
  objectType: 'ip_restriction',
  permission: need('admin.ip_restriction.edit'),
  input: z.object({ ...ruleFields, label: ruleFields.label.default('') }).strict(),
  run: async (tx, actor, input) => {
    await lockIpRules(tx, actor.tenantId);
    const roleIds = roleIdsOf(input) ?? [];
    await assertRolesExist(tx, roleIds);
    await assertMayTouch(tx, actor, { everyone: roleIds.length === 0, roleIds });
    const rule = await addIpRestriction(tx, {
      tenantId: actor.tenantId,
      network: input.network,
      description: input.label,
      createdBy: actor.kind === 'user' || actor.kind === 'token' ? actor.userId : null,
      roleIds,
    }).catch(duplicateNetwork);
    await assertAuthorKeepsAccess(tx, actor);
    await recordAudit(tx, {
      ...auditActor(actor),
      action: 'ip_restriction.create',
      objectType: 'ip_restriction',
      objectId: rule.id,
      after: auditView(rule),
      outcome: 'success',
    });
    return rule;
  },
});

export const updateIpRestrictionCommand = defineCommand({
  action: 'ip_restriction.update',
  objectType: 'ip_restriction',
  permission: need('admin.ip_restriction.edit'),
  input: z
    .object({
      id: z.string(),
      ...ruleFields,
      network: ruleFields.network.optional(),
      label: ruleFields.label.optional(),
    })
    .strict(),
  run: async (tx, actor, input) => {
    await lockIpRules(tx, actor.tenantId);
    const before = await getIpRestriction(tx, input.id);
    if (!before) throw new AppError('NOT_FOUND', (await getT(languageOf(actor.language)))('security:ip.notFound'));
    const roleIds = roleIdsOf(input);
    if (roleIds) await assertRolesExist(tx, roleIds);
    await assertMayTouch(
      tx,
      actor,
      reachOf(before),
      roleIds === undefined ? reachOf(before) : { everyone: roleIds.length === 0, roleIds },
    );
    const rule = (await updateIpRestriction(tx, {
      tenantId: actor.tenantId,
      id: input.id,
      network: input.network,
      description: input.label,
      roleIds,
    }).catch(duplicateNetwork))!;
    await assertAuthorKeepsAccess(tx, actor);
    await recordAudit(tx, {
      ...auditActor(actor),
      action: 'ip_restriction.update',
      objectType: 'ip_restriction',
      objectId: rule.id,
      before: auditView(before),
      after: auditView(rule),
      outcome: 'success',
    });
    return rule;
  },
});

export const deleteIpRestrictionCommand = defineCommand({
  action: 'ip_restriction.delete',
  objectType: 'ip_restriction',
  permission: need('admin.ip_restriction.edit'),
  input: z.object({ id: z.string() }),
  run: async (tx, actor, input) => {
    await lockIpRules(tx, actor.tenantId);
    const before = await getIpRestriction(tx, input.id);
    if (!before) throw new AppError('NOT_FOUND', (await getT(languageOf(actor.language)))('security:ip.notFound'));
    await assertMayTouch(tx, actor, reachOf(before));
    await removeIpRestriction(tx, input.id);
    await assertAuthorKeepsAccess(tx, actor);
    await recordAudit(tx, {
      ...auditActor(actor),
      action: 'ip_restriction.delete',
      objectType: 'ip_restriction',
      objectId: input.id,
      before: auditView(before),
      outcome: 'success',
    });
    return before;
  },
});
