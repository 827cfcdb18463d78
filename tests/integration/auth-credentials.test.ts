import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { DEMO_TENANTS, seedDemo } from '#lib/seed/demo.ts';
import { completeMfaSignIn, signInWithPassword } from '#lib/auth/sign-in.ts';
import { checkSession } from '#lib/auth/sessions.ts';
import { beginTotpEnrolment, confirmTotpEnrolment, hotp, totpCode, totpStep } from '#lib/auth/totp.ts';
import {
  changePassword,
  completePasswordReset,
  createPasswordResets,
  isResetTokenValid,
  RESET_TOKEN_TTL_MS,
} from '#lib/auth/password-reset.ts';
import { DEFAULT_PASSWORD_POLICY, savePasswordPolicy, setUserPassword } from '#lib/auth/passwords.ts';
import { MAX_FAILURES } from '#lib/auth/throttle.ts';

const PASSWORD = 'Credentials-Test-Passphrase-1';
const T0 = new Date('2026-03-02T09:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const demo = DEMO_TENANTS.demo;

describe.each(testDbKinds())('passwords, TOTP and reset on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  const userId = async (email: string) =>
    (await db.tenant(demo, (tx) => tx.query<{ id: string }>('select id from users where email = $1', [email])))[0].id;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    await seedDemo(db, { password: PASSWORD });
  });
  afterAll(() => drop?.());

  it('applies the tenant policy and refuses the last N passwords', async () => {
    const uid = await userId('analyst@demo.test');
    await db.tenant(demo, (tx) =>
      savePasswordPolicy(tx, demo, { ...DEFAULT_PASSWORD_POLICY, minLength: 14, historyCount: 2 }),
    );
    const set = (password: string, ms: number) =>
      db.tenant(demo, (tx) => setUserPassword(tx, { tenantId: demo, userId: uid, password, now: at(ms) }));
    await expect(set('Short-but-ok1', 0)).rejects.toMatchObject({
      field: 'password',
      message: 'The password must be at least 14 characters long.',
    });
    await expect(set('qwertyuiop123456', 0)).rejects.toThrow(/too common/);
    await expect(set(PASSWORD, 0)).rejects.toThrow(/last 2 passwords/);
    await set('First new passphrase A', 1000);
    await set('Second new passphrase B', 2000);
    await expect(set('First new passphrase A', 3000)).rejects.toThrow(/last 2 passwords/);
    // Two changes later the original password has left the history.
    await set(PASSWORD, 4000);
  });

  it('enrols TOTP, asks for it at sign-in, refuses a reused code and throttles guessing', async () => {
    const uid = await userId('strategist@demo.test');
    const { secret } = await db.tenant(demo, (tx) => beginTotpEnrolment(tx, { tenantId: demo, userId: uid, now: T0 }));
    await expect(
      confirmTotpEnrolment(db, { tenantId: demo, userId: uid, code: '000000', now: T0, ip: '10.0.0.1' }),
    ).rejects.toMatchObject({ field: 'code' });
    await confirmTotpEnrolment(db, {
      tenantId: demo,
      userId: uid,
      code: totpCode(secret, T0),
      now: T0,
      ip: '10.0.0.1',
    });
    await expect(
      db.tenant(demo, (tx) => beginTotpEnrolment(tx, { tenantId: demo, userId: uid, now: T0 })),
    ).rejects.toMatchObject({ code: 'CONFLICT' });

    const first = await signInWithPassword(db, {
      email: 'strategist@demo.test',
      password: PASSWORD,
      ip: '10.0.0.1',
      now: at(60_000),
    });
    expect(first.kind).toBe('mfa');
    if (first.kind !== 'mfa') return;
    // The pending session grants nothing.
    expect((await checkSession(db, { tenantId: demo, sessionId: first.sessionId, now: at(61_000) })).status).toBe(
      'mfa',
    );
    const code = totpCode(secret, at(60_000));
    const done = await completeMfaSignIn(db, {
      tenantId: demo,
      pendingSessionId: first.sessionId,
      code,
      ip: '10.0.0.1',
      now: at(61_000),
    });
    expect(done.sessionId).not.toBe(first.sessionId);
    expect((await checkSession(db, { tenantId: demo, sessionId: done.sessionId, now: at(62_000) })).status).toBe(
      'active',
    );
    // The pending id cannot be promoted twice.
    await expect(
      completeMfaSignIn(db, {
        tenantId: demo,
        pendingSessionId: first.sessionId,
        code,
        ip: '10.0.0.1',
        now: at(62_000),
      }),
    ).rejects.toMatchObject({ code: 'UNAUTHORIZED' });

    // Same code in a new sign-in within its window: refused as used; an old window too.
    const second = await signInWithPassword(db, {
      email: 'strategist@demo.test',
      password: PASSWORD,
      ip: '10.0.0.1',
      now: at(62_000),
    });
    if (second.kind !== 'mfa') throw new Error('expected mfa');
    await expect(
      completeMfaSignIn(db, {
        tenantId: demo,
        pendingSessionId: second.sessionId,
        code,
        ip: '10.0.0.1',
        now: at(62_000),
      }),
    ).rejects.toThrow(/already used/);
    const oldCode = hotp(secret, totpStep(at(62_000)) - 3);
    await expect(
      completeMfaSignIn(db, {
        tenantId: demo,
        pendingSessionId: second.sessionId,
        code: oldCode,
        ip: '10.0.0.1',
        now: at(62_000),
      }),
    ).rejects.toThrow(/not valid/);
    const next = totpCode(secret, at(92_000));
    const ok = await completeMfaSignIn(db, {
      tenantId: demo,
      pendingSessionId: second.sessionId,
      code: next,
      ip: '10.0.0.1',
      now: at(92_000),
    });
    expect(ok.tenantId).toBe(demo);

    // Brute force: after 10 wrong codes the user is locked, even for a right code.
    const third = await signInWithPassword(db, {
      email: 'strategist@demo.test',
      password: PASSWORD,
      ip: '10.0.0.2',
      now: at(120_000),
    });
    if (third.kind !== 'mfa') throw new Error('expected mfa');
    for (let i = 0; i < MAX_FAILURES; i++) {
      await expect(
        completeMfaSignIn(db, {
          tenantId: demo,
          pendingSessionId: third.sessionId,
          code: String(100000 + i),
          ip: `10.0.1.${i}`,
          now: at(120_000 + i),
        }),
      ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    }
    await expect(
      completeMfaSignIn(db, {
        tenantId: demo,
        pendingSessionId: third.sessionId,
        code: totpCode(secret, at(150_000)),
        ip: '10.0.2.1',
        now: at(150_000),
      }),
    ).rejects.toMatchObject({ code: 'TOO_MANY_REQUESTS' });
  });

  it('resets a password through a single-use, expiring token and ends sessions', async () => {
    const signed = await signInWithPassword(db, {
      email: 'collector@demo.test',
      password: PASSWORD,
      ip: '10.0.3.1',
      now: T0,
    });
    if (signed.kind !== 'signed-in') throw new Error('expected a session');
    expect(await createPasswordResets(db, { email: 'nobody@demo.test', now: T0, ip: '10.0.3.1' })).toEqual([]);
    const [link] = await createPasswordResets(db, { email: 'Collector@demo.test', now: T0, ip: '10.0.3.1' });
    expect(link).toMatchObject({ email: 'collector@demo.test', tenantId: demo });
    const stored = await db.tenant(demo, (tx) =>
      tx.query<{ token_hash: string }>('select token_hash from password_reset_tokens'),
    );
    expect(stored.map((s) => s.token_hash)).not.toContain(link.token);
    expect(await isResetTokenValid(db, { tenantId: demo, token: link.token, now: at(1000) })).toBe(true);
    await expect(
      completePasswordReset(db, { tenantId: demo, token: link.token, password: 'short', now: at(1000) }),
    ).rejects.toMatchObject({ field: 'password' });
    // A refused password does not burn the link.
    await completePasswordReset(db, {
      tenantId: demo,
      token: link.token,
      password: 'Brand new reset passphrase',
      now: at(2000),
    });
    await expect(
      completePasswordReset(db, {
        tenantId: demo,
        token: link.token,
        password: 'Another reset passphrase',
        now: at(3000),
      }),
    ).rejects.toThrow(/invalid or has expired/);
    expect((await checkSession(db, { ...signed, now: at(4000) })).status).toBe('ended');
    const after = await signInWithPassword(db, {
      email: 'collector@demo.test',
      password: 'Brand new reset passphrase',
      ip: '10.0.3.1',
      now: at(5000),
    });
    expect(after.kind).toBe('signed-in');

    const [expiring] = await createPasswordResets(db, { email: 'collector@demo.test', now: T0, ip: '10.0.3.1' });
    expect(
      await isResetTokenValid(db, { tenantId: demo, token: expiring.token, now: at(RESET_TOKEN_TTL_MS + 1) }),
    ).toBe(false);
    await expect(
      completePasswordReset(db, {
        tenantId: demo,
        token: expiring.token,
        password: 'Late reset passphrase 1',
        now: at(RESET_TOKEN_TTL_MS + 1),
      }),
    ).rejects.toThrow(/expired/);
  });

  it('forces and clears password_change_required; a change needs the current password', async () => {
    const uid = await userId('officer@demo.test');
    await db.tenant(demo, (tx) => tx.query('update users set password_change_required = true where id = $1', [uid]));
    const signed = await signInWithPassword(db, {
      email: 'officer@demo.test',
      password: PASSWORD,
      ip: '10.0.4.1',
      now: T0,
    });
    expect(signed).toMatchObject({ kind: 'signed-in', passwordChangeRequired: true });
    if (signed.kind !== 'signed-in') return;
    const other = await signInWithPassword(db, {
      email: 'officer@demo.test',
      password: PASSWORD,
      ip: '10.0.4.1',
      now: T0,
    });
    await expect(
      changePassword(db, {
        tenantId: demo,
        userId: uid,
        sessionId: signed.sessionId,
        currentPassword: 'nope',
        newPassword: 'Tangerine new passphrase',
        now: T0,
        ip: '10.0.4.1',
      }),
    ).rejects.toMatchObject({ field: 'current_password' });
    await changePassword(db, {
      tenantId: demo,
      userId: uid,
      sessionId: signed.sessionId,
      currentPassword: PASSWORD,
      newPassword: 'Tangerine new passphrase',
      now: at(1000),
      ip: '10.0.4.1',
    });
    const check = await checkSession(db, { ...signed, now: at(2000) });
    expect(check.status === 'active' && check.principal.passwordChangeRequired).toBe(false);
    if (other.kind === 'signed-in') expect((await checkSession(db, { ...other, now: at(2000) })).status).toBe('ended');
  });
});
