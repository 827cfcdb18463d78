// Issue 11, security administration: IP rules for everyone or for roles, the refusal of a change that
// would lock its author out, enforcement on pages, /v1 and downloads (IPv4, IPv6, IPv4-mapped, behind
// a trusted proxy), and the password policy's new settings (expiry at sign-in, account lockout with an
// injected clock, MFA-required roles, rules applied at the next change).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import { setDb, type Db } from '#lib/db/index.ts';
import { DEMO_ROLES } from '#lib/auth/permissions.ts';
import { DEMO_TENANTS, seedDemo } from '#lib/seed/demo.ts';
import { signInWithPassword } from '#lib/auth/sign-in.ts';
import { checkSession } from '#lib/auth/sessions.ts';
import { decideAccess } from '#lib/auth/guard.ts';
import { setUserPassword } from '#lib/auth/passwords.ts';
import { beginTotpEnrolment, confirmTotpEnrolment, totpCode } from '#lib/auth/totp.ts';
import type { Principal } from '#lib/auth/principal.ts';
import { runCommand, type Command } from '#lib/http/command.ts';
import type { Actor } from '#lib/lending/actor.ts';
import { isIpAllowed, listIpRestrictions } from '#lib/tenancy/ip-allowlist.ts';
import {
  addIpRestrictionCommand,
  deleteIpRestrictionCommand,
  updateIpRestrictionCommand,
} from '#lib/security-admin/ip-restrictions.ts';
import { readPasswordPolicy, savePasswordPolicyCommand } from '#lib/security-admin/password-policy.ts';
import { ipRestriction } from '../../src/server/middleware/ip-restriction.ts';
import * as ipRestrictionsApi from '../../src/pages/v1/ip-restrictions/index.ts';
import * as ipRestrictionApi from '../../src/pages/v1/ip-restrictions/[id].ts';
import * as passwordPolicyApi from '../../src/pages/v1/password-policy.ts';

const PASSWORD = 'Quartz-Lantern-Velvet-Harbour';
const demo = DEMO_TENANTS.demo;
const DEFAULTS = {
  minLength: 12,
  historyCount: 5,
  expiryDays: 0,
  lockoutThreshold: 10,
  lockoutMinutes: 15,
  refuseBreached: true,
  mfaRoleIds: [] as string[],
};

