import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../errors/app-error.ts';
import type { Tx } from '../db/index.ts';
import { env } from '../config/env.ts';
import type { LoginFailuresRow } from '../db/schema.generated.ts';

/**
 * Sign-in throttling, shared by every app server through the database. A key (an account, a client
 * IP, a user's second factor) is locked once it has MAX_FAILURES failures within WINDOW_MS; the lock
 * lifts when the oldest of those failures leaves the window. While locked even the right password is
 * refused, otherwise the lock would only slow a guesser down. Success does not clear an IP's count
 * (an attacker could otherwise sign in to their own account to reset it); it clears the account's.
 *
 * Counting is atomic with the check (`reserveAttempt`): an attempt takes its keys' locks, checks,
 * and records itself as a failure before the secret is evaluated; success takes the record back.
 * Checking first and recording after the evaluation let 50 parallel guesses all pass the check
 * (27 evaluated before the lock in a test): now at most MAX_FAILURES are ever evaluated per window.
 */
export const MAX_FAILURES = 10;
export const WINDOW_MS = 15 * 60_000;

/**
 * How many failures within how long lock a key. Every key uses the defaults above except an
 * account's sign-in key, whose limit is the tenant's password policy (lockout threshold N and
 * duration M: N failures within M minutes lock the account until the first of them is M minutes
 * old, i.e. M minutes after a burst of guesses; a right password clears the account's count, so the
 * failures that count are consecutive). Same table, same atomic reservation: one mechanism.
 */
export type KeyLimit = { maxFailures: number; windowMs: number };
export const DEFAULT_LIMIT: KeyLimit = { maxFailures: MAX_FAILURES, windowMs: WINDOW_MS };
/** The longest lockout a policy may set (password_policies.lockout_minutes ≤ 1440): rows are kept that long. */
export const LONGEST_WINDOW_MS = 1440 * 60_000;
/** Limits by key; a key not listed uses DEFAULT_LIMIT. */
export type KeyLimits = Readonly<Record<string, KeyLimit>>;

export const throttleKeys = {
  account: (email: string) => `account:${email.trim().toLowerCase()}`,
  ip: (ip: string) => `ip:${ip}`,
  totp: (tenantId: string, userId: string) => `totp:${tenantId}:${userId}`,
};

/** Seconds until the key may try again, or 0 when it is not locked. */
export async function lockedForSeconds(
  tx: Tx,
  key: string,
  now: Date,
  limit: KeyLimit = DEFAULT_LIMIT,
): Promise<number> {
  const since = new Date(now.getTime() - limit.windowMs);
  const rows = await tx.query<Pick<LoginFailuresRow, 'at'>>(
    'select at from login_failures where key = $1 and at > $2 order by at desc limit $3',
    [key, since, limit.maxFailures],
  );
  if (rows.length < limit.maxFailures) return 0;
  const oldest = rows[rows.length - 1].at;
  return Math.max(1, Math.ceil((oldest.getTime() + limit.windowMs - now.getTime()) / 1000));
}

/** Throws TOO_MANY_REQUESTS when any of the keys is locked. */
export async function assertNotThrottled(
  tx: Tx,
  keys: readonly string[],
  now: Date,
  limits: KeyLimits = {},
): Promise<void> {
  let wait = 0;
  for (const key of keys) wait = Math.max(wait, await lockedForSeconds(tx, key, now, limits[key]));
  if (wait > 0) {
    const minutes = Math.ceil(wait / 60);
    throw new AppError(
      'TOO_MANY_REQUESTS',
      `Too many failed attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
      {
        details: { retry_after: wait },
      },
    );
  }
}

/** Advisory-lock class of throttle keys: `pg_advisory_xact_lock(class, hashtext(key))`. */
const THROTTLE_LOCK_CLASS = 4400;

/** The failure rows an attempt reserved before its evaluation, one per key. */
export type Attempt = { ids: string[] };

/**
 * Counts an attempt before its password or code is evaluated, atomically: the keys are locked (in
 * sorted order, so two attempts never deadlock) until this transaction commits, the window is
 * checked, and a failure row is written per key. Concurrent attempts on a key queue on its lock and
 * each sees the rows of those before it, so the MAX_FAILURES+1-th is refused (429) unevaluated.
 * `recordKeys` (default: all keys) are the ones the attempt counts against; the others are only checked.
 * `limits` overrides the default limit of some keys (an account's tenant lockout policy).
 */
export async function reserveAttempt(
  tx: Tx,
  keys: readonly string[],
  now: Date,
  recordKeys: readonly string[] = keys,
  limits: KeyLimits = {},
): Promise<Attempt> {
  const distinct = [...new Set([...keys, ...recordKeys])].sort();
  for (const key of distinct)
    await tx.query('select pg_advisory_xact_lock($1, hashtext($2))', [THROTTLE_LOCK_CLASS, key]);
  await assertNotThrottled(tx, distinct, now, limits);
  const ids: string[] = [];
  for (const key of [...new Set(recordKeys)].sort()) {
    const [row] = await tx.query<Pick<LoginFailuresRow, 'id'>>(
      'insert into login_failures (key, at) values ($1, $2) returning id',
      [key, now],
    );
    ids.push(String(row.id));
  }
  // Rows older than any window are of no use (a policy's lockout may last up to LONGEST_WINDOW_MS).
  await tx.query('delete from login_failures where at < $1', [
    new Date(now.getTime() - Math.max(2 * WINDOW_MS, LONGEST_WINDOW_MS)),
  ]);
  return { ids };
}

/** The attempt succeeded: the failures it reserved are taken back (other failures stay). */
export async function releaseAttempt(tx: Tx, attempt: Attempt): Promise<void> {
  if (attempt.ids.length) await tx.query('delete from login_failures where id = any($1::bigint[])', [attempt.ids]);
}

/**
 * A test-visible count of evaluations: with E2E=1 (the browser tests' server only) each password or
 * code evaluation appends its throttle key to DATA_DIR/e2e-evaluations.log, so a test can prove
 * how many guesses were evaluated. Nothing is written otherwise.
 */
export function noteEvaluation(key: string): void {
  if (process.env.E2E !== '1') return;
  try {
    fs.appendFileSync(path.join(env().dataDir, 'e2e-evaluations.log'), `${key}\n`);
  } catch {
    // A test measure must never fail a sign-in.
  }
}

export async function clearFailures(tx: Tx, key: string): Promise<void> {
  await tx.query('delete from login_failures where key = $1', [key]);
}
