// User administration (issue 11, /admin/user/users and /v1/users) on PGlite and Postgres: invitations
// through the reset-token machinery (purpose, 7 days, resend voids the old link, the tenant's password
// policy), seats against the plan's users limit, the one-active-administrator rule on every path, no
// escalation, disabling (sessions and API tokens stop at once), MFA reset, end sessions, the list's
// filters and paging, the audit trail, and the /v1 endpoints with their routes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiToken, createApiToken } from '#lib/auth/api-tokens.ts';
import { completePasswordReset, createPasswordResets, hashToken, resetLinkInfo } from '#lib/auth/password-reset.ts';
import type { Principal } from '#lib/auth/principal.ts';
import { matchApiRoute } from '#lib/auth/route-manifest.ts';
import { checkSession, createSession } from '#lib/auth/sessions.ts';
import { setDb, type Db } from '#lib/db/index.ts';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import { runCommand, type Command } from '#lib/http/command.ts';
import { actorFromPrincipal } from '#lib/lending/actor.ts';
import { DEMO_PLANS, setTenantPlan } from '#lib/plans/plans.ts';
import {
  endSessionsCommand,
  inviteUserCommand,
  resendInvitationCommand,
  resetMfaCommand,
  updateUser,
  updateUserCommand,
} from '#lib/users/commands.ts';
import { listUsers } from '#lib/users/directory.ts';
import { A, ids, principal, seedAccessFixtures } from './access-fixtures.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'admin-users-'));
process.env.DATA_DIR = dataDir;
const outbox = path.join(dataDir, 'outbox');
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const ORIGIN = 'http://app.test';
const STRONG = 'Quartz-Heron-Lantern-58!';
const a = ids(1);
const adminA = principal(A, a.admin, 'administrator');