describe.each(testDbKinds())('security administration on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  const users: Record<string, string> = {};
  const roles: Record<string, string> = {};
  const ADMIN_IP = '10.9.9.9';

  const actorOf = (email: string, ip: string): Actor => ({
    tenantId: demo,
    userId: users[email],
    isAdmin: email === 'admin@demo.test',
    kind: 'user',
    ip,
    requestId: 'test',
  });
  const run = <I, O>(command: Command<I, O>, input: unknown, ip = ADMIN_IP) =>
    runCommand(
      { db, actor: actorOf('admin@demo.test', ip), permissionSubject: { isAdmin: true, authorities: [] } },
      command,
      () => input,
    );
  const allowed = (email: string | null, ip: string) =>
    db.tenant(demo, (tx) => isIpAllowed(tx, ip, email ? users[email] : null));
  const clearRules = () => db.tenant(demo, (tx) => tx.query('delete from ip_restrictions'));

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    await seedDemo(db, { password: PASSWORD });
    setDb(db);
    await db.tenant(demo, async (tx) => {
      for (const u of await tx.query<{ id: string; email: string }>('select id::text as id, email from users'))
        users[u.email] = u.id;
      for (const r of await tx.query<{ id: string; name: string }>('select id::text as id, name from roles'))
        roles[r.name] = r.id;
    });
  });
  afterAll(() => drop?.());

  describe('IP rules', () => {
    afterEach(clearRules);

    it('a rule for roles restricts only the users holding one of them; a rule for everyone restricts everyone', async () => {
      const officers = roles[DEMO_ROLES.loan_officer.name];
      const forOfficers = await run(addIpRestrictionCommand, {
        network: '10.9.0.0/16',
        label: 'Branch network',
        roleIds: [officers],
      });
      expect(forOfficers).toMatchObject({ network: '10.9.0.0/16', appliesToAll: false, label: 'Branch network' });
      expect(forOfficers.roles.map((r) => r.id)).toEqual([officers]);
      expect(await allowed('officer@demo.test', '192.0.2.1')).toBe(false);
      expect(await allowed('officer@demo.test', '10.9.1.1')).toBe(true);
      expect(await allowed('analyst@demo.test', '192.0.2.1')).toBe(true);
      expect(await allowed('admin@demo.test', '192.0.2.1')).toBe(true);
      expect(await allowed(null, '192.0.2.1')).toBe(true);

      await run(addIpRestrictionCommand, { network: '10.9.9.0/24', label: 'Head office' });
      expect(await allowed('analyst@demo.test', '192.0.2.1')).toBe(false);
      expect(await allowed('analyst@demo.test', '10.9.9.5')).toBe(true);
      // The officer is inside one of the rules that apply to them: allowed.
      expect(await allowed('officer@demo.test', '10.9.1.1')).toBe(true);
      expect(await allowed('officer@demo.test', '10.8.0.1')).toBe(false);
    });

    it('refuses a change that would lock out its author, naming their address, and keeps nothing of it', async () => {
      const refused = run(addIpRestrictionCommand, { network: '198.51.100.0/24', label: 'Elsewhere' });
      await expect(refused).rejects.toMatchObject({ status: 409, field: 'network' });
      await expect(refused).rejects.toThrow(/Your address 10\.9\.9\.9 is not inside/);
      expect(await db.tenant(demo, (tx) => listIpRestrictions(tx))).toEqual([]);

      // A rule for the author's own role that leaves them out is refused too.
      const admins = roles[DEMO_ROLES.administrator.name];
      await expect(
        run(addIpRestrictionCommand, { network: '198.51.100.0/24', label: '', appliesTo: 'roles', roleIds: [admins] }),
      ).rejects.toMatchObject({ status: 409 });

      // Edit and delete: the office rule covers the author; moving it away or deleting it while another rule applies is refused.
      const office = await run(addIpRestrictionCommand, { network: '10.9.9.0/24', label: 'Office' });
      await expect(run(updateIpRestrictionCommand, { id: office.id, network: '10.8.0.0/16' })).rejects.toMatchObject({
        status: 409,
        field: 'network',
      });
      const vpn = await run(addIpRestrictionCommand, { network: '2001:db8::/32', label: 'VPN' }, '2001:db8::7');
      await expect(run(deleteIpRestrictionCommand, { id: office.id })).rejects.toMatchObject({ status: 409 });
      // Seen from an IPv6 address inside the VPN rule, the office rule may go.
      await run(deleteIpRestrictionCommand, { id: office.id }, '2001:db8::7');
      const edited = await run(updateIpRestrictionCommand, { id: vpn.id, label: 'VPN (Paris)' }, '2001:db8:1::1');
      expect(edited).toMatchObject({ label: 'VPN (Paris)', network: '2001:db8::/32', appliesToAll: true });
      // An IPv4-mapped IPv6 address is its IPv4 address.
      await run(addIpRestrictionCommand, { network: '10.9.9.0/24', label: 'Office' }, '::ffff:10.9.9.9');

      const audit = await db.tenant(demo, (tx) =>
        tx.query<{ action: string; before: unknown; after: unknown; outcome: string }>(
          `select action, before, after, outcome from audit_log where object_type = 'ip_restriction' order by occurred_at`,
        ),
      );
      expect(
        audit
          .filter((a) => a.outcome === 'success')
          .map((a) => a.action)
          .slice(-5),
      ).toEqual([
        'ip_restriction.create',
        'ip_restriction.create',
        'ip_restriction.delete',
        'ip_restriction.update',
        'ip_restriction.create',
      ]);
      const update = audit.find((a) => a.action === 'ip_restriction.update' && a.outcome === 'success')!;
      expect(update.before).toMatchObject({ label: 'VPN' });
      expect(update.after).toMatchObject({ label: 'VPN (Paris)' });
      expect(audit.some((a) => a.outcome === 'failed' && a.action === 'ip_restriction.create')).toBe(true);
    });

    it('checks networks and roles field by field; host bits are normalised; duplicates are 409', async () => {
      await expect(run(addIpRestrictionCommand, { network: 'intranet', label: '' })).rejects.toMatchObject({
        status: 400,
        field: 'network',
      });
      await expect(run(addIpRestrictionCommand, { network: '10.0.0.0/33', label: '' })).rejects.toMatchObject({
        field: 'network',
      });
      await expect(
        run(addIpRestrictionCommand, { network: '10.0.0.0/8', label: '', appliesTo: 'roles', roleIds: [] }),
      ).rejects.toMatchObject({ status: 400, field: 'roleIds' });
      await expect(
        run(addIpRestrictionCommand, {
          network: '10.0.0.0/8',
          label: '',
          roleIds: ['00000000-0000-4000-8000-000000000000'],
        }),
      ).rejects.toMatchObject({ status: 400, field: 'roleIds' });
      const rule = await run(addIpRestrictionCommand, { network: '10.9.9.77/24', label: '' });
      expect(rule.network).toBe('10.9.9.0/24');
      await expect(run(addIpRestrictionCommand, { network: '10.9.9.0/24', label: 'again' })).rejects.toMatchObject({
        status: 409,
        field: 'network',
      });
    });

    it('answers /v1/ip-restrictions: list, create, read, edit, delete, and the lockout refusal in the caller’s language', async () => {
      const admin: Principal = {
        tenantId: demo,
        userId: users['admin@demo.test'],
        displayName: 'Alice Admin',
        email: 'admin@demo.test',
        isAdmin: true,
        authorities: [],
        dataPermissions: [],
        language: 'fr-FR',
        via: 'session',
        sessionId: null,
        passwordChangeRequired: false,
        sessionTimeout: 60,
        idleTimeout: 60,
      };
      const call = async (
        handler: (context: never) => Response | Promise<Response>,
        method: string,
        path: string,
        body?: unknown,
        language: 'en' | 'fr' = 'en',
        params: Record<string, string> = {},
      ) => {
        const request = new Request(`http://localhost${path}`, {
          method,
          headers: { 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const response = await handler({
          request,
          params,
          clientAddress: ADMIN_IP,
          locals: { principal: admin, requestId: 'r', language },
        } as never);
        return { status: response.status, body: await response.json() };
      };
      const created = await call(ipRestrictionsApi.POST as never, 'POST', '/v1/ip-restrictions', {
        network: '10.9.0.0/16',
        label: 'Office',
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        network: '10.9.0.0/16',
        label: 'Office',
        appliesTo: 'everyone',
        roleIds: [],
      });
      const id = created.body.id as string;
      expect((await call(ipRestrictionsApi.GET as never, 'GET', '/v1/ip-restrictions')).body.items).toHaveLength(1);
      expect(
        (await call(ipRestrictionApi.GET as never, 'GET', `/v1/ip-restrictions/${id}`, undefined, 'en', { id })).body,
      ).toMatchObject({ id });
      const patched = await call(
        ipRestrictionApi.PATCH as never,
        'PATCH',
        `/v1/ip-restrictions/${id}`,
        { label: 'HQ' },
        'en',
        { id },
      );
      expect(patched).toMatchObject({ status: 200, body: { label: 'HQ', network: '10.9.0.0/16' } });
      const lockout = await call(
        ipRestrictionApi.PATCH as never,
        'PATCH',
        `/v1/ip-restrictions/${id}`,
        { network: '203.0.113.0/24' },
        'fr',
        { id },
      );
      expect(lockout.status).toBe(409);
      expect(lockout.body.error).toMatchObject({ field: 'network', ip: ADMIN_IP });
      expect(lockout.body.error.message).toMatch(/^Votre adresse 10\.9\.9\.9 n’appartient pas/);
      const bad = await call(ipRestrictionsApi.POST as never, 'POST', '/v1/ip-restrictions', {
        network: '10.1.2',
        label: '',
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatchObject({
        field: 'network',
        message: expect.stringMatching(/^Network must be an IP address/),
      });
      const deleted = await call(
        ipRestrictionApi.DELETE as never,
        'DELETE',
        `/v1/ip-restrictions/${id}`,
        undefined,
        'en',
        { id },
      );
      expect(deleted).toMatchObject({ status: 200, body: { id, deleted: true } });
      expect(
        (await call(ipRestrictionApi.GET as never, 'GET', `/v1/ip-restrictions/${id}`, undefined, 'en', { id })).status,
      ).toBe(404);
      // The 404 speaks the request's language.
      const missingFr = await call(ipRestrictionApi.GET as never, 'GET', `/v1/ip-restrictions/${id}`, undefined, 'fr', {
        id,
      });
      expect(missingFr).toMatchObject({ status: 404, body: { error: { message: 'Cette règle IP n’existe pas.' } } });
    });

    it('a writer who is not an administrator may not create, edit or delete a rule that can reach an administrator (403, EN and FR)', async () => {
      const admins = roles[DEMO_ROLES.administrator.name];
      const officers = roles[DEMO_ROLES.loan_officer.name];
      const keeperIp = '10.9.9.7';
      const keeperRole = await db.tenant(demo, async (tx) => {
        const [role] = await tx.query<{ id: string }>(
          `insert into roles (tenant_id, name, description, is_admin, authorities)
           values ($1, 'IP keeper', '', false, $2) returning id::text as id`,
          [demo, ['admin.ip_restriction.edit']],
        );
        await tx.query('insert into user_roles (tenant_id, user_id, role_id) values ($1, $2, $3)', [
          demo,
          users['analyst@demo.test'],
          role.id,
        ]);
        return role.id;
      });
      const keeper = <I, O>(command: Command<I, O>, input: unknown) =>
        runCommand(
          {
            db,
            actor: { ...actorOf('analyst@demo.test', keeperIp), isAdmin: false },
            permissionSubject: { isAdmin: false, authorities: ['admin.ip_restriction.edit'] },
          },
          command,
          () => input,
        );
      const forbidden = { status: 403, field: 'roleIds', key: 'security.adminRule' };
      try {
        // The attack: the writer's own address, for everyone (their own access is kept, every administrator's is not).
        await expect(keeper(addIpRestrictionCommand, { network: `${keeperIp}/32`, label: 'x' })).rejects.toMatchObject(
          forbidden,
        );
        await expect(
          keeper(addIpRestrictionCommand, { network: `${keeperIp}/32`, label: 'x', roleIds: [admins] }),
        ).rejects.toMatchObject(forbidden);
        // A role an administrator holds reaches them too.
        await db.tenant(demo, (tx) =>
          tx.query('insert into user_roles (tenant_id, user_id, role_id) values ($1, $2, $3)', [
            demo,
            users['admin@demo.test'],
            keeperRole,
          ]),
        );
        await expect(
          keeper(addIpRestrictionCommand, { network: `${keeperIp}/32`, label: 'x', roleIds: [keeperRole] }),
        ).rejects.toMatchObject(forbidden);
        await db.tenant(demo, (tx) =>
          tx.query('delete from user_roles where user_id = $1 and role_id = $2', [
            users['admin@demo.test'],
            keeperRole,
          ]),
        );
        expect(await db.tenant(demo, (tx) => listIpRestrictions(tx))).toEqual([]);

        // A rule for officers is theirs to keep; it may not be widened to everyone or to administrators.
        const branch = await keeper(addIpRestrictionCommand, {
          network: '10.9.0.0/16',
          label: '',
          roleIds: [officers],
        });
        await expect(
          keeper(updateIpRestrictionCommand, { id: branch.id, appliesTo: 'everyone' }),
        ).rejects.toMatchObject(forbidden);
        await expect(
          keeper(updateIpRestrictionCommand, { id: branch.id, roleIds: [officers, admins] }),
        ).rejects.toMatchObject(forbidden);
        expect(await keeper(updateIpRestrictionCommand, { id: branch.id, label: 'Branch' })).toMatchObject({
          label: 'Branch',
          appliesToAll: false,
        });
        // An administrator's rule for everyone: neither edited (not even narrowed) nor deleted by the keeper.
        const office = await run(addIpRestrictionCommand, { network: '10.9.9.0/24', label: 'Office' });
        await expect(keeper(updateIpRestrictionCommand, { id: office.id, label: 'Mine' })).rejects.toMatchObject(
          forbidden,
        );
        await expect(keeper(updateIpRestrictionCommand, { id: office.id, roleIds: [officers] })).rejects.toMatchObject(
          forbidden,
        );
        await expect(keeper(deleteIpRestrictionCommand, { id: office.id })).rejects.toMatchObject(forbidden);
        await keeper(deleteIpRestrictionCommand, { id: branch.id });
        expect((await db.tenant(demo, (tx) => listIpRestrictions(tx))).map((r) => r.label)).toEqual(['Office']);
        // Through /v1, in the caller's language.
        const request = new Request('http://localhost/v1/ip-restrictions', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ network: `${keeperIp}/32`, label: 'x' }),
        });
        const principal = {
          tenantId: demo,
          userId: users['analyst@demo.test'],
          displayName: 'Keeper',
          email: 'analyst@demo.test',
          isAdmin: false,
          authorities: ['admin.ip_restriction.edit'],
          dataPermissions: [],
          language: 'fr-FR',
          via: 'session',
          sessionId: null,
          passwordChangeRequired: false,
          sessionTimeout: 60,
          idleTimeout: 60,
        } satisfies Principal;
        const response = await (ipRestrictionsApi.POST as (context: never) => Promise<Response>)({
          request,
          params: {},
          clientAddress: keeperIp,
          locals: { principal, requestId: 'r', language: 'fr' },
        } as never);
        expect(response.status).toBe(403);
        expect((await response.json()).error.message).toMatch(/^Seul un administrateur peut créer/);
      } finally {
        await db.tenant(demo, (tx) => tx.query('delete from roles where id = $1', [keeperRole]));
      }
    });

    it('IP rule changes run one at a time: two administrators moving each other’s network away cannot both pass', async () => {
      const ra = await run(addIpRestrictionCommand, { network: '10.1.0.0/16', label: 'A' }, '10.1.1.1');
      const rb = await run(addIpRestrictionCommand, { network: '10.2.0.0/16', label: 'B' }, '10.1.1.1');
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => (entered = resolve));
      // The first change (from 10.1.1.1, still inside A) stays open while the second one starts.
      const first = db.tenant(demo, async (tx) => {
        const moved = await updateIpRestrictionCommand.run(
          tx,
          actorOf('admin@demo.test', '10.1.1.1'),
          { id: rb.id, network: '192.0.2.0/24' },
          { language: 'en' },
        );
        entered();
        await gate;
        return moved;
      });
      await inside;
      // From 10.2.2.2, inside B as it was: it must wait for the first change and then see B gone.
      const second = run(updateIpRestrictionCommand, { id: ra.id, network: '198.51.100.0/24' }, '10.2.2.2');
      second.catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 300));
      release();
      await first;
      await expect(second).rejects.toMatchObject({ status: 409, field: 'network' });
      expect(await allowed('admin@demo.test', '10.1.1.1')).toBe(true);
    });

    it('the middleware refuses a disallowed address on pages, /v1 and downloads: IPv4, IPv6 and IPv4-mapped, behind a trusted proxy', async () => {
      const officers = roles[DEMO_ROLES.loan_officer.name];
      await run(addIpRestrictionCommand, { network: '10.9.0.0/16', label: '', roleIds: [officers] });
      await run(addIpRestrictionCommand, { network: '2001:db8::/32', label: '', roleIds: [officers] });
      const previous = process.env.TRUST_PROXY;
      process.env.TRUST_PROXY = '1';
      try {
        const request = async (email: string, path: string, forwardedFor: string) => {
          const url = new URL(`http://localhost${path}`);
          const context = {
            request: new Request(url, { headers: { 'x-forwarded-for': forwardedFor } }),
            url,
            clientAddress: '127.0.0.1',
            locals: { requestId: 'r', canonicalPath: path, principal: { tenantId: demo, userId: users[email] } },
          };
          return (await ipRestriction(context as never, (async () => new Response('ok')) as never)) as Response;
        };
        for (const path of [
          '/loans/overview',
          '/v1/loans',
          '/v1/downloads/5f1c7a62-0000-4000-8000-000000000001/file',
        ]) {
          for (const inside of ['10.9.3.4', '::ffff:10.9.3.4', '2001:db8::42']) {
            expect((await request('officer@demo.test', path, inside)).status, `${path} ${inside}`).toBe(200);
          }
          for (const outside of ['203.0.113.7', '::ffff:203.0.113.7', '2001:db9::1', '::ffff:cb00:7107']) {
            const response = await request('officer@demo.test', path, outside);
            expect(response.status, `${path} ${outside}`).toBe(403);
            if (path.startsWith('/v1/')) expect((await response.json()).error.code).toBe('FORBIDDEN');
          }
          // The rules are for officers: an analyst from anywhere is accepted.
          expect((await request('analyst@demo.test', path, '203.0.113.7')).status).toBe(200);
        }
        const refused = await request('officer@demo.test', '/loans/overview', '::ffff:203.0.113.7');
        expect(await refused.text()).toBe(
          'Access from your address 203.0.113.7 is not allowed for this lender. Ask your administrator to add your network to the IP restriction.',
        );
        // The entry the trusted proxy appended counts; what the client wrote further left does not.
        expect((await request('officer@demo.test', '/loans/overview', '10.9.3.4, 203.0.113.7')).status).toBe(403);
      } finally {
        if (previous === undefined) delete process.env.TRUST_PROXY;
        else process.env.TRUST_PROXY = previous;
      }
    });
  });

  describe('password policy', () => {
    const T = new Date();
    const days = (n: number) => new Date(T.getTime() + n * 86_400_000);
    const save = (policy: Partial<typeof DEFAULTS>) => run(savePasswordPolicyCommand, { ...DEFAULTS, ...policy });
    afterEach(async () => {
      await save({});
    });

    it('reads the defaults, refuses values out of range field by field, audits before and after', async () => {
      expect(await db.tenant(demo, (tx) => readPasswordPolicy(tx, demo))).toMatchObject({
        ...DEFAULTS,
        refuseCommon: true,
      });
      for (const [field, value] of [
        ['minLength', 7],
        ['minLength', 129],
        ['historyCount', 25],
        ['expiryDays', -1],
        ['lockoutThreshold', 2],
        ['lockoutMinutes', 0],
        ['lockoutMinutes', 1.5],
      ] as const) {
        await expect(save({ [field]: value })).rejects.toMatchObject({
          issues: [expect.objectContaining({ path: [field] })],
        });
      }
      await expect(save({ mfaRoleIds: ['00000000-0000-4000-8000-000000000000'] })).rejects.toMatchObject({
        field: 'mfaRoleIds',
      });
      await save({ minLength: 16, expiryDays: 90 });
      const [row] = await db.tenant(demo, (tx) =>
        tx.query<{ before: { minLength: number }; after: { minLength: number; expiryDays: number } }>(
          `select before, after from audit_log where action = 'password_policy.update' and outcome = 'success' order by occurred_at desc limit 1`,
        ),
      );
      expect(row.before.minLength).toBe(12);
      expect(row.after).toMatchObject({ minLength: 16, expiryDays: 90 });
      // The JSON endpoint says it in the caller's language.
      const response = await passwordPolicyApi.PUT({
        request: new Request('http://localhost/v1/password-policy', {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ ...DEFAULTS, minLength: 7 }),
        }),
        params: {},
        clientAddress: ADMIN_IP,
        locals: {
          principal: {
            tenantId: demo,
            userId: users['admin@demo.test'],
            isAdmin: true,
            authorities: [],
            dataPermissions: [],
            via: 'session',
          },
          requestId: 'r',
          language: 'fr',
        },
      } as never);
      expect(response.status).toBe(400);
      expect((await response.json()).error).toMatchObject({
        field: 'minLength',
        message: 'Longueur minimale doit être au moins 8.',
      });
    });

    it('applies at the next change: an old short password still signs in, a new short one is refused', async () => {
      await save({ minLength: 32 });
      const signedIn = await signInWithPassword(db, {
        email: 'analyst@demo.test',
        password: PASSWORD,
        ip: '10.1.0.1',
        now: T,
      });
      expect(signedIn.kind).toBe('signed-in');
      const set = (password: string) =>
        db.tenant(demo, (tx) =>
          setUserPassword(tx, { tenantId: demo, userId: users['analyst@demo.test'], password, now: T }),
        );
      await expect(set('Marble-Compass-Juniper-Ot')).rejects.toMatchObject({
        details: { reason: 'too_short', min_length: 32 },
      });
      await set('Marble-Compass-Juniper-Otter-Fjord-Pine');
    });

    it('expiry: a password older than the policy allows must be changed at the next sign-in', async () => {
      await save({ expiryDays: 30 });
      const early = await signInWithPassword(db, {
        email: 'collector@demo.test',
        password: PASSWORD,
        ip: '10.1.0.2',
        now: days(29),
      });
      expect(early).toMatchObject({ kind: 'signed-in', passwordChangeRequired: false });
      const late = await signInWithPassword(db, {
        email: 'collector@demo.test',
        password: PASSWORD,
        ip: '10.1.0.2',
        now: days(31),
      });
      expect(late).toMatchObject({ kind: 'signed-in', passwordChangeRequired: true });
      if (late.kind !== 'signed-in') return;
      const check = await checkSession(db, { tenantId: demo, sessionId: late.sessionId, now: days(31) });
      expect(check.status).toBe('active');
      if (check.status !== 'active') return;
      expect(decideAccess({ method: 'GET', path: '/loans/overview', search: '', principal: check.principal })).toEqual({
        kind: 'redirect',
        location: '/user/reset-password',
      });
      // Changing it clears the flag and restarts the clock.
      await db.tenant(demo, (tx) =>
        setUserPassword(tx, {
          tenantId: demo,
          userId: users['collector@demo.test'],
          password: 'Walnut-Glacier-Tandem-Sorrel',
          now: days(31),
        }),
      );
      const after = await signInWithPassword(db, {
        email: 'collector@demo.test',
        password: 'Walnut-Glacier-Tandem-Sorrel',
        ip: '10.1.0.2',
        now: days(60),
      });
      expect(after).toMatchObject({ kind: 'signed-in', passwordChangeRequired: false });
    });

    it('lockout: N failures lock the account for M minutes, then it is released (injected clock)', async () => {
      await save({ lockoutThreshold: 3, lockoutMinutes: 5 });
      const at = (seconds: number) => new Date(T.getTime() + 10 * 86_400_000 + seconds * 1000);
      const attempt = (email: string, password: string, seconds: number, tenantId?: string) =>
        signInWithPassword(db, { email, password, ip: `10.2.0.${seconds % 200}`, now: at(seconds), tenantId });
      for (const s of [0, 1, 2])
        await expect(attempt('strategist@demo.test', 'wrong password', s)).rejects.toMatchObject({ status: 401 });
      // Locked: even the right password is refused, with the throttle's one message.
      await expect(attempt('strategist@demo.test', PASSWORD, 3)).rejects.toMatchObject({
        status: 429,
        message: 'Too many failed attempts. Try again in 5 minutes.',
      });
      await expect(attempt('strategist@demo.test', PASSWORD, 299)).rejects.toMatchObject({ status: 429 });
      expect((await attempt('strategist@demo.test', PASSWORD, 301)).kind).toBe('signed-in');
      // A success clears the count: the failures that lock are consecutive.
      for (const s of [310, 311])
        await expect(attempt('strategist@demo.test', 'wrong', s)).rejects.toMatchObject({ status: 401 });
      expect((await attempt('strategist@demo.test', PASSWORD, 312)).kind).toBe('signed-in');
      await expect(attempt('strategist@demo.test', 'wrong', 313)).rejects.toMatchObject({ status: 401 });
      // On the lender's own login, an unknown address locks exactly like an account: nothing leaks.
      for (const s of [400, 401, 402])
        await expect(attempt('nobody@demo.test', 'wrong', s, demo)).rejects.toMatchObject({ status: 401 });
      await expect(attempt('nobody@demo.test', 'wrong', 403, demo)).rejects.toMatchObject({ status: 429 });
    });

    it('MFA required for roles: their users must enrol before using the app, then go on', async () => {
      const strategists = roles[DEMO_ROLES.strategist.name];
      await save({ mfaRoleIds: [strategists] });
      const now = new Date(T.getTime() + 20 * 86_400_000);
      const signedIn = await signInWithPassword(db, {
        email: 'strategist@demo.test',
        password: PASSWORD,
        ip: '10.3.0.1',
        now,
      });
      expect(signedIn.kind).toBe('signed-in');
      if (signedIn.kind !== 'signed-in') return;
      const principalAt = async (when: Date) => {
        const check = await checkSession(db, { tenantId: demo, sessionId: signedIn.sessionId, now: when });
        if (check.status !== 'active') throw new Error(check.status);
        return check.principal;
      };
      const before = await principalAt(now);
      expect(before.mfaEnrolmentRequired).toBe(true);
      expect(decideAccess({ method: 'GET', path: '/strategies/overview', search: '', principal: before })).toEqual({
        kind: 'redirect',
        location: '/user/mfa',
      });
      expect(decideAccess({ method: 'GET', path: '/user/mfa', search: '', principal: before }).kind).toBe('allow');
      expect(decideAccess({ method: 'GET', path: '/v1/loans', search: '', principal: before })).toMatchObject({
        status: 403,
      });
      expect(decideAccess({ method: 'POST', path: '/v1/auth/mfa/enrolment', search: '', principal: before }).kind).toBe(
        'allow',
      );
      // No way around the enrolment: no API token, no other session's business, while it is pending.
      expect(decideAccess({ method: 'GET', path: '/v1/users/me', search: '', principal: before }).kind).toBe('allow');
      for (const path of ['/v1/auth/api-tokens', '/v1/auth/sign-out-everywhere'])
        expect(decideAccess({ method: 'POST', path, search: '', principal: before })).toMatchObject({ status: 403 });
      const mustEnrolAdmin = { ...before, isAdmin: true };
      expect(
        decideAccess({ method: 'POST', path: '/v1/auth/api-tokens', search: '', principal: mustEnrolAdmin }),
      ).toMatchObject({ status: 403, message: 'Set up two-step sign-in to continue.' });
      // Other roles are not asked.
      const admin = await signInWithPassword(db, { email: 'admin@demo.test', password: PASSWORD, ip: '10.3.0.2', now });
      if (admin.kind !== 'signed-in') throw new Error(admin.kind);
      const adminCheck = await checkSession(db, { tenantId: demo, sessionId: admin.sessionId, now });
      expect(adminCheck.status === 'active' && adminCheck.principal.mfaEnrolmentRequired).toBe(false);

      const uid = users['strategist@demo.test'];
      const { secret } = await db.tenant(demo, (tx) => beginTotpEnrolment(tx, { tenantId: demo, userId: uid, now }));
      await confirmTotpEnrolment(db, { tenantId: demo, userId: uid, code: totpCode(secret, now), now, ip: '10.3.0.1' });
      const after = await principalAt(new Date(now.getTime() + 1000));
      expect(after.mfaEnrolmentRequired).toBe(false);
      expect(decideAccess({ method: 'GET', path: '/strategies/overview', search: '', principal: after }).kind).not.toBe(
        'redirect',
      );
      // From now on the code is asked at sign-in.
      expect(
        (
          await signInWithPassword(db, {
            email: 'strategist@demo.test',
            password: PASSWORD,
            ip: '10.3.0.1',
            now: new Date(now.getTime() + 60_000),
          })
        ).kind,
      ).toBe('mfa');
    });
  });
});
