import crypto from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import { AppError } from '../errors/app-error.ts';
import type { Tx } from '../db/index.ts';
import {
  containsPersonalInfo,
  estimateStrength,
  MIN_STRENGTH_SCORE,
  type PasswordContext,
} from './password-strength.ts';
import type { PasswordHistoryRow, PasswordPoliciesRow, UsersRow } from '../db/schema.generated.ts';

export type { PasswordContext } from './password-strength.ts';

/**
 * Argon2id at OWASP's minimum (19 MiB, 2 passes, 1 lane). The parameters are written into each
 * hash string ($argon2id$v=19$m=19456,t=2,p=1$…), so raising them later still verifies old hashes.
 */
export const ARGON2_OPTIONS = { algorithm: 2 /* Argon2id */, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS as never);
}

export async function verifyPassword(passwordHash: string | null | undefined, password: string): Promise<boolean> {
  if (!passwordHash) return false;
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

// A hash of a random password, verified when the e-mail is unknown so that a miss costs the same
// time as a wrong password and timing does not reveal which e-mails have accounts.
let decoyHash: Promise<string> | undefined;
export function decoyVerify(password: string): Promise<boolean> {
  decoyHash ??= hashPassword(crypto.randomBytes(16).toString('hex'));
  return decoyHash.then((h) => verifyPassword(h, password));
}

export type PasswordPolicy = {
  minLength: number;
  /** How many previous passwords a new one may not repeat. */
  historyCount: number;
  /**
   * Refuse guessable passwords: the strength estimator (password-strength.ts), whose dictionaries
   * hold the common passwords of breach corpora. `refuseBreached` asks for the same check; either
   * one turns it on. The name, e-mail and lender are refused inside a password whatever these say.
   */
  refuseCommon: boolean;
  refuseBreached: boolean;
  /** A password older than this many days must be changed at the next sign-in; 0 = never. */
  expiryDays: number;
  /** The sign-in throttle's account lock (throttle.ts): this many failures within lockoutMinutes lock it. */
  lockoutThreshold: number;
  lockoutMinutes: number;
  /** Users holding one of these roles must enrol in TOTP before they can use the app. */
  mfaRoleIds: string[];
};

export const DEFAULT_PASSWORD_POLICY: PasswordPolicy = {
  minLength: 12,
  historyCount: 5,
  refuseCommon: true,
  refuseBreached: true,
  expiryDays: 0,
  lockoutThreshold: 10,
  lockoutMinutes: 15,
  mfaRoleIds: [],
};

/** The bounds of each number of the policy (the table's check constraints say the same). */
export const PASSWORD_POLICY_LIMITS = {
  minLength: { min: 8, max: 128 },
  historyCount: { min: 0, max: 24 },
  expiryDays: { min: 0, max: 3650 },
  lockoutThreshold: { min: 3, max: 100 },
  lockoutMinutes: { min: 1, max: 1440 },
} as const;
/** Longer inputs are refused before hashing so a megabyte "password" cannot tie up the CPU. */
export const MAX_PASSWORD_LENGTH = 256;

/** The estimator's warnings that mean "this is a known password", reported as reason 'common'. */
const COMMON_WARNINGS = new Set(['topTen', 'topHundred', 'common', 'similarToCommon', 'pwned']);

/**
 * Checks a candidate against the policy (not the history): throws BAD_REQUEST naming the field, with
 * `details.reason` ('too_short', 'too_long', 'personal', 'common', 'weak') and, for the last two, the
 * estimator's `warning` and `suggestions` keys so the message can say why and how to fix it.
 */
export function assertPasswordAllowed(
  password: string,
  policy: PasswordPolicy,
  field = 'password',
  context: PasswordContext = {},
): void {
  const length = [...password].length;
  if (length < policy.minLength) {
    throw new AppError('BAD_REQUEST', `The password must be at least ${policy.minLength} characters long.`, {
      field,
      details: { reason: 'too_short', min_length: policy.minLength },
    });
  }
  if (length > MAX_PASSWORD_LENGTH) {
    throw new AppError('BAD_REQUEST', `The password must be at most ${MAX_PASSWORD_LENGTH} characters long.`, {
      field,
      details: { reason: 'too_long' },
    });
  }
  if (containsPersonalInfo(password, context)) {
    throw new AppError('BAD_REQUEST', 'The password must not contain your name or e-mail address.', {
      field,
      details: { reason: 'personal' },
    });
  }
  if (!policy.refuseCommon && !policy.refuseBreached) return;
  const verdict = estimateStrength(password, context);
  if (verdict.score >= MIN_STRENGTH_SCORE) return;
  const reason =
    verdict.warning && COMMON_WARNINGS.has(verdict.warning)
      ? 'common'
      : verdict.warning === 'userInputs'
        ? 'personal'
        : 'weak';
  const message =
    reason === 'common'
      ? 'This password is too common; choose a less predictable one.'
      : reason === 'personal'
        ? 'The password must not contain your name, e-mail address or the name of your lender.'
        : 'This password is too easy to guess. Use a few uncommon words, or a longer mix of characters without patterns.';
  throw new AppError('BAD_REQUEST', message, {
    field,
    details: { reason, warning: verdict.warning, suggestions: verdict.suggestions },
  });
}

/** The context words of a user of a tenant, for assertPasswordAllowed. */
export async function passwordContextOf(tx: Tx, tenantId: string, userId: string): Promise<PasswordContext> {
  const [row] = await tx.query<{
    email: string;
    display_name: string | null;
    tenant_name: string;
    tenant_slug: string;
  }>(
    `select u.email, u.display_name, t.name as tenant_name, t.slug as tenant_slug
       from users u join tenants t on t.id = u.tenant_id where u.tenant_id = $1 and u.id = $2`,
    [tenantId, userId],
  );
  return row
    ? { email: row.email, displayName: row.display_name, tenantName: row.tenant_name, tenantSlug: row.tenant_slug }
    : {};
}

type PolicyRow = Pick<
  PasswordPoliciesRow,
  | 'min_length'
  | 'history_count'
  | 'refuse_common'
  | 'refuse_breached'
  | 'expiry_days'
  | 'lockout_threshold'
  | 'lockout_minutes'
>;

export async function getPasswordPolicy(tx: Tx, tenantId: string): Promise<PasswordPolicy> {
  const [row] = await tx.query<PolicyRow>(
    `select min_length, history_count, refuse_common, refuse_breached, expiry_days, lockout_threshold, lockout_minutes
       from password_policies where tenant_id = $1`,
    [tenantId],
  );
  const roles = await tx.query<{ role_id: string }>(
    'select role_id::text as role_id from password_policy_mfa_roles where tenant_id = $1 order by role_id',
    [tenantId],
  );
  const mfaRoleIds = roles.map((r) => r.role_id);
  if (!row) return { ...DEFAULT_PASSWORD_POLICY, mfaRoleIds };
  return {
    minLength: row.min_length,
    historyCount: row.history_count,
    refuseCommon: row.refuse_common,
    refuseBreached: row.refuse_breached,
    expiryDays: row.expiry_days,
    lockoutThreshold: row.lockout_threshold,
    lockoutMinutes: row.lockout_minutes,
    mfaRoleIds,
  };
}

/** Writes the whole policy (the role list replaced); the caller checked the roles exist. */
export async function savePasswordPolicy(tx: Tx, tenantId: string, policy: PasswordPolicy): Promise<void> {
  await tx.query(
    `insert into password_policies (tenant_id, min_length, history_count, refuse_common, refuse_breached,
       expiry_days, lockout_threshold, lockout_minutes, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, now())
     on conflict (tenant_id) do update set min_length = excluded.min_length, history_count = excluded.history_count,
       refuse_common = excluded.refuse_common, refuse_breached = excluded.refuse_breached,
       expiry_days = excluded.expiry_days, lockout_threshold = excluded.lockout_threshold,
       lockout_minutes = excluded.lockout_minutes, updated_at = now()`,
    [
      tenantId,
      policy.minLength,
      policy.historyCount,
      policy.refuseCommon,
      policy.refuseBreached,
      policy.expiryDays,
      policy.lockoutThreshold,
      policy.lockoutMinutes,
    ],
  );
  await tx.query('delete from password_policy_mfa_roles where tenant_id = $1', [tenantId]);
  if (policy.mfaRoleIds.length)
    await tx.query(
      'insert into password_policy_mfa_roles (tenant_id, role_id) select $1, unnest($2::uuid[]) on conflict do nothing',
      [tenantId, policy.mfaRoleIds],
    );
}

/**
 * Sets a user's password after checking the tenant policy and the last N passwords (the current one
 * counts as the most recent). Clears password_change_required. The caller decides what happens to
 * the user's sessions.
 */
export async function setUserPassword(
  tx: Tx,
  input: { tenantId: string; userId: string; password: string; now: Date; field?: string },
): Promise<void> {
  const field = input.field ?? 'password';
  const policy = await getPasswordPolicy(tx, input.tenantId);
  assertPasswordAllowed(input.password, policy, field, await passwordContextOf(tx, input.tenantId, input.userId));
  const [user] = await tx.query<Pick<UsersRow, 'password_hash'>>(
    'select password_hash from users where tenant_id = $1 and id = $2 for update',
    [input.tenantId, input.userId],
  );
  if (!user) throw new AppError('NOT_FOUND', 'This account does not exist.');
  if (policy.historyCount > 0) {
    const previous = await tx.query<Pick<PasswordHistoryRow, 'password_hash'>>(
      'select password_hash from password_history where tenant_id = $1 and user_id = $2 order by created_at desc limit $3',
      [input.tenantId, input.userId, policy.historyCount],
    );
    const hashes = [user.password_hash, ...previous.map((p) => p.password_hash)]
      .filter((h): h is string => Boolean(h))
      .slice(0, policy.historyCount);
    for (const old of hashes) {
      if (await verifyPassword(old, input.password)) {
        throw new AppError(
          'BAD_REQUEST',
          `Choose a password you have not used for your last ${policy.historyCount} passwords.`,
          { field, details: { reason: 'reused' } },
        );
      }
    }
  }
  const newHash = await hashPassword(input.password);
  if (user.password_hash) {
    await tx.query(
      'insert into password_history (tenant_id, user_id, password_hash, created_at) values ($1, $2, $3, $4)',
      [input.tenantId, input.userId, user.password_hash, input.now],
    );
  }
  await tx.query(
    `update users set password_hash = $3, password_change_required = false, password_changed_at = $4, updated_at = $4
      where tenant_id = $1 and id = $2`,
    [input.tenantId, input.userId, newHash, input.now],
  );
}
