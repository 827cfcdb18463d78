import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { DEMO_TENANTS, seedDemo } from '#lib/seed/demo.ts';
import { BAD_CREDENTIALS, signInWithPassword } from '#lib/auth/sign-in.ts';
import {
  ABSOLUTE_TIMEOUT_MS,
  checkSession,
  endSession,
  endUserSessions,
  listUserSessions,
} from '#lib/auth/sessions.ts';
import { MAX_FAILURES, WINDOW_MS } from '#lib/auth/throttle.ts';
import { authenticateApiToken, createApiToken, revokeApiToken } from '#lib/auth/api-tokens.ts';
import { hashPassword } from '#lib/auth/passwords.ts';

const PASSWORD = 'Sessions-Test-Passphrase-1';
const T0 = new Date('2026-03-02T09:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const client = (ip = '198.51.100.7') => ({ ip, userAgent: 'vitest', now: T0 });

describe.each(testDbKinds())('sign-in and sessions on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  const userId = async (tenantId: string, email: string) =>
    (
      await db.tenant(tenantId, (tx) =>
        tx.query<{ id: string }>('select id from users where lower(email) = $1', [email]),
      )
    )[0].id;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    await seedDemo(db, { password: PASSWORD });
  });
  afterAll(() => drop?.());

  it('seeds both tenants with roles, hierarchy and the demo accounts', async () => {
    // Later seed steps (simulated history) add users of their own: look at the demo accounts only.
    const users = await db.tenant(DEMO_TENANTS.demo, (tx) =>
      tx.query<{ email: string; language: string }>(
        `select email, language from users where email like '%@demo.test' and email not like 'e2e.%' order by email`,
      ),
    );
    expect(users.map((u) => u.email)).toEqual([
      'admin@demo.test',
      'agent.fr@demo.test',
      'analyst@demo.test',
      'collector@demo.test',
      'officer@demo.test',
      'provider@demo.test',
      'strategist@demo.test',
    ]);
    expect(users.find((u) => u.email === 'agent.fr@demo.test')?.language).toBe('fr-FR');
    const acme = await db.tenant(DEMO_TENANTS.acme, (tx) =>
      tx.query<{ email: string }>(`select email from users where email like '%@acme.test'`),
    );
    expect(acme).toEqual([{ email: 'admin@acme.test' }]);
    const branches = await db.tenant(DEMO_TENANTS.demo, (tx) =>
      tx.query<{ code: string; region: string }>(
        `select b.code, r.code as region from hierarchy_nodes b join hierarchy_nodes r on r.tenant_id = b.tenant_id and r.id = b.parent_id where b.level = 'branch' order by b.code`,
      ),
    );
    expect(branches).toEqual(
      expect.arrayContaining([
        { code: 'PAR-01', region: 'IDF' },
        { code: 'PAR-02', region: 'IDF' },
        { code: 'LYO-01', region: 'ARA' },
      ]),
    );
    const officerOf = await db.tenant(DEMO_TENANTS.demo, (tx) =>
      tx.query<{ email: string; branch: string }>(
        `select u.email, b.code as branch from hierarchy_nodes o join users u on u.tenant_id = o.tenant_id and u.id = o.user_id
       join hierarchy_nodes b on b.tenant_id = o.tenant_id and b.id = o.parent_id where o.level = 'officer' order by u.email`,
      ),
    );
    expect(officerOf).toEqual(
      expect.arrayContaining([
        { email: 'agent.fr@demo.test', branch: 'PAR-01' },
        { email: 'officer@demo.test', branch: 'PAR-01' },
      ]),
    );
    const hash = (
      await db.tenant(DEMO_TENANTS.demo, (tx) =>
        tx.query<{ password_hash: string }>(`select password_hash from users where email = 'admin@demo.test'`),
      )
    )[0].password_hash;
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    const directory = await db.system((tx) =>
      tx.query<{ email_lower: string; tenant_id: string }>(
        `select email_lower, tenant_id from sign_in_directory where email_lower in ('admin@demo.test', 'admin@acme.test') order by tenant_id`,
      ),
    );
    expect(directory).toEqual([
      { email_lower: 'admin@acme.test', tenant_id: DEMO_TENANTS.acme },
      { email_lower: 'admin@demo.test', tenant_id: DEMO_TENANTS.demo },
    ]);
  });

  it('signs in with e-mail and password and resolves the principal', async () => {
    const result = await signInWithPassword(db, { ...client(), email: 'Officer@Demo.test', password: PASSWORD });
    expect(result.kind).toBe('signed-in');
    if (result.kind !== 'signed-in') return;
    expect(result.tenantId).toBe(DEMO_TENANTS.demo);
    const check = await checkSession(db, { tenantId: result.tenantId, sessionId: result.sessionId, now: at(1000) });
    expect(check.status).toBe('active');
    if (check.status !== 'active') return;
    expect(check.principal).toMatchObject({
      tenantId: DEMO_TENANTS.demo,
      email: 'officer@demo.test',
      isAdmin: false,
      via: 'session',
      dataPermissions: [{ field: 'branch', value: 'PAR-01' }],
      passwordChangeRequired: false,
      idleTimeout: 1800,
    });
    expect(check.principal.authorities).toContain('loans.offers.view');
  });

  it('gives a new session id at every sign-in', async () => {
    const a = await signInWithPassword(db, { ...client(), email: 'analyst@demo.test', password: PASSWORD });
    const b = await signInWithPassword(db, { ...client(), email: 'analyst@demo.test', password: PASSWORD });
    expect(a.kind === 'signed-in' && b.kind === 'signed-in' && a.sessionId !== b.sessionId).toBe(true);
  });

  it('answers the same message for an unknown e-mail and a wrong password', async () => {
    await expect(
      signInWithPassword(db, { ...client('198.51.100.20'), email: 'nobody@demo.test', password: PASSWORD }),
    ).rejects.toThrow(BAD_CREDENTIALS);
    await expect(
      signInWithPassword(db, {
        ...client('198.51.100.21'),
        email: 'analyst@demo.test',
        password: 'wrong password here',
      }),
    ).rejects.toThrow(BAD_CREDENTIALS);
  });

  it('asks which lender only when the password matches in several', async () => {
    // The same person works for both lenders with one password; a second address has a different one in acme.
    await db.tenant(DEMO_TENANTS.acme, async (tx) => {
      await tx.query(
        `insert into users (tenant_id, email, display_name, password_hash) values ($1, 'analyst@demo.test', 'Arthur at Acme', $2)`,
        [DEMO_TENANTS.acme, await hashPassword(PASSWORD)],
      );
      await tx.query(
        `insert into users (tenant_id, email, display_name, password_hash) values ($1, 'collector@demo.test', 'Other', $2)`,
        [DEMO_TENANTS.acme, await hashPassword('A different passphrase 42')],
      );
    });
    const both = await signInWithPassword(db, { ...client(), email: 'analyst@demo.test', password: PASSWORD });
    expect(both).toEqual({
      kind: 'choose-tenant',
      tenants: [
        { id: DEMO_TENANTS.acme, name: 'Acme Credit' },
        { id: DEMO_TENANTS.demo, name: 'Demo Lending' },
      ],
    });
    const chosen = await signInWithPassword(db, {
      ...client(),
      email: 'analyst@demo.test',
      password: PASSWORD,
      tenantId: DEMO_TENANTS.acme,
    });
    expect(chosen.kind === 'signed-in' && chosen.tenantId).toBe(DEMO_TENANTS.acme);
    const one = await signInWithPassword(db, { ...client(), email: 'collector@demo.test', password: PASSWORD });
    expect(one.kind === 'signed-in' && one.tenantId).toBe(DEMO_TENANTS.demo);
  });

  it('refuses the session after logout, when the user is disabled, and after "end sessions"', async () => {
    const sign = async () => {
      const r = await signInWithPassword(db, { ...client(), email: 'strategist@demo.test', password: PASSWORD });
      if (r.kind !== 'signed-in') throw new Error('expected a session');
      return r;
    };
    const s1 = await sign();
    await db.tenant(s1.tenantId, (tx) =>
      endSession(tx, { tenantId: s1.tenantId, sessionId: s1.sessionId, now: at(0) }),
    );
    expect(await checkSession(db, { ...s1, now: at(1000) })).toEqual({ status: 'ended', reason: 'revoked' });

    const s2 = await sign();
    const s3 = await sign();
    const uid = await userId(s2.tenantId, 'strategist@demo.test');
    const listed = await db.tenant(s2.tenantId, (tx) =>
      listUserSessions(tx, { tenantId: s2.tenantId, userId: uid, now: at(0), currentSessionId: s2.sessionId }),
    );
    expect(listed.filter((s) => s.is_current).map((s) => s.id)).toEqual([s2.sessionId]);
    expect(listed.map((s) => s.id)).toContain(s3.sessionId);
    await db.tenant(s2.tenantId, (tx) =>
      endUserSessions(tx, { tenantId: s2.tenantId, userId: uid, now: at(0), reason: 'admin' }),
    );
    expect((await checkSession(db, { ...s2, now: at(1000) })).status).toBe('ended');
    expect((await checkSession(db, { ...s3, now: at(1000) })).status).toBe('ended');

    const s4 = await sign();
    await db.tenant(s4.tenantId, (tx) => tx.query('update users set is_active = false where id = $1', [uid]));
    expect(await checkSession(db, { ...s4, now: at(1000) })).toEqual({ status: 'ended', reason: 'user_disabled' });
    await db.tenant(s4.tenantId, (tx) => tx.query('update users set is_active = true where id = $1', [uid]));
    // Once ended, a session stays ended even when the user comes back.
    expect((await checkSession(db, { ...s4, now: at(2000) })).status).toBe('ended');
  });

  it('applies a role change on the next request', async () => {
    const r = await signInWithPassword(db, { ...client(), email: 'officer@demo.test', password: PASSWORD });
    if (r.kind !== 'signed-in') throw new Error('expected a session');
    const uid = await userId(r.tenantId, 'officer@demo.test');
    await db.tenant(r.tenantId, (tx) => tx.query('delete from user_roles where user_id = $1', [uid]));
    const check = await checkSession(db, { ...r, now: at(1000) });
    expect(check.status === 'active' && check.principal.authorities).toEqual([]);
    await db.tenant(r.tenantId, (tx) =>
      tx.query(
        `insert into user_roles (tenant_id, user_id, role_id) select tenant_id, $1, id from roles where name = 'Loan officer'`,
        [uid],
      ),
    );
  });

  it('enforces the idle timeout and the absolute timeout on the server', async () => {
    await db.owner((tx) =>
      tx.query(`update tenants set config = jsonb_set(config, '{auto_logout,timeout}', '120') where id = $1`, [
        DEMO_TENANTS.demo,
      ]),
    );
    const r = await signInWithPassword(db, {
      ...client(),
      email: 'collector@demo.test',
      password: PASSWORD,
      tenantId: DEMO_TENANTS.demo,
    });
    if (r.kind !== 'signed-in') throw new Error('expected a session');
    // Non-admin: the tenant's auto_logout.timeout (120 s). Activity at 100 s extends it.
    const first = await checkSession(db, { ...r, now: at(100_000) });
    expect(first.status === 'active' && first.principal.idleTimeout).toBe(120);
    // A background poll does not count as activity.
    expect((await checkSession(db, { ...r, now: at(200_000), isActivity: false })).status).toBe('active');
    expect((await checkSession(db, { ...r, now: at(221_000) })).status).toBe('ended');

    // Admin: their own session_timeout, whatever the tenant says.
    const admin = await signInWithPassword(db, { ...client(), email: 'admin@demo.test', password: PASSWORD });
    if (admin.kind !== 'signed-in') throw new Error('expected a session');
    await db.tenant(admin.tenantId, (tx) =>
      tx.query(`update users set session_timeout = 30 where email = 'admin@demo.test'`),
    );
    expect((await checkSession(db, { ...admin, now: at(29_000) })).status).toBe('active');
    expect(await checkSession(db, { ...admin, now: at(60_000) })).toEqual({ status: 'ended', reason: 'idle' });

    // Absolute: active every minute, still ended after 12 hours.
    await db.tenant(admin.tenantId, (tx) =>
      tx.query(`update users set session_timeout = 3600 where email = 'admin@demo.test'`),
    );
    const long = await signInWithPassword(db, { ...client(), email: 'admin@demo.test', password: PASSWORD });
    if (long.kind !== 'signed-in') throw new Error('expected a session');
    for (let t = 30 * 60_000; t < ABSOLUTE_TIMEOUT_MS; t += 30 * 60_000) {
      expect((await checkSession(db, { ...long, now: at(t) })).status).toBe('active');
    }
    expect(await checkSession(db, { ...long, now: at(ABSOLUTE_TIMEOUT_MS) })).toEqual({
      status: 'ended',
      reason: 'absolute',
    });
  });

  it('locks an account after 10 failures from rotating IPs, and an IP across accounts', async () => {
    for (let i = 0; i < MAX_FAILURES; i++) {
      await expect(
        signInWithPassword(db, {
          ip: `203.0.113.${i}`,
          now: at(i * 1000),
          email: 'agent.fr@demo.test',
          password: `wrong-${i}`,
        }),
      ).rejects.toThrow(BAD_CREDENTIALS);
    }
    // Locked: even the right password from a fresh IP is refused.
    await expect(
      signInWithPassword(db, { ip: '203.0.113.99', now: at(20_000), email: 'agent.fr@demo.test', password: PASSWORD }),
    ).rejects.toMatchObject({ code: 'TOO_MANY_REQUESTS' });
    // The window passes: the lock lifts.
    const later = await signInWithPassword(db, {
      ip: '203.0.113.99',
      now: at(WINDOW_MS + 1000),
      email: 'agent.fr@demo.test',
      password: PASSWORD,
    });
    expect(later.kind).toBe('signed-in');

    const ip = '192.0.2.50';
    for (let i = 0; i < MAX_FAILURES; i++) {
      await expect(
        signInWithPassword(db, { ip, now: at(i), email: `guess${i}@demo.test`, password: 'x' }),
      ).rejects.toThrow(BAD_CREDENTIALS);
    }
    await expect(
      signInWithPassword(db, {
        ip,
        now: at(100),
        email: 'analyst@demo.test',
        password: PASSWORD,
        tenantId: DEMO_TENANTS.demo,
      }),
    ).rejects.toMatchObject({ code: 'TOO_MANY_REQUESTS', status: 429 });
  });

  it('authenticates API tokens per tenant, stored hashed, revocable', async () => {
    const adminId = await userId(DEMO_TENANTS.demo, 'admin@demo.test');
    const analystId = await userId(DEMO_TENANTS.demo, 'analyst@demo.test');
    const admin = { tenantId: DEMO_TENANTS.demo, userId: adminId, isAdmin: true } as never;
    const created = await db.tenant(DEMO_TENANTS.demo, (tx) =>
      createApiToken(tx, { tenantId: DEMO_TENANTS.demo, createdBy: admin, name: 'ETL', userId: analystId, now: T0 }),
    );
    expect(created.token).toMatch(/^lbo_/);
    const stored = await db.tenant(DEMO_TENANTS.demo, (tx) =>
      tx.query<{ token_hash: string }>('select token_hash from api_tokens where id = $1', [created.id]),
    );
    expect(stored[0].token_hash).not.toContain(created.token);
    const principal = await authenticateApiToken(db, { tenantId: DEMO_TENANTS.demo, token: created.token, now: T0 });
    expect(principal).toMatchObject({ email: 'analyst@demo.test', via: 'token', sessionId: null });
    // Another tenant's x-tenant-id: nothing.
    expect(await authenticateApiToken(db, { tenantId: DEMO_TENANTS.acme, token: created.token, now: T0 })).toBeNull();
    expect(
      await authenticateApiToken(db, { tenantId: DEMO_TENANTS.demo, token: `${created.token}x`, now: T0 }),
    ).toBeNull();
    const analyst = { tenantId: DEMO_TENANTS.demo, userId: analystId, isAdmin: false } as never;
    await expect(
      db.tenant(DEMO_TENANTS.demo, (tx) =>
        createApiToken(tx, { tenantId: DEMO_TENANTS.demo, createdBy: analyst, name: 'x', now: T0 }),
      ),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await db.tenant(DEMO_TENANTS.demo, (tx) =>
      revokeApiToken(tx, { tenantId: DEMO_TENANTS.demo, id: created.id, now: T0 }),
    );
    expect(await authenticateApiToken(db, { tenantId: DEMO_TENANTS.demo, token: created.token, now: T0 })).toBeNull();
  });
});
