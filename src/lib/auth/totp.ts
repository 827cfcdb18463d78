import crypto from 'node:crypto';
import { AppError } from '../errors/app-error.ts';
import type { Db, Tx } from '../db/index.ts';
import { clearFailures, noteEvaluation, releaseAttempt, reserveAttempt, throttleKeys } from './throttle.ts';
import type { UserTotpRow } from '../db/schema.generated.ts';

/** RFC 6238 with the parameters every authenticator app supports: HMAC-SHA1, 30-second steps, 6 digits. */
export const TOTP_STEP_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Accept the previous and next step too, for clock drift between phone and server. */
export const TOTP_WINDOW = 1;

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function base32Encode(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string): Buffer {
  const clean = text.toUpperCase().replace(/[\s=-]/g, '');
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of clean) {
    const index = BASE32.indexOf(char);
    if (index < 0) throw new Error('invalid base32');
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

export function generateTotpSecret(): string {
  return base32Encode(crypto.randomBytes(20));
}

export function totpStep(now: Date): number {
  return Math.floor(now.getTime() / 1000 / TOTP_STEP_SECONDS);
}

/** The code for one time step (RFC 4226 HOTP with the step as counter). */
export function hotp(secret: string, counter: number): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const digest = crypto.createHmac('sha1', base32Decode(secret)).update(message).digest();
  const offset = digest[digest.length - 1] & 0x0f;
  const binary = digest.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** TOTP_DIGITS).padStart(TOTP_DIGITS, '0');
}

export function totpCode(secret: string, now: Date): string {
  return hotp(secret, totpStep(now));
}

/** The matching step within the window, or null. Constant-time comparison of each candidate. */
export function matchTotp(secret: string, code: string, now: Date): number | null {
  const clean = code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(clean)) return null;
  const step = totpStep(now);
  let matched: number | null = null;
  for (let delta = -TOTP_WINDOW; delta <= TOTP_WINDOW; delta++) {
    const expected = hotp(secret, step + delta);
    if (crypto.timingSafeEqual(Buffer.from(expected), Buffer.from(clean))) matched = step + delta;
  }
  return matched;
}

export function otpauthUri(input: { secret: string; issuer: string; account: string }): string {
  const label = encodeURIComponent(`${input.issuer}:${input.account}`);
  const params = new URLSearchParams({
    secret: input.secret,
    issuer: input.issuer,
    algorithm: 'SHA1',
    digits: String(TOTP_DIGITS),
    period: String(TOTP_STEP_SECONDS),
  });
  return `otpauth://totp/${label}?${params}`;
}

type TotpRow = Pick<UserTotpRow, 'secret' | 'confirmed_at' | 'last_used_step'>;

export async function hasConfirmedTotp(tx: Tx, tenantId: string, userId: string): Promise<boolean> {
  const [row] = await tx.query<{ ok: boolean }>(
    'select confirmed_at is not null as ok from user_totp where tenant_id = $1 and user_id = $2',
    [tenantId, userId],
  );
  return Boolean(row?.ok);
}

/**
 * Starts (or restarts) enrolment: a new secret, not yet in force. Refused while a confirmed
 * authenticator exists, so a stolen session cannot silently swap the victim's second factor.
 */
export async function beginTotpEnrolment(
  tx: Tx,
  input: { tenantId: string; userId: string; now: Date },
): Promise<{ secret: string }> {
  if (await hasConfirmedTotp(tx, input.tenantId, input.userId)) {
    throw new AppError(
      'CONFLICT',
      'Multi-factor authentication is already set up. Remove it first to enrol a new device.',
    );
  }
  const secret = generateTotpSecret();
  await tx.query(
    `insert into user_totp (tenant_id, user_id, secret, created_at) values ($1, $2, $3, $4)
     on conflict (tenant_id, user_id) do update set secret = excluded.secret, created_at = excluded.created_at, confirmed_at = null, last_used_step = 0`,
    [input.tenantId, input.userId, secret, input.now],
  );
  return { secret };
}

/**
 * Checks a code for the user's authenticator (pending enrolment when `isEnrolment`), throttled per
 * user and per IP; a code (its time step) is accepted once, and so is any older step. A wrong code is
 * returned, not thrown, so the failure it records commits with the transaction; the caller throws.
 */
export async function checkTotp(
  tx: Tx,
  input: { tenantId: string; userId: string; code: string; now: Date; ip: string; isEnrolment?: boolean },
): Promise<AppError | null> {
  const keys = [throttleKeys.totp(input.tenantId, input.userId), throttleKeys.ip(input.ip)];
  // Counted before the code is compared (locks held to commit), so parallel guesses queue behind the count.
  const attempt = await reserveAttempt(tx, keys, input.now);
  const [row] = await tx.query<TotpRow>(
    'select secret, confirmed_at, last_used_step from user_totp where tenant_id = $1 and user_id = $2 for update',
    [input.tenantId, input.userId],
  );
  if (!row || (input.isEnrolment ? row.confirmed_at !== null : row.confirmed_at === null)) {
    throw new AppError(
      'BAD_REQUEST',
      input.isEnrolment
        ? 'Start the set-up again: no enrolment is pending.'
        : 'Multi-factor authentication is not set up for this account.',
      { field: 'code' },
    );
  }
  noteEvaluation(keys[0]);
  const step = matchTotp(row.secret, input.code, input.now);
  if (step === null || BigInt(step) <= row.last_used_step) {
    return new AppError(
      'BAD_REQUEST',
      step === null
        ? 'This code is not valid. Enter the current 6-digit code from your app.'
        : 'This code was already used. Wait for the next code.',
      { field: 'code' },
    );
  }
  await tx.query(
    `update user_totp set last_used_step = $3, confirmed_at = coalesce(confirmed_at, $4) where tenant_id = $1 and user_id = $2`,
    [input.tenantId, input.userId, step, input.now],
  );
  await releaseAttempt(tx, attempt);
  await clearFailures(tx, keys[0]);
  return null;
}

/** Confirms a pending enrolment with a first code; from then on sign-in asks for a code. */
export async function confirmTotpEnrolment(
  db: Db,
  input: { tenantId: string; userId: string; code: string; now: Date; ip: string },
): Promise<void> {
  const error = await db.tenant(input.tenantId, (tx) => checkTotp(tx, { ...input, isEnrolment: true }));
  if (error) throw error;
}

/** The user's multi-factor state for the set-up page: none, pending (with the secret to show again) or on. */
export async function totpStatus(
  tx: Tx,
  tenantId: string,
  userId: string,
): Promise<{ state: 'none' } | { state: 'pending'; secret: string } | { state: 'on' }> {
  const [row] = await tx.query<Pick<UserTotpRow, 'secret' | 'confirmed_at'>>(
    'select secret, confirmed_at from user_totp where tenant_id = $1 and user_id = $2',
    [tenantId, userId],
  );
  if (!row) return { state: 'none' };
  return row.confirmed_at ? { state: 'on' } : { state: 'pending', secret: row.secret };
}
