import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { DEMO_TENANTS, seedDemo } from '#lib/seed/demo.ts';
import { BAD_CREDENTIALS, completeMfaSignIn, signInWithPassword } from '#lib/auth/sign-in.ts';
import { changePassword, createPasswordResets } from '#lib/auth/password-reset.ts';
import { beginTotpEnrolment, confirmTotpEnrolment, totpCode } from '#lib/auth/totp.ts';
import { MAX_FAILURES, reserveAttempt, throttleKeys } from '#lib/auth/throttle.ts';
import { AppError } from '#lib/errors/app-error.ts';

// Throttling counts atomically with its check: however many guesses race, at most MAX_FAILURES are
// evaluated per key and window; the rest are refused unevaluated with the seconds to wait.
const PASSWORD = 'Throttle-Test-Passphrase-1';
const T0 = new Date('2026-03-02T09:00:00Z');
const demo = DEMO_TENANTS.demo;

type Outcome = { code: string; retryAfter?: unknown };
const outcome = (promise: Promise<unknown>): Promise<Outcome> =>
  promise.then(
    () => ({ code: 'OK' }),
    (error: unknown) =>
      error instanceof AppError
        ? { code: error.code, retryAfter: error.details?.retry_after }
        : { code: String(error) },
  );
const tally = (outcomes: Outcome[]) =>
  outcomes.reduce<Record<string, number>>((n, o) => ({ ...n, [o.code]: (n[o.code] ?? 0) + 1 }), {});

describe.each(testDbKinds())('atomic sign-in throttling on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  const failures = async (key: string) =>
    (
      await db.system((tx) =>
        tx.query<{ n: number }>('select count(*)::int as n from login_failures where key = $1', [key]),
      )
    )[0].n;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    await seedDemo(db, { password: PASSWORD });
  });
  afterAll(() => drop?.());

  it('50 parallel wrong passwords on one account from 50 IPs: at most 10 evaluated, the rest 429 with a wait', async () => {
    const email = 'collector@demo.test';
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        outcome(signInWithPassword(db, { email, password: `wrong-${i}`, ip: `198.18.0.${i}`, now: T0 })),
      ),
    );
    expect(tally(outcomes)).toEqual({ UNAUTHORIZED: MAX_FAILURES, TOO_MANY_REQUESTS: 50 - MAX_FAILURES });
    for (const o of outcomes.filter((o) => o.code === 'TOO_MANY_REQUESTS')) expect(o.retryAfter).toBeGreaterThan(0);
    expect(await failures(throttleKeys.account(email))).toBe(MAX_FAILURES);
    // Locked: the right password is refused too.
    await expect(
      signInWithPassword(db, { email, password: PASSWORD, ip: '198.18.1.1', now: T0 }),
    ).rejects.toMatchObject({ code: 'TOO_MANY_REQUESTS' });
  });

  it('30 parallel wrong current passwords on a password change: at most 10 evaluated; the right one is then refused too', async () => {
    const [user] = await db.system((tx) =>
      tx.query<{ id: string }>(
        `select user_id as id from sign_in_directory where email_lower = 'agent.fr@demo.test' and tenant_id = $1`,
        [demo],
      ),
    );
    const change = (currentPassword: string, i: number) =>
      changePassword(db, {
        tenantId: demo,
        userId: user!.id,
        sessionId: null,
        currentPassword,
        newPassword: 'Quartz lantern drifts over Lyon 2031',
        now: T0,
        ip: `198.18.5.${i}`,
      });
    const outcomes = await Promise.all(Array.from({ length: 30 }, (_, i) => outcome(change(`wrong-${i}`, i))));
    expect(tally(outcomes)).toEqual({ BAD_REQUEST: MAX_FAILURES, TOO_MANY_REQUESTS: 30 - MAX_FAILURES });
    await expect(change(PASSWORD, 200)).rejects.toMatchObject({ code: 'TOO_MANY_REQUESTS' });
  });

  it('30 parallel reset requests for one address: at most 10 mails, counted against the address only', async () => {
    const ip = '198.18.6.6';
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        outcome(createPasswordResets(db, { email: 'analyst@demo.test', now: T0, ip: `198.18.6.${i}` })),
      ),
    );
    expect(tally(outcomes)).toEqual({ OK: MAX_FAILURES, TOO_MANY_REQUESTS: 30 - MAX_FAILURES });
    expect(await failures(throttleKeys.ip(ip))).toBe(0);
  });

  it('50 parallel attempts from one IP across accounts (unknown ones included): at most 10 evaluated', async () => {
    const ip = '198.18.2.2';
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        outcome(signInWithPassword(db, { email: `nobody-${i}@nowhere.test`, password: 'guess', ip, now: T0 })),
      ),
    );
    expect(tally(outcomes)).toEqual({ UNAUTHORIZED: MAX_FAILURES, TOO_MANY_REQUESTS: 50 - MAX_FAILURES });
    expect(await failures(throttleKeys.ip(ip))).toBe(MAX_FAILURES);
  });

  it('a right password takes its own reservation back: it neither counts nor clears the IP', async () => {
    const ip = '198.18.3.3';
    for (let i = 0; i < 3; i++) {
      await expect(
        signInWithPassword(db, { email: 'strategist@demo.test', password: 'wrong', ip, now: T0 }),
      ).rejects.toThrow(BAD_CREDENTIALS);
    }
    const result = await signInWithPassword(db, { email: 'strategist@demo.test', password: PASSWORD, ip, now: T0 });
    expect(result.kind).toBe('signed-in');
    expect(await failures(throttleKeys.account('strategist@demo.test'))).toBe(0);
    expect(await failures(throttleKeys.ip(ip))).toBe(3);
  });

  it('concurrent reservations on one key: exactly MAX_FAILURES succeed, in separate transactions', async () => {
    const key = 'account:race@nowhere.test';
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, () => outcome(db.system((tx) => reserveAttempt(tx, [key, 'ip:198.18.4.4'], T0)))),
    );
    expect(tally(outcomes)).toEqual({ OK: MAX_FAILURES, TOO_MANY_REQUESTS: 40 - MAX_FAILURES });
  });

  it('30 parallel wrong TOTP codes: at most 10 compared, the rest 429', async () => {
    const [{ id: uid }] = await db.tenant(demo, (tx) =>
      tx.query<{ id: string }>(`select id from users where email = 'agent.fr@demo.test'`),
    );
    const { secret } = await db.tenant(demo, (tx) => beginTotpEnrolment(tx, { tenantId: demo, userId: uid, now: T0 }));
    await confirmTotpEnrolment(db, {
      tenantId: demo,
      userId: uid,
      code: totpCode(secret, T0),
      now: T0,
      ip: '198.18.5.1',
    });
    const pending = await signInWithPassword(db, {
      email: 'agent.fr@demo.test',
      password: PASSWORD,
      ip: '198.18.5.1',
      now: T0,
    });
    if (pending.kind !== 'mfa') throw new Error('expected the second step');
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        outcome(
          completeMfaSignIn(db, {
            tenantId: demo,
            pendingSessionId: pending.sessionId,
            code: String(200000 + i),
            ip: `198.18.6.${i}`,
            now: T0,
          }),
        ),
      ),
    );
    expect(tally(outcomes)).toEqual({ BAD_REQUEST: MAX_FAILURES, TOO_MANY_REQUESTS: 30 - MAX_FAILURES });
  });
});
