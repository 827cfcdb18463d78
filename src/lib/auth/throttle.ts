import { AppError } from '../errors/app-error.ts';
import type { Tx } from '../db/index.ts';

/**
 * Sign-in throttling, shared by every app server through the database. A key (an account, a client
 * IP, a user's second factor) is locked once it has MAX_FAILURES failures within WINDOW_MS; the lock
 * lifts when the oldest of those failures leaves the window. While locked even the right password is
 * refused, otherwise the lock would only slow a guesser down. Success does not clear an IP's count
 * (an attacker could otherwise sign in to their own account to reset it); it clears the account's.
 */
export const MAX_FAILURES = 10;
export const WINDOW_MS = 15 * 60_000;

export const throttleKeys = {
  account: (email: string) => `account:${email.trim().toLowerCase()}`,
  ip: (ip: string) => `ip:${ip}`,
  totp: (tenantId: string, userId: string) => `totp:${tenantId}:${userId}`,
};

/** Seconds until the key may try again, or 0 when it is not locked. */
export async function lockedForSeconds(tx: Tx, key: string, now: Date): Promise<number> {
  const since = new Date(now.getTime() - WINDOW_MS);
  const rows = await tx.query<{ at: Date }>(
    'select at from login_failures where key = $1 and at > $2 order by at desc limit $3',
    [key, since, MAX_FAILURES],
  );
  if (rows.length < MAX_FAILURES) return 0;
  const oldest = rows[rows.length - 1].at;
  return Math.max(1, Math.ceil((oldest.getTime() + WINDOW_MS - now.getTime()) / 1000));
}

/** Throws TOO_MANY_REQUESTS when any of the keys is locked. */
export async function assertNotThrottled(tx: Tx, keys: readonly string[], now: Date): Promise<void> {
  let wait = 0;
  for (const key of keys) wait = Math.max(wait, await lockedForSeconds(tx, key, now));
  if (wait > 0) {
    const minutes = Math.ceil(wait / 60);
    throw new AppError('TOO_MANY_REQUESTS', `Too many failed attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, {
      details: { retry_after: wait },
    });
  }
}

export async function recordFailure(tx: Tx, keys: readonly string[], now: Date): Promise<void> {
  for (const key of keys) await tx.query('insert into login_failures (key, at) values ($1, $2)', [key, now]);
  // Housekeeping: rows older than the window never matter again.
  await tx.query('delete from login_failures where at < $1', [new Date(now.getTime() - 2 * WINDOW_MS)]);
}

export async function clearFailures(tx: Tx, key: string): Promise<void> {
  await tx.query('delete from login_failures where key = $1', [key]);
}
