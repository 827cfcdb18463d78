/**
 * The writes of user administration as commands (src/lib/http/command.ts): POST /v1/users and the
 * /add form invite; PATCH /v1/users/{id} and the edit page's forms update, disable and enable; the
 * action endpoints and buttons resend the invitation, reset MFA and end sessions. Every change is
 * audited in its own transaction with before and after (src/lib/users/directory.ts auditView: no
 * secrets). Rules: src/lib/users/rules.ts (last administrator, no escalation); seats: the plan's
 * `users` feature counts active users (invited ones included), taken with consumeUsage.
 */
import { z } from 'zod';
import type { TFunction } from 'i18next';
import { auditActor, recordAudit } from '../audit/record-audit.ts';
import { need } from '../auth/permissions.ts';
import { createInvitationToken, voidPasswordLinks } from '../auth/password-reset.ts';
import { endUserSessions } from '../auth/sessions.ts';
import type { Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { defineCommand, type CommandRequest } from '../http/command.ts';
import { getT } from '../i18n/index.ts';
import type { Actor } from '../lending/actor.ts';
import { consumeUsage } from '../plans/plans.ts';
import { readTenantConfig } from '../tenancy/config.ts';
import { HIERARCHY_LEVELS } from '../tenancy/scope.ts';
import type { Tenant } from '../tenancy/tenant.ts';
import { auditView, getUser, type AdminUser } from './directory.ts';
import { mailInvitation } from './invitation-mail.ts';
import {
  assertAdministratorKept,
  assertMayGrant,
  loadRoles,
  lockAdministrators,
  ssoFirstSignInRoles,
  targetScopeNodes,
} from './rules.ts';
import type { HierarchyNodesRow, TenantsRow } from '../db/schema.generated.ts';

const dataPermissionSchema = z.object({
  field: z.enum(HIERARCHY_LEVELS),
  value: z.string().trim().min(1).max(100),
});

const nameSchema = z.string().trim().min(1).max(200);
const languageSchema = z.string().trim().min(2).max(20);
const roleIdsSchema = z.array(z.uuid()).max(50);
const dataPermissionsSchema = z.array(dataPermissionSchema).max(200);
/** The public origin the links are written with: set by the adapters from the request, never from the body. */
const originSchema = z.string().url();

export const inviteInput = z.object({
  email: z.email().max(254),
  displayName: nameSchema,
  language: languageSchema,
  roleIds: roleIdsSchema,
  dataPermissions: dataPermissionsSchema.default([]),
  ssoOnly: z.boolean().default(false),
  origin: originSchema,
});
export type InviteInput = z.infer<typeof inviteInput>;

export const updateInput = z.object({
  userId: z.string(),
  displayName: nameSchema.optional(),
  language: languageSchema.optional(),
  roleIds: roleIdsSchema.optional(),
  dataPermissions: dataPermissionsSchema.optional(),
  disabled: z.boolean().optional(),
});
export type UpdateInput = z.infer<typeof updateInput>;

const userAction = z.object({ userId: z.string() });
const resendInput = z.object({ userId: z.string(), origin: originSchema });

type TenantRow = Pick<TenantsRow, 'id' | 'slug' | 'name' | 'currency' | 'locale' | 'time_zone'> & {
  config: Record<string, unknown>;
};

async function loadTenant(tx: Tx, tenantId: string): Promise<TenantRow> {
  const [row] = await tx.query<TenantRow>(
    'select id, slug, name, currency, locale, time_zone, config from tenants where id = $1',
    [tenantId],
  );
  if (!row) throw new AppError('NOT_FOUND', 'Tenant not found');
  return row;
}

function configOf(tenant: TenantRow) {
  return readTenantConfig({
    id: tenant.id,
    config: tenant.config,
    currency: tenant.currency.trim(),
    locale: tenant.locale,
    timeZone: tenant.time_zone,
  } as Pick<Tenant, 'id' | 'config' | 'currency' | 'locale' | 'timeZone'>);
}

function assertLanguage(tenant: TenantRow, language: string, t: TFunction): void {
  const options = configOf(tenant).language_options.map((o) => o.value);
  if (!options.includes(language)) {
    throw new AppError('BAD_REQUEST', t('users:errors.language', { options: options.join(', ') }), {
      field: 'language',
    });
  }
}

/** Checks every data permission names a node of its level; returns the node ids (for the actor's scope check). */
async function resolveScopes(
  tx: Tx,
  permissions: readonly { field: string; value: string }[],
  t: TFunction,
): Promise<string[]> {
  const ids: string[] = [];
  for (const p of permissions) {
    const [node] = await tx.query<Pick<HierarchyNodesRow, 'id'>>(
      'select id::text as id from hierarchy_nodes where level = $1 and code = $2',
      [p.field, p.value],
    );
    if (!node) {
      throw new AppError('BAD_REQUEST', t('users:errors.unknownScope', { field: p.field, value: p.value }), {
        field: 'dataPermissions',
      });
    }
    ids.push(node.id);
  }
  return ids;
}

function uniqueScopes(permissions: readonly { field: string; value: string }[]) {
  const seen = new Map(permissions.map((p) => [`${p.field}:${p.value}`, p]));
  return [...seen.values()];
}

async function replaceRoles(tx: Tx, tenantId: string, userId: string, roleIds: readonly string[]) {
  await tx.query('delete from user_roles where tenant_id = $1 and user_id = $2', [tenantId, userId]);
  for (const roleId of new Set(roleIds)) {
    await tx.query('insert into user_roles (tenant_id, user_id, role_id) values ($1, $2, $3)', [
      tenantId,
      userId,
      roleId,
    ]);
  }
}

async function replaceScopes(
  tx: Tx,
  tenantId: string,
  userId: string,
  permissions: readonly { field: string; value: string }[],
) {
  await tx.query('delete from user_data_permissions where tenant_id = $1 and user_id = $2', [tenantId, userId]);
  for (const p of uniqueScopes(permissions)) {
    await tx.query('insert into user_data_permissions (tenant_id, user_id, field, value) values ($1, $2, $3, $4)', [
      tenantId,
      userId,
      p.field,
      p.value,
    ]);
  }
}

/** Takes a seat of the plan's users limit; past it, LIMIT_REACHED (402) worded for the person inviting. */
async function takeSeat(tx: Tx, tenantId: string, t: TFunction): Promise<void> {
  try {
    await consumeUsage(tx, tenantId, 'users');
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'LIMIT_REACHED') throw error;
    const details = error.details ?? {};
    throw new AppError(
      'LIMIT_REACHED',
      t('users:errors.seats', {
        plan: String(details.plan ?? ''),
        limit: String(details.usage_limit ?? ''),
        usage: String(details.usage ?? ''),
      }),
      { details, cause: error },
    );
  }
}

