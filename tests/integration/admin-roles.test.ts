import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import { setDb, type Db } from '#lib/db/index.ts';
import { listAudit } from '#lib/audit/record-audit.ts';
import type { Principal } from '#lib/auth/principal.ts';
import { checkSession, createSession, loadUserGrants, principalFromGrants } from '#lib/auth/sessions.ts';
import { allows, need } from '#lib/auth/permissions.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { describeError } from '#lib/errors/messages.ts';
import { runCommand, type Command } from '#lib/http/command.ts';
import type { Language } from '#lib/i18n/index.ts';
import { actorFromPrincipal } from '#lib/lending/actor.ts';
import { commandEndpoint } from '#lib/lending/api.ts';
import { createRoleCommand, deleteRoleCommand, updateRoleCommand } from '#lib/roles/commands.ts';
import { permissionMatrix } from '#lib/roles/matrix.ts';
import { findRole, listRoles, type RoleView } from '#lib/roles/roles.ts';
import { isIpAllowed } from '#lib/tenancy/ip-allowlist.ts';
import { A, B, ids, seedAccessFixtures } from './access-fixtures.ts';
import * as roleApi from '../../src/pages/v1/roles/[id].ts';

const NOW = new Date('2026-01-15T09:00:00Z');
const MANAGER = '10000000-0000-4000-8000-00000000aa01';

