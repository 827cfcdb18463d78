import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import { setDb, type Db } from '#lib/db/index.ts';
import { DEMO_TENANTS, seedDemo } from '#lib/seed/demo.ts';
import { signInWithPassword } from '#lib/auth/sign-in.ts';
import { checkSession } from '#lib/auth/sessions.ts';
import { finishSignIn } from '../../src/server/session.ts';

process.env.SESSION_SECRET ??= 'a-test-session-secret-that-is-long-enough-0123456789';
const PASSWORD = 'Login-Event-Passphrase-1';

function fakeCookies() {
  const jar = new Map<string, string>();
  return {
    jar,
    get: (n: string) => (jar.has(n) ? { value: jar.get(n)! } : undefined),
    set: (n: string, v: string) => jar.set(n, v),
    delete: (n: string) => jar.delete(n),
  };
}

describe.each(testDbKinds())('after sign-in on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    await seedDemo(db, { password: PASSWORD });
    setDb(db);
  });
  afterAll(() => drop?.());

  const signIn = async (email: string) => {
    const result = await signInWithPassword(db, { email, password: PASSWORD, ip: '10.1.1.1', now: new Date() });
    if (result.kind !== 'signed-in') throw new Error('expected a session');
    return result;
  };
  const loginEvents = () =>
    db.tenant(DEMO_TENANTS.demo, (tx) =>
      tx.query<{ path: string }>(`select path from analytics_events where name = 'login'`),
    );

  it("records a 'login' event only when the user came from a remembered origin, and goes back there", async () => {
    const cookies = fakeCookies();
    const direct = await finishSignIn(
      { cookies: cookies as never },
      { ...(await signIn('analyst@demo.test')), redirect: null, method: 'password' },
    );
    expect(direct).toBe('/');
    expect(await loginEvents()).toEqual([]);
    expect(cookies.jar.get('session')).toBeTruthy();
    expect(cookies.jar.get('lender')).toBe('demo');

    const back = await finishSignIn(
      { cookies: fakeCookies() as never },
      { ...(await signIn('analyst@demo.test')), redirect: '/analytics/overview?x=1#top', method: 'password' },
    );
    expect(back).toBe('/analytics/overview?x=1#top');
    expect(await loginEvents()).toEqual([{ path: '/analytics/overview' }]);

    const hostile = await finishSignIn(
      { cookies: fakeCookies() as never },
      { ...(await signIn('analyst@demo.test')), redirect: 'https://evil.test/', method: 'password' },
    );
    expect(hostile).toBe('/');
  });

  it('ends the session a browser had before signing in again', async () => {
    const cookies = fakeCookies();
    const first = await signIn('strategist@demo.test');
    await finishSignIn({ cookies: cookies as never }, { ...first, redirect: null, method: 'password' });
    const second = await signIn('strategist@demo.test');
    await finishSignIn({ cookies: cookies as never }, { ...second, redirect: null, method: 'password' });
    expect(
      (await checkSession(db, { tenantId: first.tenantId, sessionId: first.sessionId, now: new Date() })).status,
    ).toBe('ended');
    expect(
      (await checkSession(db, { tenantId: second.tenantId, sessionId: second.sessionId, now: new Date() })).status,
    ).toBe('active');
  });

  it('sends a user who must change their password to reset-password first, keeping the origin', async () => {
    await db.tenant(DEMO_TENANTS.demo, (tx) =>
      tx.query(`update users set password_change_required = true where email = 'collector@demo.test'`),
    );
    const result = await signIn('collector@demo.test');
    expect(
      await finishSignIn(
        { cookies: fakeCookies() as never },
        { ...result, redirect: '/loans/collection', method: 'password' },
      ),
    ).toBe('/user/reset-password?redirect=%2Floans%2Fcollection');
  });
});