/**
 * A user left with no role gets the tenant's SSO roles at their first single sign-on (src/lib/auth/oidc.ts).
 * A non-administrator who leaves someone roleless must therefore be allowed to give those roles too,
 * or the sign-in would hand out what they could not. Skipped once the user is linked (no first sign-in left).
 */
async function assertMayLeaveRoleless(
  tx: Tx,
  actor: Actor,
  target: { tenant: TenantRow; userId: string | null; scopeNodeIds: readonly string[] },
  t: TFunction,
) {
  if (actor.isAdmin) return;
  const ssoRoles = await ssoFirstSignInRoles(tx, target.tenant.config);
  if (ssoRoles.length === 0) return;
  if (target.userId) {
    const [linked] = await tx.query('select 1 from oidc_links where tenant_id = $1 and user_id = $2 limit 1', [
      actor.tenantId,
      target.userId,
    ]);
    if (linked) return;
  }
  for (const role of ssoRoles) {
    try {
      await assertMayGrant(
        tx,
        actor,
        { targetIsAdmin: false, addedRoles: [role], scopeNodeIds: target.scopeNodeIds },
        t,
      );
    } catch (error) {
      if (error instanceof AppError && error.code === 'FORBIDDEN') {
        throw new AppError('FORBIDDEN', t('users:errors.ssoRolesBeyondOwn', { role: role.name }), {
          field: 'roleIds',
          cause: error,
        });
      }
      throw error;
    }
  }
}

function audit(tx: Tx, actor: Actor, action: string, userId: string, before: unknown, after: unknown) {
  return recordAudit(tx, {
    ...auditActor(actor),
    action,
    objectType: 'user',
    objectId: userId,
    before,
    after,
    outcome: 'success',
  });
}