/** The newest outbox message to `to`, decoded (quoted-printable soft breaks and escapes). */
function lastMailTo(to: string): string | undefined {
  if (!fs.existsSync(outbox)) return undefined;
  const texts = fs
    .readdirSync(outbox)
    .sort()
    .map((f) => fs.readFileSync(path.join(outbox, f), 'utf8'))
    .filter((text) => new RegExp(`^To: ${to.replace(/[.+]/g, '\\$&')}`, 'mi').test(text));
  return texts
    .at(-1)
    ?.replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
const tokenIn = (mail: string | undefined) => /token=([A-Za-z0-9_-]+)/.exec(mail ?? '')?.[1];

describe.each(testDbKinds())('user administration on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let roles: Record<'admin' | 'officer' | 'analyst' | 'viewer', string>;

  const run = <I, O>(who: Principal, command: Command<I, O>, input: unknown) =>
    runCommand(
      { db, actor: actorFromPrincipal(who, { requestId: 'test' }), permissionSubject: who, language: 'en' },
      command,
      () => input,
    );
  const invite = (who: Principal, over: Record<string, unknown> = {}) =>
    run(who, inviteUserCommand, {
      email: `new-${Math.random().toString(36).slice(2, 8)}@alpha.test`,
      displayName: 'New Person',
      language: 'fr-FR',
      roleIds: [roles.officer],
      dataPermissions: [{ field: 'branch', value: 'A-B1' }],
      origin: ORIGIN,
      ...over,
    });
  const sql = <T>(text: string, params: unknown[] = []) => db.tenant(A, (tx) => tx.query<T>(text, params));

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    await seedAccessFixtures(db);
    await db.tenant(A, (tx) => setTenantPlan(tx, A, DEMO_PLANS.growth));
    const rows = await sql<{ id: string; name: string }>('select id::text as id, name from roles');
    const id = (name: string) => rows.find((r) => r.name === name)!.id;
    const [viewer] = await sql<{ id: string }>(
      `insert into roles (tenant_id, name, authorities) values ($1, 'Customer viewer', array['loans.customers.view']) returning id::text as id`,
      [A],
    );
    roles = {
      admin: id('A Administrator'),
      officer: id('A Loan officer'),
      analyst: id('A Analyst'),
      viewer: viewer.id,
    };
    setDb(db);
  });
  afterAll(() => drop?.());

  it('invites: no password, a seat, roles and scope, an audited row without secrets, and a mail whose link sets the first password', async () => {
    const user = await invite(adminA, { email: 'Invitee@Alpha.test', displayName: 'Ines Invitee' });
    expect(user).toMatchObject({
      email: 'Invitee@Alpha.test',
      status: 'invited',
      language: 'fr-FR',
      roles: [{ id: roles.officer, name: 'A Loan officer', is_admin: false }],
      data_permissions: [{ field: 'branch', value: 'A-B1', name: 'A Branch 1' }],
      last_sign_in_at: null,
    });
    const [row] = await sql<{ password_hash: string | null; is_active: boolean }>(
      'select password_hash, is_active from users where id = $1',
      [user.id],
    );
    expect(row).toEqual({ password_hash: null, is_active: true });
    const [token] = await sql<{ purpose: string; days: number }>(
      `select purpose, round(extract(epoch from expires_at - created_at) / 86400)::int as days from password_reset_tokens where user_id = $1`,
      [user.id],
    );
    expect(token).toEqual({ purpose: 'invitation', days: 7 });
    const [audit] = await sql<{ action: string; after: Record<string, unknown>; before: unknown }>(
      `select action, after, before from audit_log where object_id = $1 and action = 'user.invite'`,
      [user.id],
    );
    expect(audit.after).toMatchObject({
      email: 'Invitee@Alpha.test',
      roles: ['A Loan officer'],
      data_permissions: ['branch:A-B1'],
    });
    expect(JSON.stringify(audit)).not.toMatch(/password_hash|token/);
    // The mail is in the invitee's language, names the lender, and carries the link.
    const mail = lastMailTo('Invitee@Alpha.test');
    expect(mail).toContain('Alpha Lending');
    expect(mail).toContain(`${ORIGIN}/user/reset-password?tenant=${A}&token=`);
    expect(mail).toMatch(/Bonjour Ines Invitee/);
    const link = tokenIn(mail)!;
    expect(await resetLinkInfo(db, { tenantId: A, token: link, now: new Date() })).toEqual({
      purpose: 'invitation',
      displayName: 'Ines Invitee',
    });
    // The tenant's password policy applies to the first password.
    await expect(
      completePasswordReset(db, { tenantId: A, token: link, password: 'short', now: new Date() }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await completePasswordReset(db, { tenantId: A, token: link, password: STRONG, now: new Date() });
    const [after] = await sql<{ has: boolean }>('select password_hash is not null as has from users where id = $1', [
      user.id,
    ]);
    expect(after.has).toBe(true);
    const [listed] = (await db.tenant(A, (tx) => listUsers(tx, { q: 'invitee' }))).items;
    expect(listed.status).toBe('active');
    await expect(
      completePasswordReset(db, { tenantId: A, token: link, password: STRONG, now: new Date() }),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
  });

  it('refuses a duplicate e-mail (409 on email), an unknown role, a language the tenant does not offer and a scope outside the hierarchy', async () => {
    await expect(invite(adminA, { email: 'OFFICER@a.test' })).rejects.toMatchObject({
      code: 'ALREADY_EXISTS',
      status: 409,
      field: 'email',
    });
    await expect(invite(adminA, { roleIds: ['00000000-0000-4000-8000-000000000999'] })).rejects.toMatchObject({
      status: 400,
      field: 'roleIds',
    });
    await expect(invite(adminA, { language: 'de-DE' })).rejects.toMatchObject({ status: 400, field: 'language' });
    await expect(invite(adminA, { dataPermissions: [{ field: 'branch', value: 'NOPE' }] })).rejects.toMatchObject({
      status: 400,
      field: 'dataPermissions',
    });
    await expect(invite(adminA, { dataPermissions: [{ field: 'region', value: 'A-B1' }] })).rejects.toMatchObject({
      status: 400,
      field: 'dataPermissions',
    });
    await expect(invite(adminA, { ssoOnly: true })).rejects.toMatchObject({ status: 400, field: 'ssoOnly' });
    await expect(invite(adminA, { email: 'not-an-email' })).rejects.toBeTruthy();
  });

  it('resending an invitation voids the previous link; a user who accepted cannot be re-invited', async () => {
    const user = await invite(adminA, { email: 'resend@alpha.test' });
    const first = tokenIn(lastMailTo('resend@alpha.test'))!;
    await run(adminA, resendInvitationCommand, { userId: user.id, origin: ORIGIN });
    const second = tokenIn(lastMailTo('resend@alpha.test'))!;
    expect(second).not.toBe(first);
    expect(await resetLinkInfo(db, { tenantId: A, token: first, now: new Date() })).toBeNull();
    expect(await resetLinkInfo(db, { tenantId: A, token: second, now: new Date() })).not.toBeNull();
    await completePasswordReset(db, { tenantId: A, token: second, password: STRONG, now: new Date() });
    await expect(run(adminA, resendInvitationCommand, { userId: user.id, origin: ORIGIN })).rejects.toMatchObject({
      status: 409,
    });
  });

  it('SSO-only invitees get a notice without a password link', async () => {
    const sso = { login: { password: true, sso: { issuer: 'https://idp.example.com', client_id: 'x' } } };
    await db.owner((tx) =>
      tx.query(`update tenants set config = config || $1::jsonb where id = $2`, [JSON.stringify(sso), A]),
    );
    const user = await invite(adminA, { email: 'sso@alpha.test', ssoOnly: true });
    expect(user.sso_only).toBe(true);
    const mail = lastMailTo('sso@alpha.test')!;
    expect(mail).not.toContain('token=');
    expect(mail).toContain(`${ORIGIN}/user/login?tenant=alpha`);
    // Nor can they ask for one on the reset form.
    expect(await createPasswordResets(db, { email: 'sso@alpha.test', now: new Date(), ip: '192.0.2.7' })).toEqual([]);
    const tokens = await sql('select 1 from password_reset_tokens where user_id = $1', [user.id]);
    expect(tokens).toHaveLength(0);
    await db.owner((tx) => tx.query(`update tenants set config = config - 'login' where id = $1`, [A]));
  });

  it('counts seats: past the plan limit the invitation is refused (402); disabling frees a seat, enabling takes one', async () => {
    const [{ active }] = await sql<{ active: number }>('select count(*)::int as active from users where is_active');
    await db.tenant(A, (tx) =>
      setTenantPlan(
        tx,
        A,
        DEMO_PLANS.growth.map((f) =>
          f.feature === 'users' ? { ...f, plans: [{ ...f.plans[0], usageLimit: active }] } : f,
        ),
      ),
    );
    const refused = await invite(adminA, { email: 'one-too-many@alpha.test' }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'LIMIT_REACHED', status: 402, details: { feature: 'users', usage: active } });
    expect((refused as Error).message).toMatch(/Growth plan allows \d+ users/);
    const french = await runCommand(
      { db, actor: actorFromPrincipal(adminA), permissionSubject: adminA, language: 'fr' },
      inviteUserCommand,
      () => ({ email: 'encore@alpha.test', displayName: 'Encore', language: 'fr-FR', roleIds: [], origin: ORIGIN }),
    ).catch((e: unknown) => e);
    expect((french as Error).message).toMatch(/^Votre offre Growth permet \d+ utilisateurs/);
    expect(await sql('select 1 from users where email = $1', ['one-too-many@alpha.test'])).toHaveLength(0);
    await run(adminA, updateUserCommand, { userId: a.analyst, disabled: true });
    const invited = await invite(adminA, { email: 'seat-freed@alpha.test' });
    await expect(run(adminA, updateUserCommand, { userId: a.analyst, disabled: false })).rejects.toMatchObject({
      code: 'LIMIT_REACHED',
    });
    await run(adminA, updateUserCommand, { userId: invited.id, disabled: true });
    await run(adminA, updateUserCommand, { userId: a.analyst, disabled: false });
    await db.tenant(A, (tx) => setTenantPlan(tx, A, DEMO_PLANS.growth));
  });

  it("keeps an active administrator: no self-disable, no removing one's own admin right, never the last active admin (command and PATCH)", async () => {
    await expect(run(adminA, updateUserCommand, { userId: a.admin, disabled: true })).rejects.toMatchObject({
      status: 409,
      field: 'disabled',
      message: expect.stringMatching(/your own account/),
    });
    await expect(run(adminA, updateUserCommand, { userId: a.admin, roleIds: [roles.officer] })).rejects.toMatchObject({
      status: 409,
      field: 'roleIds',
      message: expect.stringMatching(/your own administrator right/),
    });
    // Another administrator's principal (a stale one: the old admin is disabled) acting on the last active admin.
    const other = principal(A, a.disabledAdmin, 'administrator');
    const lastAdmin = /at least one active administrator/;
    await expect(run(other, updateUserCommand, { userId: a.admin, disabled: true })).rejects.toMatchObject({
      status: 409,
      message: expect.stringMatching(lastAdmin),
    });
    await expect(run(other, updateUserCommand, { userId: a.admin, roleIds: [roles.analyst] })).rejects.toMatchObject({
      status: 409,
      message: expect.stringMatching(lastAdmin),
    });
    // The same through PATCH /v1/users/{id}.
    const { PATCH } = await import('../../src/pages/v1/users/[id].ts');
    const patch = (who: Principal, id: string, body: unknown) =>
      call(PATCH, { principal: who, params: { id }, body, method: 'PATCH', url: `${ORIGIN}/v1/users/${id}` });
    let res = await patch(other, a.admin, { disabled: true });
    expect(res.status).toBe(409);
    expect((await res.json()).error.message).toMatch(lastAdmin);
    res = await patch(adminA, a.admin, { roleIds: [roles.officer] });
    expect(res.status).toBe(409);
    // With a second active administrator, one may disable the other.
    const second = await invite(adminA, {
      email: 'second-admin@alpha.test',
      roleIds: [roles.admin],
      dataPermissions: [],
    });
    res = await patch(principal(A, second.id, 'administrator'), a.admin, { roleIds: [roles.admin, roles.officer] });
    expect(res.status).toBe(200);
    res = await patch(adminA, second.id, { disabled: true });
    expect(res.status).toBe(200);
    expect((await res.json()).status).toBe('disabled');
    const [audit] = await sql<{ before: { status: string }; after: { status: string } }>(
      `select before, after from audit_log where object_id = $1 and action = 'user.disable'`,
      [second.id],
    );
    expect([audit.before.status, audit.after.status]).toEqual(['invited', 'disabled']);
  });

  it('two administrators disabling each other at the same moment: the second waits for the first and is refused', async () => {
    const x = await invite(adminA, { email: 'race-x@alpha.test', roleIds: [roles.admin], dataPermissions: [] });
    const y = await invite(adminA, { email: 'race-y@alpha.test', roleIds: [roles.admin], dataPermissions: [] });
    // Only x and y stay active administrators: the fixture's admin steps down (done by x), the earlier second admin is disabled.
    await run(principal(A, x.id, 'administrator'), updateUserCommand, { userId: a.admin, roleIds: [roles.officer] });
    // x disables y and holds its transaction open; meanwhile y disables x. y's check must wait for x's
    // commit (the per-tenant lock) and then see y disabled: refused, not both.
    let checked!: () => void;
    const xChecked = new Promise<void>((resolve) => (checked = resolve));
    const first = db.tenant(A, async (tx) => {
      const out = await updateUser(
        tx,
        actorFromPrincipal(principal(A, x.id, 'administrator')),
        { userId: y.id, disabled: true },
        { language: 'en' },
      );
      checked();
      await new Promise((resolve) => setTimeout(resolve, 400));
      return out;
    });
    await xChecked;
    const second = db
      .tenant(A, (tx) =>
        updateUser(
          tx,
          actorFromPrincipal(principal(A, y.id, 'administrator')),
          { userId: x.id, disabled: true },
          { language: 'en' },
        ),
      )
      .catch((e: unknown) => e);
    expect((await first).status).toBe('disabled');
    expect(await second).toMatchObject({
      status: 409,
      message: expect.stringMatching(/at least one active administrator/),
    });
    const [{ admins }] = await sql<{ admins: number }>(
      `select count(*)::int as admins from users u where u.is_active and exists (select 1 from user_roles ur join roles r on r.tenant_id = ur.tenant_id and r.id = ur.role_id where ur.user_id = u.id and r.is_admin)`,
    );
    expect(admins).toBe(1);
    // Put the fixture's administrator back (the remaining one does it) for the following tests.
    await run(principal(A, x.id, 'administrator'), updateUserCommand, {
      userId: a.admin,
      roleIds: [roles.admin],
    });
  });

  it("refuses escalation: only an administrator grants the Administrator role or roles beyond the granter's own permissions", async () => {
    const manager = principal(A, a.analyst, 'analyst', {
      isAdmin: false,
      authorities: ['admin.users.view', 'admin.users.edit', 'loans.customers.view'],
    });
    await sql(
      `insert into roles (tenant_id, name, authorities) values ($1, 'User manager', array['admin.users.view','admin.users.edit','loans.customers.view'])`,
      [A],
    );
    await sql(
      `insert into user_roles (tenant_id, user_id, role_id) select $1, $2, id from roles where name = 'User manager'`,
      [A, a.analyst],
    );
    await expect(invite(manager, { roleIds: [roles.admin] })).rejects.toMatchObject({
      status: 403,
      message: expect.stringMatching(/Only an administrator can give the Administrator role/),
    });
    await expect(invite(manager, { roleIds: [roles.officer] })).rejects.toMatchObject({
      status: 403,
      message: expect.stringMatching(/cannot give the role A Loan officer/),
    });
    await expect(run(manager, updateUserCommand, { userId: a.admin, displayName: 'Hacked' })).rejects.toMatchObject({
      status: 403,
    });
    const ok = await invite(manager, { roleIds: [roles.viewer], email: 'viewer@alpha.test' });
    expect(ok.roles.map((r) => r.name)).toEqual(['Customer viewer']);
    // Without admin.users.edit: refused before anything else.
    await expect(invite(principal(A, a.officer, 'loan_officer'), {})).rejects.toMatchObject({ status: 403 });
  });

  it("a non-administrator's account actions never reach an administrator: no MFA reset, no ended sessions, no new invitation link", async () => {
    const manager = principal(A, a.analyst, 'analyst', {
      isAdmin: false,
      authorities: ['admin.users.view', 'admin.users.edit', 'loans.customers.view'],
    });
    await sql(
      `insert into user_roles (tenant_id, user_id, role_id) select $1, $2, id from roles where name = 'User manager' on conflict do nothing`,
      [A, a.analyst],
    );
    await sql(
      `insert into user_totp (tenant_id, user_id, secret, created_at, confirmed_at) values ($1, $2, 'JBSWY3DPEHPK3PXP', now(), now()) on conflict do nothing`,
      [A, a.admin],
    );
    await db.tenant(A, (tx) =>
      createSession(tx, { tenantId: A, userId: a.admin, stage: 'active', method: 'password', now: new Date() }),
    );
    const adminTarget = /Only an administrator can change an administrator's account/;
    await expect(run(manager, resetMfaCommand, { userId: a.admin })).rejects.toMatchObject({
      status: 403,
      message: expect.stringMatching(adminTarget),
    });
    expect(await sql('select 1 from user_totp where user_id = $1', [a.admin])).toHaveLength(1);
    await expect(run(manager, endSessionsCommand, { userId: a.admin })).rejects.toMatchObject({ status: 403 });
    expect(await sql('select 1 from sessions where user_id = $1 and revoked_at is null', [a.admin])).not.toHaveLength(
      0,
    );
    const invitedAdmin = await invite(adminA, { email: 'future-admin@alpha.test', roleIds: [roles.admin] });
    const link = tokenIn(lastMailTo('future-admin@alpha.test'));
    await expect(
      run(manager, resendInvitationCommand, { userId: invitedAdmin.id, origin: ORIGIN }),
    ).rejects.toMatchObject({ status: 403 });
    expect(tokenIn(lastMailTo('future-admin@alpha.test'))).toBe(link);
    // An administrator still can.
    expect((await run(adminA, resetMfaCommand, { userId: a.admin })).mfa_enrolled).toBe(false);
    await run(adminA, updateUserCommand, { userId: invitedAdmin.id, disabled: true });
  });

  it('a user administrator limited to a branch manages only users inside it: a tenant-wide user is out of reach', async () => {
    const scoped = principal(A, a.analyst, 'analyst', {
      isAdmin: false,
      authorities: ['admin.users.view', 'admin.users.edit', 'loans.customers.view'],
      dataPermissions: [{ field: 'branch', value: 'A-B1' }],
    });
    const wide = await invite(adminA, { email: 'tenant-wide@alpha.test', roleIds: [], dataPermissions: [] });
    const inBranch = await invite(adminA, { email: 'in-branch@alpha.test', roleIds: [] });
    const outside = /only manage users whose data permissions lie inside yours/;
    await expect(run(scoped, updateUserCommand, { userId: wide.id, roleIds: [roles.viewer] })).rejects.toMatchObject({
      status: 403,
      message: expect.stringMatching(outside),
    });
    await expect(run(scoped, updateUserCommand, { userId: wide.id, displayName: 'Renamed' })).rejects.toMatchObject({
      status: 403,
    });
    await expect(run(scoped, resetMfaCommand, { userId: wide.id })).rejects.toMatchObject({ status: 403 });
    expect(
      (await sql<{ n: number }>('select count(*)::int as n from user_roles where user_id = $1', [wide.id]))[0].n,
    ).toBe(0);
    // Inside the branch, the same change is allowed; the scope cannot be widened to the whole tenant.
    const updated = await run(scoped, updateUserCommand, { userId: inBranch.id, roleIds: [roles.viewer] });
    expect(updated.roles.map((r) => r.name)).toEqual(['Customer viewer']);
    await expect(run(scoped, updateUserCommand, { userId: inBranch.id, dataPermissions: [] })).rejects.toMatchObject({
      status: 403,
    });
    await run(adminA, updateUserCommand, { userId: wide.id, disabled: true });
    await run(adminA, updateUserCommand, { userId: inBranch.id, roleIds: [], disabled: true });
  });

  it("a non-administrator cannot leave someone roleless when the first SSO sign-in would give roles beyond the actor's own", async () => {
    const manager = principal(A, a.analyst, 'analyst', {
      isAdmin: false,
      authorities: ['admin.users.view', 'admin.users.edit', 'loans.customers.view'],
    });
    const target = await invite(adminA, { email: 'sso-target@alpha.test', roleIds: [roles.viewer] });
    const sso = {
      login: { password: true, sso: { issuer: 'https://idp.example.com', client_id: 'x', roles: [roles.admin] } },
    };
    await db.owner((tx) =>
      tx.query(`update tenants set config = config || $1::jsonb where id = $2`, [JSON.stringify(sso), A]),
    );
    try {
      const ssoRoles = /would get the single sign-on role A Administrator/;
      await expect(
        invite(manager, { email: 'sso-roleless@alpha.test', ssoOnly: true, roleIds: [] }),
      ).rejects.toMatchObject({ status: 403, message: expect.stringMatching(ssoRoles) });
      await expect(run(manager, updateUserCommand, { userId: target.id, roleIds: [] })).rejects.toMatchObject({
        status: 403,
        message: expect.stringMatching(ssoRoles),
      });
      // With a role the first sign-in gives nothing; an administrator may leave someone roleless.
      await run(manager, updateUserCommand, { userId: target.id, roleIds: [roles.viewer], displayName: 'Kept' });
      expect((await run(adminA, updateUserCommand, { userId: target.id, roleIds: [] })).roles).toEqual([]);
      // Once linked, no first sign-in is left: the manager may then strip roles.
      await run(adminA, updateUserCommand, { userId: target.id, roleIds: [roles.viewer] });
      await sql(
        `insert into oidc_links (tenant_id, issuer, subject, user_id, created_at) values ($1, 'https://idp.example.com', 'sso-target', $2, now())`,
        [A, target.id],
      );
      expect((await run(manager, updateUserCommand, { userId: target.id, roleIds: [] })).roles).toEqual([]);
    } finally {
      await db.owner((tx) => tx.query(`update tenants set config = config - 'login' where id = $1`, [A]));
      await run(adminA, updateUserCommand, { userId: target.id, disabled: true });
    }
  });

  it('disabling stops the user at once: the session check and the API token refuse them, and their sessions are revoked', async () => {
    const user = await invite(adminA, { email: 'to-disable@alpha.test' });
    await completePasswordReset(db, {
      tenantId: A,
      token: tokenIn(lastMailTo('to-disable@alpha.test'))!,
      password: STRONG,
      now: new Date(),
    });
    const now = new Date();
    const sessionId = await db.tenant(A, (tx) =>
      createSession(tx, { tenantId: A, userId: user.id, stage: 'active', method: 'password', now }),
    );
    const { token } = await db.tenant(A, (tx) =>
      createApiToken(tx, { tenantId: A, createdBy: adminA, name: 'robot', now, userId: user.id }),
    );
    expect((await checkSession(db, { tenantId: A, sessionId, now })).status).toBe('active');
    const listed = (await db.tenant(A, (tx) => listUsers(tx, { q: 'to-disable' }))).items[0];
    expect(listed.last_sign_in_at).not.toBeNull();
    await run(adminA, updateUserCommand, { userId: user.id, disabled: true });
    expect(await checkSession(db, { tenantId: A, sessionId, now: new Date() })).toMatchObject({ status: 'ended' });
    expect(await authenticateApiToken(db, { tenantId: A, token, now: new Date() })).toBeNull();
    const [session] = await sql<{ revoked_reason: string }>('select revoked_reason from sessions where id = $1', [
      sessionId,
    ]);
    expect(session.revoked_reason).toBe('user_disabled');
    await run(adminA, updateUserCommand, { userId: user.id, disabled: false });
    expect((await db.tenant(A, (tx) => listUsers(tx, { q: 'to-disable' }))).items[0].status).toBe('active');
  });

  it('resets MFA, ends sessions and updates name, language, roles and scope (audited before/after)', async () => {
    await sql(
      `insert into user_totp (tenant_id, user_id, secret, created_at, confirmed_at) values ($1, $2, 'JBSWY3DPEHPK3PXP', now(), now())`,
      [A, a.officer],
    );
    const reset = await run(adminA, resetMfaCommand, { userId: a.officer });
    expect(reset.mfa_enrolled).toBe(false);
    expect(await sql('select 1 from user_totp where user_id = $1', [a.officer])).toHaveLength(0);
    await db.tenant(A, (tx) =>
      createSession(tx, { tenantId: A, userId: a.officer, stage: 'active', method: 'password', now: new Date() }),
    );
    expect((await run(adminA, endSessionsCommand, { userId: a.officer })).ended).toBe(1);
    const updated = await run(adminA, updateUserCommand, {
      userId: a.officer,
      displayName: 'Olga Officer',
      language: 'en-US',
      roleIds: [roles.officer, roles.analyst],
      dataPermissions: [
        { field: 'region', value: 'A-R2' },
        { field: 'officer', value: 'A-O1' },
      ],
    });
    expect(updated).toMatchObject({ display_name: 'Olga Officer', language: 'en-US' });
    expect(updated.roles.map((r) => r.name)).toEqual(['A Analyst', 'A Loan officer']);
    expect(updated.data_permissions.map((p) => `${p.field}:${p.value}`)).toEqual(['officer:A-O1', 'region:A-R2']);
    const [audit] = await sql<{ before: Record<string, unknown>; after: Record<string, unknown> }>(
      `select before, after from audit_log where object_id = $1 and action = 'user.update' order by occurred_at desc limit 1`,
      [a.officer],
    );
    expect(audit.before).toMatchObject({ display_name: 'A Officer', data_permissions: ['branch:A-B1'] });
    expect(audit.after).toMatchObject({ display_name: 'Olga Officer' });
    await expect(
      run(adminA, updateUserCommand, { userId: '00000000-0000-4000-8000-000000000999', displayName: 'x' }),
    ).rejects.toMatchObject({
      status: 404,
    });
    // … worded in the request's language.
    await expect(
      runCommand(
        { db, actor: actorFromPrincipal(adminA), permissionSubject: adminA, language: 'fr' },
        resetMfaCommand,
        () => ({ userId: '00000000-0000-4000-8000-000000000999' }),
      ),
    ).rejects.toMatchObject({ status: 404, message: 'Cet utilisateur n’existe pas.' });
  });

  it('lists with search, role, branch and status filters and pages of 25', async () => {
    const list = (filters: Parameters<typeof listUsers>[1], page = 1) =>
      db.tenant(A, (tx) => listUsers(tx, filters, page));
    expect((await list({ q: 'ALPHA.TEST' })).total).toBeGreaterThan(3);
    expect((await list({ q: '%' })).total).toBe(0);
    expect((await list({ roleId: roles.viewer })).items.map((u) => u.email)).toEqual(['viewer@alpha.test']);
    expect((await list({ status: 'disabled' })).items.map((u) => u.email)).toContain('old-admin@a.test');
    expect((await list({ status: 'invited' })).items.every((u) => u.status === 'invited')).toBe(true);
    // Branch A-B1: users scoped to the branch, to its region, or to one of its officers.
    const b1 = (await list({ branch: 'A-B1' })).items.map((u) => u.email);
    expect(b1).toContain('officer@a.test'); // officer:A-O1 lies under A-B1
    expect(b1).not.toContain('admin@a.test');
    for (let i = 0; i < 26; i++) {
      await sql(`insert into users (tenant_id, email, display_name) values ($1, $2, $3)`, [
        A,
        `bulk${i}@alpha.test`,
        `Zz Bulk ${i}`,
      ]);
    }
    const first = await list({ q: 'bulk' });
    expect([first.total, first.pages, first.items.length]).toEqual([26, 2, 25]);
    expect((await list({ q: 'bulk' }, 2)).items).toHaveLength(1);
    expect((await list({ q: 'bulk' }, 99)).page).toBe(2);
  });

  it('serves /v1/users: GET list and one user, POST 201, 404 for an unknown id; /me and /admin stay their own routes', async () => {
    expect(matchApiRoute('/v1/users/me')?.entry.pattern).toBe('/v1/users/me');
    expect(matchApiRoute('/v1/users/admin')?.entry.pattern).toBe('/v1/users/admin');
    expect(matchApiRoute(`/v1/users/${a.admin}`)?.entry.pattern).toBe('/v1/users/:id');
    const index = await import('../../src/pages/v1/users/index.ts');
    const one = await import('../../src/pages/v1/users/[id].ts');
    let res = await call(index.GET, { principal: adminA, url: `${ORIGIN}/v1/users?q=admin&role=${roles.admin}` });
    expect(res.status).toBe(200);
    const page = await res.json();
    expect(page.items.map((u: { email: string }) => u.email)).toContain('admin@a.test');
    expect(JSON.stringify(page)).not.toMatch(/password_hash/);
    res = await call(index.GET, { principal: adminA, url: `${ORIGIN}/v1/users?status=nope` });
    expect(res.status).toBe(400);
    res = await call(index.POST, {
      principal: adminA,
      url: `${ORIGIN}/v1/users`,
      body: {
        email: 'api@alpha.test',
        displayName: 'Api Person',
        language: 'en-US',
        roleIds: [roles.viewer],
        dataPermissions: [{ field: 'branch', value: 'A-B1' }],
        origin: 'https://evil.example',
      },
    });
    expect(res.status).toBe(201);
    const created = await res.json();
    expect(created).toMatchObject({ email: 'api@alpha.test', status: 'invited' });
    expect(lastMailTo('api@alpha.test')).toContain(`${ORIGIN}/user/reset-password`);
    res = await call(index.POST, {
      principal: adminA,
      url: `${ORIGIN}/v1/users`,
      body: { email: 'api@alpha.test', displayName: 'Again', language: 'en-US', roleIds: [] },
    });
    expect(res.status).toBe(409);
    expect((await res.json()).error).toMatchObject({ field: 'email' });
    res = await call(one.GET, { principal: adminA, params: { id: created.id } });
    expect((await res.json()).email).toBe('api@alpha.test');
    res = await call(one.GET, { principal: adminA, params: { id: 'not-a-uuid' } });
    expect(res.status).toBe(404);
    const [token] = await sql<{ n: number }>(
      'select count(*)::int as n from password_reset_tokens where token_hash = $1',
      [hashToken('x')],
    );
    expect(token.n).toBe(0);
  });
});

function call(
  handler: unknown,
  args: { principal?: Principal; params?: Record<string, string>; body?: unknown; url?: string; method?: string },
): Promise<Response> {
  const url = new URL(args.url ?? `${ORIGIN}/v1/users`);
  const request = new Request(
    url,
    args.body === undefined
      ? { method: args.method ?? 'GET' }
      : {
          method: args.method ?? 'POST',
          body: JSON.stringify(args.body),
          headers: { 'content-type': 'application/json' },
        },
  );
  return (handler as (ctx: unknown) => Promise<Response>)({
    request,
    url,
    params: args.params ?? {},
    locals: { requestId: 'req-1', principal: args.principal },
  });
}