describe.each(testDbKinds())('[ROLES]: role commands on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let admin: Principal;
  let manager: Principal;

  const principalOf = async (tenantId: string, userId: string) => {
    const grants = await db.tenant(tenantId, (tx) => loadUserGrants(tx, tenantId, userId));
    return principalFromGrants(tenantId, grants!, 'session', null);
  };
  const run = <I, O>(who: Principal, command: Command<I, O>, input: unknown, language: Language = 'en') =>
    runCommand(
      {
        db,
        actor: actorFromPrincipal(who, { ip: '198.51.100.1', requestId: 'r-1' }),
        permissionSubject: who,
        language,
        objectId: (input as { roleId?: string }).roleId ?? null,
      },
      command,
      () => input,
    );
  const refusal = async (promise: Promise<unknown>, language: Language = 'en') => {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error, 'expected a refusal').not.toBeNull();
    const view = describeError(error, language);
    return { status: view?.status, ...(view?.body as { message: string; field?: string; code: string }) };
  };
  const roleIdNamed = async (name: string) =>
    (await db.tenant(A, (tx) => listRoles(tx))).find((r) => r.name === name)!.id;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind, { checkLedgerOnDrop: false }));
    await seedAccessFixtures(db);
    // A role manager: may edit roles, holds customers' view and all of offers, nothing else.
    await db.tenant(A, async (tx) => {
      const [role] = await tx.query<{ id: string }>(
        `insert into roles (tenant_id, name, authorities) values ($1, 'A Role manager', $2) returning id`,
        [A, ['admin.roles', 'loans.customers.view', 'loans.offers']],
      );
      await tx.query(
        `insert into users (tenant_id, id, email, display_name) values ($1, $2, 'manager@a.test', 'A Manager')`,
        [A, MANAGER],
      );
      await tx.query('insert into user_roles (tenant_id, user_id, role_id) values ($1, $2, $3)', [A, MANAGER, role.id]);
    });
    admin = await principalOf(A, ids(1).admin);
    manager = await principalOf(A, MANAGER);
  });
  afterAll(() => drop?.());

  it('creates a role with keys, a whole resource and a whole area, stored as given and audited', async () => {
    const role = await run(admin, createRoleCommand, {
      name: '  Customer desk ',
      description: 'Front office',
      permissions: ['loans.customers.view', 'loans.offers', 'collection', 'loans.offers.notify'],
    });
    expect(role).toMatchObject({
      name: 'Customer desk',
      description: 'Front office',
      isAdmin: false,
      permissions: ['loans.customers.view', 'loans.offers', 'collection'],
      permissionCount: 1 + 9 + 1,
      userCount: 0,
    });
    const [row] = await db.tenant(A, (tx) => listAudit(tx, 'role', role.id));
    expect(row).toMatchObject({ action: 'role.create', outcome: 'success', actor_id: admin.userId });
    expect(row.after).toEqual({
      name: 'Customer desk',
      description: 'Front office',
      permissions: ['loans.customers.view', 'loans.offers', 'collection'],
    });
    // The other tenant does not see it.
    expect((await db.tenant(B, (tx) => listRoles(tx))).map((r) => r.name)).not.toContain('Customer desk');
  });

  it('refuses unknown keys naming the key, in the writer’s language', async () => {
    const en = await refusal(
      run(admin, createRoleCommand, { name: 'Typo', permissions: ['loans.customers.view', 'loans.customer.veiw'] }),
    );
    expect(en).toMatchObject({ status: 400, field: 'permissions' });
    expect(en.message).toContain('“loans.customer.veiw” is not a permission');
    const fr = await refusal(run(admin, createRoleCommand, { name: 'Typo', permissions: ['banking'] }, 'fr'), 'fr');
    expect(fr.message).toContain('« banking » n’est pas une permission');
    // Extra fields (an attempt at is_admin) and a missing name are refused too.
    expect(await refusal(run(admin, createRoleCommand, { name: 'X', permissions: [], isAdmin: true }))).toMatchObject({
      status: 400,
      field: 'isAdmin',
    });
    expect(await refusal(run(admin, createRoleCommand, { name: '  ', permissions: [] }))).toMatchObject({
      status: 400,
      field: 'name',
    });
    expect((await db.tenant(A, (tx) => listRoles(tx))).map((r) => r.name)).not.toContain('Typo');
  });

  it('refuses a name another role has, whatever its case', async () => {
    const taken = await refusal(run(admin, createRoleCommand, { name: 'customer DESK', permissions: [] }));
    expect(taken).toMatchObject({ status: 409, field: 'name' });
    expect(taken.message).toBe('A role named “Customer desk” already exists: choose another name.');
    const id = await roleIdNamed('Customer desk');
    // Renaming to another role's name is refused; changing only the case of its own name is not.
    expect(await refusal(run(admin, updateRoleCommand, { roleId: id, name: 'a loan officer' }))).toMatchObject({
      status: 409,
      field: 'name',
    });
    const renamed = await run(admin, updateRoleCommand, { roleId: id, name: 'Customer Desk' });
    expect(renamed.name).toBe('Customer Desk');
    await run(admin, updateRoleCommand, { roleId: id, name: 'Customer desk' });
  });

  it('the Administrator role can be neither changed nor deleted, by anyone', async () => {
    const adminRole = (await db.tenant(A, (tx) => listRoles(tx))).find((r) => r.isAdmin)!;
    const edit = await refusal(run(admin, updateRoleCommand, { roleId: adminRole.id, name: 'Superuser' }));
    expect(edit).toMatchObject({ status: 403 });
    expect(edit.message).toContain('cannot be changed');
    const del = await refusal(
      run(admin, deleteRoleCommand, { roleId: adminRole.id, reassignTo: await roleIdNamed('A Analyst') }),
    );
    expect(del).toMatchObject({ status: 403 });
    expect(del.message).toContain('cannot be deleted');
    const after = await db.tenant(A, (tx) => findRole(tx, adminRole.id));
    expect(after).toMatchObject({ name: 'A Administrator', isAdmin: true, userCount: 2 });
    // The refusals are in the audit trail.
    const trail = await db.tenant(A, (tx) => listAudit(tx, 'role', adminRole.id));
    expect(trail.map((r) => [r.action, r.outcome])).toEqual([
      ['role.update', 'denied'],
      ['role.delete', 'denied'],
    ]);
  });

  it('a role that people hold is deleted only with a role to move them to', async () => {
    const temp = await run(admin, createRoleCommand, { name: 'Temp', permissions: ['loans.payments.view'] });
    const target = await roleIdNamed('A Analyst');
    const officer = ids(1).officer;
    await db.tenant(A, (tx) =>
      tx.query('insert into user_roles (tenant_id, user_id, role_id) values ($1, $2, $3), ($1, $4, $3)', [
        A,
        officer,
        temp.id,
        ids(1).analyst,
      ]),
    );
    const inUse = await refusal(run(admin, deleteRoleCommand, { roleId: temp.id }));
    expect(inUse).toMatchObject({ status: 409, field: 'reassignTo', code: 'CONFLICT' });
    expect(inUse.message).toBe('People hold this role (2): choose the role they move to before deleting it.');
    expect(await refusal(run(admin, deleteRoleCommand, { roleId: temp.id, reassignTo: temp.id }))).toMatchObject({
      status: 400,
      field: 'reassignTo',
    });
    const deleted = await run(admin, deleteRoleCommand, { roleId: temp.id, reassignTo: target });
    expect(deleted).toEqual({ id: temp.id, name: 'Temp', reassignedTo: target, movedUsers: 2 });
    expect(await db.tenant(A, (tx) => findRole(tx, temp.id))).toBeNull();
    // The officer now holds Analyst too; the analyst already did and holds it once.
    const holders = await db.tenant(A, (tx) =>
      tx.query<{ user_id: string }>('select user_id from user_roles where role_id = $1 order by user_id', [target]),
    );
    expect(holders.map((h) => h.user_id).sort()).toEqual([officer, ids(1).analyst].sort());
    const trail = await db.tenant(A, (tx) => listAudit(tx, 'role', temp.id));
    expect(trail.at(-1)).toMatchObject({
      action: 'role.delete',
      outcome: 'success',
      before: { name: 'Temp', description: '', permissions: ['loans.payments.view'], userCount: 2 },
      after: { deleted: true, reassignedTo: { id: target, name: 'A Analyst' } },
    });
    // A role nobody holds needs no target.
    const unused = await run(admin, createRoleCommand, { name: 'Unused', permissions: [] });
    expect((await run(admin, deleteRoleCommand, { roleId: unused.id })).reassignedTo).toBeNull();
  });

  it('over HTTP: DELETE without reassignTo answers 409 naming the number of holders', async () => {
    const role = await run(admin, createRoleCommand, { name: 'Held', permissions: [] });
    await db.tenant(A, (tx) =>
      tx.query('insert into user_roles (tenant_id, user_id, role_id) values ($1, $2, $3)', [
        A,
        ids(1).officer,
        role.id,
      ]),
    );
    const call = (url: string, language: Language = 'en') =>
      commandEndpoint(
        {
          request: new Request(url, { method: 'DELETE' }),
          principal: admin,
          requestId: 'r-2',
          ip: null,
          db,
          language,
        },
        deleteRoleCommand,
        {
          objectId: role.id,
          input: () => ({ roleId: role.id, reassignTo: new URL(url).searchParams.get('reassignTo') }),
          answer: (deleted) => ({ status: 200, body: deleted }),
        },
      );
    const refused = await call(`http://x/v1/roles/${role.id}`, 'fr');
    expect(refused.status).toBe(409);
    const body = (await refused.json()) as { error: { message: string; userCount: number } };
    expect(body.error.userCount).toBe(1);
    expect(body.error.message).toContain('(1)');
    expect(body.error.message).toContain('choisissez le rôle');
    const ok = await call(`http://x/v1/roles/${role.id}?reassignTo=${await roleIdNamed('A Loan officer')}`);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { movedUsers: number }).movedUsers).toBe(1);
  });

  it('a role manager who is not an administrator cannot give what they do not hold', async () => {
    expect(allows(manager, need('admin.roles.edit'))).toBe(true);
    // Within their own grants: allowed, including a whole resource they hold.
    const desk = await run(manager, createRoleCommand, {
      name: 'Offers desk',
      permissions: ['loans.customers.view', 'loans.offers'],
    });
    expect(desk.permissions).toEqual(['loans.customers.view', 'loans.offers']);
    const beyond = await refusal(
      run(manager, createRoleCommand, { name: 'Sneaky', permissions: ['loans.customers.view', 'admin.users.edit'] }),
    );
    expect(beyond).toMatchObject({ status: 403, field: 'permissions' });
    expect(beyond.message).toBe('You cannot give permissions you do not hold yourself: admin.users.edit.');
    // Widening a role, even one the manager did not create, is refused the same way; a whole area too.
    const analyst = await roleIdNamed('A Analyst');
    expect(
      await refusal(
        run(manager, updateRoleCommand, { roleId: desk.id, permissions: ['loans.customers.view', 'loans'] }),
      ),
    ).toMatchObject({ status: 403 });
    // Making their own role bigger is escalation too.
    const own = await roleIdNamed('A Role manager');
    expect(
      await refusal(run(manager, updateRoleCommand, { roleId: own, permissions: ['admin.roles', 'admin'] })),
    ).toMatchObject({ status: 403 });
    // Trimming a role that holds more than the manager is allowed (removing is never escalation).
    const before = (await db.tenant(A, (tx) => findRole(tx, analyst)))!;
    const trimmed = await run(manager, updateRoleCommand, {
      roleId: analyst,
      permissions: before.permissions.filter((p) => p !== 'analytics.reports.edit'),
    });
    expect(trimmed.permissions).not.toContain('analytics.reports.edit');
    // Moving a deleted role's people to a role with more than the manager holds is refused.
    const held = await run(manager, createRoleCommand, { name: 'Held by someone', permissions: [] });
    await db.tenant(A, (tx) =>
      tx.query('insert into user_roles (tenant_id, user_id, role_id) values ($1, $2, $3)', [
        A,
        ids(1).officer,
        held.id,
      ]),
    );
    const adminRole = (await db.tenant(A, (tx) => listRoles(tx))).find((r) => r.isAdmin)!;
    expect(await refusal(run(manager, deleteRoleCommand, { roleId: held.id, reassignTo: adminRole.id }))).toMatchObject(
      {
        status: 403,
        field: 'reassignTo',
      },
    );
    expect(await refusal(run(manager, deleteRoleCommand, { roleId: held.id, reassignTo: analyst }))).toMatchObject({
      status: 403,
    });
    await run(manager, deleteRoleCommand, { roleId: held.id, reassignTo: desk.id });
    // The administrator may grant anything.
    const all = await run(admin, updateRoleCommand, { roleId: desk.id, permissions: ['loans', 'admin.users.edit'] });
    expect(all.permissions).toEqual(['admin.users.edit', 'loans']);
  });

  it("GET /v1/roles/{id} of an unknown role: 404 in the request's language", async () => {
    setDb(db);
    const get = async (language: Language) => {
      const id = '10000000-0000-4000-8000-00000000ffff';
      const response = await roleApi.GET({
        request: new Request(`http://localhost/v1/roles/${id}`),
        params: { id },
        locals: { principal: admin, requestId: 'r', language },
      } as never);
      return { status: response.status, body: (await response.json()) as { error: { message: string } } };
    };
    expect(await get('fr')).toMatchObject({ status: 404, body: { error: { message: 'Ce rôle n’existe pas.' } } });
    expect(await get('en')).toMatchObject({ status: 404, body: { error: { message: 'This role does not exist.' } } });
  });

  it('someone without admin.roles.edit is refused before anything else', async () => {
    const analyst = await principalOf(A, ids(1).analyst);
    const error = await run(analyst, createRoleCommand, { name: 'Mine', permissions: [] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(403);
  });

  it('a change to a role applies to its users on their next request', async () => {
    const officer = ids(1).officer;
    const role = await run(admin, createRoleCommand, { name: 'Reports reader', permissions: [] });
    await db.tenant(A, (tx) =>
      tx.query('insert into user_roles (tenant_id, user_id, role_id) values ($1, $2, $3)', [A, officer, role.id]),
    );
    const sessionId = await db.tenant(A, (tx) =>
      createSession(tx, { tenantId: A, userId: officer, stage: 'active', method: 'password', now: NOW }),
    );
    const request = async () => {
      const check = await checkSession(db, { tenantId: A, sessionId, now: NOW });
      if (check.status !== 'active') throw new Error(check.status);
      return check.principal;
    };
    expect(allows(await request(), need('customer.eligibility.force'))).toBe(false);
    await run(admin, updateRoleCommand, { roleId: role.id, permissions: ['customer.eligibility'] });
    expect(allows(await request(), need('customer.eligibility.force'))).toBe(true);
    expect(allows(await request(), need('customer.eligibility.force'))).toBe(true);
    await run(admin, updateRoleCommand, { roleId: role.id, permissions: [] });
    expect(allows(await request(), need('customer.eligibility.force'))).toBe(false);
  });

  it('the matrix shows each role’s grants, the Administrator column all granted, and who holds each role', async () => {
    const matrix = await db.tenant(A, (tx) => permissionMatrix(tx));
    const col = (name: string) => matrix.roles.findIndex((r) => r.name === name);
    const cell = (key: string, name: string) => matrix.rows.find((r) => r.key === key)!.cells[col(name)];
    expect(matrix.roles[0]).toMatchObject({ name: 'A Administrator', isAdmin: true });
    expect(matrix.rows.every((r) => r.cells[0] === 'admin')).toBe(true);
    expect(cell('loans.customers.view', 'Customer desk')).toBe('key');
    expect(cell('loans.offers.print', 'Customer desk')).toBe('resource');
    expect(cell('collection.buckets.view', 'Customer desk')).toBe('area');
    expect(cell('loans.loans.view', 'Customer desk')).toBeNull();
    const admins = matrix.roles[0].users.map((u) => [u.displayName, u.isActive]);
    expect(admins).toEqual([
      ['A Admin', true],
      ['A Former Admin', false],
    ]);
  });

  it('deleting a role lifts no IP rule and no MFA requirement: they follow its users; nobody to move: administrators only', async () => {
    const officer = ids(1).officer;
    // A rule for the role (10.40.x.x) and the MFA requirement on it.
    const restrict = (roleId: string, network: string) =>
      db.tenant(A, async (tx) => {
        const [rule] = await tx.query<{ id: string }>(
          `insert into ip_restrictions (tenant_id, network, description, applies_to_all)
           values ($1, $2::cidr, '', false) returning id::text as id`,
          [A, network],
        );
        await tx.query('insert into ip_restriction_roles (tenant_id, restriction_id, role_id) values ($1, $2, $3)', [
          A,
          rule.id,
          roleId,
        ]);
        await tx.query('insert into password_policy_mfa_roles (tenant_id, role_id) values ($1, $2)', [A, roleId]);
        return rule.id;
      });
    const hold = (userId: string, roleId: string) =>
      db.tenant(A, (tx) =>
        tx.query('insert into user_roles (tenant_id, user_id, role_id) values ($1, $2, $3)', [A, userId, roleId]),
      );
    const namedBy = (roleId: string) =>
      db.tenant(A, async (tx) => ({
        ip: (
          await tx.query<{ id: string }>(
            'select restriction_id::text as id from ip_restriction_roles where role_id = $1',
            [roleId],
          )
        ).map((r) => r.id),
        mfa: (await tx.query('select 1 from password_policy_mfa_roles where role_id = $1', [roleId])).length > 0,
      }));
    try {
      // Users moved: the rule and the requirement now name the target role, audited.
      const restricted = await run(admin, createRoleCommand, { name: 'Restricted desk', permissions: [] });
      const equivalent = await run(admin, createRoleCommand, { name: 'Equivalent desk', permissions: [] });
      await hold(officer, restricted.id);
      const rule = await restrict(restricted.id, '10.40.0.0/16');
      await run(manager, deleteRoleCommand, { roleId: restricted.id, reassignTo: equivalent.id });
      expect(await namedBy(equivalent.id)).toEqual({ ip: [rule], mfa: true });
      expect(await db.tenant(A, (tx) => isIpAllowed(tx, '192.0.2.1', officer))).toBe(false);
      expect(await db.tenant(A, (tx) => isIpAllowed(tx, '10.40.1.1', officer))).toBe(true);
      expect((await db.tenant(A, (tx) => loadUserGrants(tx, A, officer)))?.mfa_enrolment_required).toBe(true);
      expect((await db.tenant(A, (tx) => listAudit(tx, 'role', restricted.id))).at(-1)).toMatchObject({
        action: 'role.delete',
        after: {
          reassignedTo: { id: equivalent.id },
          carriedOver: { ipRestrictions: [{ id: rule, network: '10.40.0.0/16' }], mfaRequired: true },
        },
      });

      // Nobody to move: refused to a writer who is not an administrator, saying what names the role.
      const lonely = await run(admin, createRoleCommand, { name: 'Lonely desk', permissions: [] });
      const lonelyRule = await restrict(lonely.id, '10.41.0.0/16');
      const refused = await refusal(run(manager, deleteRoleCommand, { roleId: lonely.id }));
      expect(refused).toMatchObject({ status: 409, code: 'CONFLICT' });
      expect(refused.message).toBe(
        'This role is still named by the IP rules 10.41.0.0/16 and the password policy’s two-step sign-in requirement: take it out of them first, or ask an administrator to delete it.',
      );
      expect((await refusal(run(manager, deleteRoleCommand, { roleId: lonely.id }, 'fr'), 'fr')).message).toBe(
        'Ce rôle est encore cité par les règles IP 10.41.0.0/16 et l’exigence de connexion en deux étapes de la politique de mots de passe : retirez-le d’abord, ou demandez à un administrateur de le supprimer.',
      );
      expect(await namedBy(lonely.id)).toEqual({ ip: [lonelyRule], mfa: true });
      // An administrator may: the rows simply go, and the audit says what was lifted.
      await run(admin, deleteRoleCommand, { roleId: lonely.id });
      expect((await db.tenant(A, (tx) => listAudit(tx, 'role', lonely.id))).at(-1)).toMatchObject({
        after: { lifted: { ipRestrictions: [{ id: lonelyRule }], mfaRequired: true } },
      });

      // Carrying an IP rule to a role an administrator holds would restrict them: administrators only.
      const branch = await run(admin, createRoleCommand, { name: 'Branch desk', permissions: [] });
      const shared = await run(admin, createRoleCommand, { name: 'Shared desk', permissions: [] });
      await hold(officer, branch.id);
      await hold(ids(1).admin, shared.id);
      await restrict(branch.id, '10.42.0.0/16');
      expect(
        await refusal(run(manager, deleteRoleCommand, { roleId: branch.id, reassignTo: shared.id })),
      ).toMatchObject({ status: 403, field: 'reassignTo' });
      expect(await db.tenant(A, (tx) => findRole(tx, branch.id))).not.toBeNull();
    } finally {
      await db.tenant(A, async (tx) => {
        await tx.query('delete from ip_restrictions');
        await tx.query('delete from password_policy_mfa_roles');
        await tx.query(
          `delete from roles where name in ('Restricted desk', 'Equivalent desk', 'Lonely desk', 'Branch desk', 'Shared desk')`,
        );
      });
    }
  });
});

// Keeps the type import honest: the tests above read RoleView fields by name.
export type { RoleView };