/** Invites a user: the account (no password), its roles and scopes, a seat, and the e-mail. */
export async function inviteUser(
  tx: Tx,
  actor: Actor,
  input: InviteInput,
  request: CommandRequest,
): Promise<AdminUser> {
  const t = await getT(request.language);
  const tenant = await loadTenant(tx, actor.tenantId);
  const email = input.email.trim();
  assertLanguage(tenant, input.language, t);
  const roles = await loadRoles(tx, input.roleIds, t);
  const scopes = uniqueScopes(input.dataPermissions);
  const nodeIds = await resolveScopes(tx, scopes, t);
  await assertMayGrant(tx, actor, { targetIsAdmin: false, addedRoles: roles, scopeNodeIds: nodeIds }, t);
  if (roles.length === 0) await assertMayLeaveRoleless(tx, actor, { tenant, userId: null, scopeNodeIds: nodeIds }, t);
  if (input.ssoOnly && !configOf(tenant).login.sso) {
    throw new AppError('BAD_REQUEST', t('users:errors.noSso'), { field: 'ssoOnly' });
  }
  const [taken] = await tx.query('select 1 from users where lower(email) = lower($1)', [email]);
  if (taken) throw new AppError('ALREADY_EXISTS', t('users:errors.emailTaken'), { field: 'email' });
  if (roles.some((r) => r.is_admin)) await lockAdministrators(tx, actor.tenantId);
  // The seat: the plan's users limit, counted race-free before the account exists.
  await takeSeat(tx, actor.tenantId, t);
  const [row] = await tx.query<{ id: string }>(
    `insert into users (tenant_id, email, display_name, language, password_hash, sso_only)
     values ($1, $2, $3, $4, null, $5) returning id::text as id`,
    [actor.tenantId, email, input.displayName, input.language, input.ssoOnly],
  );
  await replaceRoles(tx, actor.tenantId, row.id, input.roleIds);
  await replaceScopes(tx, actor.tenantId, row.id, scopes);
  const user = await getUser(tx, row.id, t);
  await audit(tx, actor, 'user.invite', row.id, null, auditView(user));
  const now = new Date();
  const token = input.ssoOnly
    ? null
    : await createInvitationToken(tx, { tenantId: actor.tenantId, userId: row.id, now });
  // Sent last, inside the transaction: an invitation whose e-mail could not go out is not created.
  await mailInvitation({ tenant, user, token, origin: input.origin });
  return user;
}

/** Changes a user's name, language, roles, data permissions and whether the account is enabled. */
export async function updateUser(
  tx: Tx,
  actor: Actor,
  input: UpdateInput,
  request: CommandRequest,
): Promise<AdminUser> {
  const t = await getT(request.language);
  const before = await getUser(tx, input.userId, t);
  const tenant = await loadTenant(tx, actor.tenantId);
  if (input.language !== undefined) assertLanguage(tenant, input.language, t);
  const roles = input.roleIds ? await loadRoles(tx, input.roleIds, t) : null;
  const scopes = input.dataPermissions ? uniqueScopes(input.dataPermissions) : null;
  const nodeIds = scopes ? await resolveScopes(tx, scopes, t) : null;
  const heldRoleIds = new Set(before.roles.map((r) => r.id));
  // The target's scope after the change: a scoped actor is checked against it on every change.
  const scopeNodeIds = nodeIds ?? (await targetScopeNodes(tx, before.id));
  await assertMayGrant(
    tx,
    actor,
    {
      targetIsAdmin: before.is_admin,
      addedRoles: (roles ?? []).filter((r) => !heldRoleIds.has(r.id)),
      scopeNodeIds,
    },
    t,
  );
  if (roles?.length === 0) await assertMayLeaveRoleless(tx, actor, { tenant, userId: before.id, scopeNodeIds }, t);
  const wasActive = before.status !== 'disabled';
  const nextActive = input.disabled === undefined ? wasActive : !input.disabled;
  const nextAdmin = roles ? roles.some((r) => r.is_admin) : before.is_admin;
  await assertAdministratorKept(
    tx,
    {
      tenantId: actor.tenantId,
      actorId: actor.userId,
      targetId: before.id,
      wasActive,
      wasAdmin: before.is_admin,
      next: { active: nextActive, admin: nextAdmin },
    },
    t,
  );
  if (nextAdmin && !before.is_admin) await lockAdministrators(tx, actor.tenantId);
  const now = new Date();
  if (!wasActive && nextActive) await takeSeat(tx, actor.tenantId, t);
  const sets: string[] = [];
  const params: unknown[] = [actor.tenantId, before.id];
  const set = (column: string, value: unknown) => {
    params.push(value);
    sets.push(`${column} = $${params.length}`);
  };
  if (input.displayName !== undefined) set('display_name', input.displayName);
  if (input.language !== undefined) set('language', input.language);
  if (nextActive !== wasActive) set('is_active', nextActive);
  if (sets.length) {
    set('updated_at', now);
    await tx.query(`update users set ${sets.join(', ')} where tenant_id = $1 and id = $2`, params);
  }
  if (input.roleIds) await replaceRoles(tx, actor.tenantId, before.id, input.roleIds);
  if (scopes) await replaceScopes(tx, actor.tenantId, before.id, scopes);
  if (wasActive && !nextActive) {
    // The session check and the API token check refuse an inactive user on every request; ending
    // the sessions and voiding open links as well leaves nothing to come back to after re-enabling.
    await endUserSessions(tx, { tenantId: actor.tenantId, userId: before.id, now, reason: 'user_disabled' });
    await voidPasswordLinks(tx, { tenantId: actor.tenantId, userId: before.id, now });
  }
  const after = await getUser(tx, before.id, t);
  const action = nextActive === wasActive ? 'user.update' : nextActive ? 'user.enable' : 'user.disable';
  await audit(tx, actor, action, before.id, auditView(before), auditView(after));
  return after;
}

