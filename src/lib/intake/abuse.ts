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

/**
 * The part of an address that limits count: an IPv4 address as is (an IPv4-mapped IPv6 address as its
 * IPv4 address), an IPv6 address by its /64 network (one subscriber usually holds a whole /64, so
 * counting single IPv6 addresses would let one client rotate through billions of them).
 */
export function clientNetwork(ip: string): string {
  let text = ip.trim().toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  if (!text.includes(':')) return text;
  const groups = expandIpv6(text);
  if (!groups) return text;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff)
    return `${groups[6] >> 8}.${groups[6] & 255}.${groups[7] >> 8}.${groups[7] & 255}`;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address (an embedded IPv4 tail allowed), or null when malformed. */
function expandIpv6(address: string): number[] | null {
  let text = address;
  const v4 = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4) {
    const bytes = v4.slice(1).map(Number);
    if (bytes.some((b) => b > 255)) return null;
    const hex = (hi: number, lo: number) => ((hi << 8) | lo).toString(16);
    text = `${text.slice(0, v4.index)}${hex(bytes[0], bytes[1])}:${hex(bytes[2], bytes[3])}`;
  }
  const parse = (part: string): number[] | null => {
    if (part === '') return [];
    const out: number[] = [];
    for (const group of part.split(':')) {
      if (!/^[0-9a-f]{1,4}$/.test(group)) return null;
      out.push(parseInt(group, 16));
    }
    return out;
  };
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const head = parse(halves[0]);
  if (!head) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const tail = parse(halves[1]);
  if (!tail || head.length + tail.length > 7) return null;
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

/** The client's address (its /64 for IPv6), hashed with the app secret: what submissions keep and limits count. */
export function clientHash(ip: string): string {
  return derived(`client:${clientNetwork(ip)}`).slice(0, 32);
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

/** What a challenge carries of its draft: a keyed hash of the token (the token itself never). */
export function draftBinding(token: string): string {
  return crypto.createHmac('sha256', derived('pow-draft')).update(token).digest('base64url').slice(0, 32);
}

/**
 * A new signed challenge for the page (embedded in the final step), bound to the draft when given: its
 * signed parameters carry the draft's binding, so a challenge solved once cannot serve other drafts.
 */
export async function newChallenge(options: { draft?: string; now?: Date } = {}): Promise<Challenge> {
  const now = options.now ?? new Date();
  return createChallenge({
    algorithm: 'SHA-256',
    cost: 1,
    counter: randomInt(POW_MAX, POW_MIN),
    deriveKey,
    ...(options.draft ? { data: { draft: draftBinding(options.draft) } } : {}),
    expiresAt: new Date(now.getTime() + POW_TTL_MS),
    hmacSignatureSecret: derived('pow-signature'),
    hmacKeySignatureSecret: derived('pow-key-signature'),
  });
}

export type PowCheck = 'none' | 'ok' | 'invalid' | 'replayed';

/**
 * Checks the posted solution: 'none' when nothing was posted, 'invalid' when it does not verify
 * (wrong, expired, forged, malformed, or made for another draft than `draft` when given), 'replayed'
 * when it was already used, 'ok' once (spent here).
 */
export async function checkPow(
  db: Db,
  posted: string | undefined,
  options: { draft?: string; now?: Date } = {},
): Promise<PowCheck> {
  const now = options.now ?? new Date();
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
  if (options.draft !== undefined && challenge.parameters.data?.draft !== draftBinding(options.draft)) return 'invalid';
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
