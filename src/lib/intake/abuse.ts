import crypto from 'node:crypto';
import { createChallenge, randomInt, verifySolution, type Challenge, type Solution } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import type { Db } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { reserveAttempt, type KeyLimit } from '../auth/throttle.ts';

/**
 * Abuse protection of the public application page, without third-party services (README.md):
 *  - per client address, counted in the database (login_failures, the same atomic reservation as
 *    sign-in throttling, so it holds across app servers): drafts started and final submits;
 *  - a honeypot field: a filled one is refused without saying why;
 *  - a self-hosted proof-of-work (ALTCHA v2, SHA-256), signed with a key derived from the app secret,
 *    each solution accepted once; without JavaScript it cannot be solved, so a few submits per hour and
 *    address are accepted without one (the applicant without JavaScript gets through) and above that
 *    a solved challenge is required (a bot without JavaScript is capped).
 */
const HOUR = 60 * 60_000;
export const INTAKE_LIMITS = {
  /** New drafts (first step posted) per address. */
  start: { maxFailures: 30, windowMs: HOUR },
  /** Final submits per address, with or without a solved challenge. */
  submit: { maxFailures: 10, windowMs: HOUR },
  /** Final submits without a solved challenge per address. */
  noPow: { maxFailures: 3, windowMs: HOUR },
} as const satisfies Record<string, KeyLimit>;
export type IntakeLimit = keyof typeof INTAKE_LIMITS;

/** The field bots fill and people never see. */
export const HONEYPOT_FIELD = 'website';
/** The field the page's script fills with the solved challenge. */
export const POW_FIELD = 'altcha';

export function intakeKey(limit: IntakeLimit, clientHash: string): string {
  return `apply-${limit}:${clientHash}`;
}

function appSecret(): string {
  return process.env.SESSION_SECRET || fallbackSecret;
}
// Tests and one-off scripts without SESSION_SECRET (scripts/start.mjs always sets it).
const fallbackSecret = crypto.randomBytes(32).toString('hex');

function derived(purpose: string): string {
  return crypto.createHmac('sha256', appSecret()).update(`intake:${purpose}`).digest('hex');
}

/** The client's address, hashed with the app secret: what submissions keep and limits count. */
export function clientHash(ip: string): string {
  return derived(`client:${ip}`).slice(0, 32);
}

/**
 * Counts one event against an address's budget, atomically; the retry delay in seconds when the
 * budget is spent (the event is then not counted), else 0.
 */
export async function spendBudget(db: Db, limit: IntakeLimit, client: string, now = new Date()): Promise<number> {
  const key = intakeKey(limit, client);
  try {
    await db.system((tx) => reserveAttempt(tx, [key], now, [key], { [key]: INTAKE_LIMITS[limit] }));
    return 0;
  } catch (error) {
    if (error instanceof AppError && error.code === 'TOO_MANY_REQUESTS')
      return Number((error.details as { retry_after?: number } | undefined)?.retry_after ?? 60);
    throw error;
  }
}

/** Whether the honeypot was filled (any non-blank value). */
export function honeypotFilled(posted: Record<string, string>): boolean {
  return (posted[HONEYPOT_FIELD] ?? '').trim() !== '';
}

/** Counters the solver tries on average ≈ (MIN + MAX) / 2 SHA-256 digests: well under a second on a phone. */
const POW_MIN = 2_000;
const POW_MAX = 12_000;
const POW_TTL_MS = 30 * 60_000;

/** A new signed challenge for the page (embedded in the final step). */
export async function newChallenge(now = new Date()): Promise<Challenge> {
  return createChallenge({
    algorithm: 'SHA-256',
    cost: 1,
    counter: randomInt(POW_MAX, POW_MIN),
    deriveKey,
    expiresAt: new Date(now.getTime() + POW_TTL_MS),
    hmacSignatureSecret: derived('pow-signature'),
    hmacKeySignatureSecret: derived('pow-key-signature'),
  });
}

export type PowCheck = 'none' | 'ok' | 'invalid' | 'replayed';

/**
 * Checks the posted solution: 'none' when nothing was posted, 'invalid' when it does not verify
 * (wrong, expired, forged, malformed), 'replayed' when it was already used, 'ok' once (spent here).
 */
export async function checkPow(db: Db, posted: string | undefined, now = new Date()): Promise<PowCheck> {
  const text = (posted ?? '').trim();
  if (!text) return 'none';
  if (text.length > 4096) return 'invalid';
  let payload: { challenge?: Challenge; solution?: Solution };
  try {
    payload = JSON.parse(Buffer.from(text, 'base64').toString('utf8')) as typeof payload;
  } catch {
    return 'invalid';
  }
  const { challenge, solution } = payload;
  if (
    !challenge?.parameters ||
    typeof challenge.signature !== 'string' ||
    !solution ||
    typeof solution.counter !== 'number' ||
    typeof solution.derivedKey !== 'string'
  )
    return 'invalid';
  let verified: boolean;
  try {
    const result = await verifySolution({
      challenge,
      solution: { counter: solution.counter, derivedKey: solution.derivedKey },
      deriveKey,
      hmacSignatureSecret: derived('pow-signature'),
      hmacKeySignatureSecret: derived('pow-key-signature'),
    });
    verified = result.verified;
  } catch {
    verified = false;
  }
  if (!verified) return 'invalid';
  const expiresAt = new Date(
    typeof challenge.parameters.expiresAt === 'number'
      ? challenge.parameters.expiresAt * 1000
      : now.getTime() + POW_TTL_MS,
  );
  const spent = await db.system(async (tx) => {
    await tx.query('delete from form_pow_spent where expires_at < $1', [now]);
    return tx.query(
      'insert into form_pow_spent (signature, expires_at) values ($1, $2) on conflict do nothing returning signature',
      [challenge.signature, expiresAt],
    );
  });
  return spent.length === 1 ? 'ok' : 'replayed';
}