/** The account actions (resend, MFA reset, end sessions) follow the no-escalation rule: never an administrator's account for a non-administrator, never a user outside a scoped actor's scope. */
async function assertMayAct(tx: Tx, actor: Actor, user: AdminUser, t: TFunction): Promise<void> {
  await assertMayGrant(
    tx,
    actor,
    { targetIsAdmin: user.is_admin, addedRoles: [], scopeNodeIds: await targetScopeNodes(tx, user.id) },
    t,
  );
}

/** Sends the invitation again with a new link; the previous link stops working. */
export async function resendInvitation(
  tx: Tx,
  actor: Actor,
  input: z.infer<typeof resendInput>,
  request: CommandRequest,
): Promise<AdminUser> {
  const t = await getT(request.language);
  const user = await getUser(tx, input.userId, t);
  await assertMayAct(tx, actor, user, t);
  if (user.status !== 'invited') {
    throw new AppError('CONFLICT', t('users:errors.notInvited'), { details: { status: user.status } });
  }
  const tenant = await loadTenant(tx, actor.tenantId);
  const token = user.sso_only
    ? null
    : await createInvitationToken(tx, { tenantId: actor.tenantId, userId: user.id, now: new Date() });
  await audit(tx, actor, 'user.resend_invitation', user.id, null, { email: user.email, sso_only: user.sso_only });
  await mailInvitation({ tenant, user, token, origin: input.origin });
  return user;
}

/** Deletes the user's authenticator enrolment: they enrol again at their next visit to /user/mfa. */
export async function resetMfa(
  tx: Tx,
  actor: Actor,
  input: { userId: string },
  request: CommandRequest,
): Promise<AdminUser> {
  const t = await getT(request.language);
  const before = await getUser(tx, input.userId, t);
  await assertMayAct(tx, actor, before, t);
  await tx.query('delete from user_totp where tenant_id = $1 and user_id = $2', [actor.tenantId, before.id]);
  await audit(tx, actor, 'user.reset_mfa', before.id, { mfa_enrolled: before.mfa_enrolled }, { mfa_enrolled: false });
  return getUser(tx, before.id, t);
}

/** Ends every session of the user at once; their next request is refused. */
export async function endSessionsOf(
  tx: Tx,
  actor: Actor,
  input: { userId: string },
  request: CommandRequest,
): Promise<{ user: AdminUser; ended: number }> {
  const t = await getT(request.language);
  const user = await getUser(tx, input.userId, t);
  await assertMayAct(tx, actor, user, t);
  const ended = await endUserSessions(tx, {
    tenantId: actor.tenantId,
    userId: user.id,
    now: new Date(),
    reason: `ended_by_admin:${actor.userId}`,
  });
  await audit(tx, actor, 'user.end_sessions', user.id, null, { ended });
  return { user, ended };
}

export const inviteUserCommand = defineCommand({
  action: 'user.invite',
  objectType: 'user',
  permission: need('admin.users.edit'),
  input: inviteInput,
  run: inviteUser,
});

export const updateUserCommand = defineCommand({
  action: 'user.update',
  objectType: 'user',
  permission: need('admin.users.edit'),
  input: updateInput,
  run: updateUser,
});

export const resendInvitationCommand = defineCommand({
  action: 'user.resend_invitation',
  objectType: 'user',
  permission: need('admin.users.edit'),
  input: resendInput,
  run: resendInvitation,
});

export const resetMfaCommand = defineCommand({
  action: 'user.reset_mfa',
  objectType: 'user',
  permission: need('admin.users.edit'),
  input: userAction,
  run: resetMfa,
});

export const endSessionsCommand = defineCommand({
  action: 'user.end_sessions',
  objectType: 'user',
  permission: need('admin.users.edit'),
  input: userAction,
  run: endSessionsOf,
});
