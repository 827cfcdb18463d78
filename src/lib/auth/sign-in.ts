import { AppError } from '../errors/app-error.ts';
import type { Db, Tx } from '../db/index.ts';
import { decoyVerify, getPasswordPolicy, MAX_PASSWORD_LENGTH, verifyPassword } from './passwords.ts';
import { createSession, endSession } from './sessions.ts';
import {
  clearFailures,
  DEFAULT_LIMIT,
  noteEvaluation,
  releaseAttempt,
  reserveAttempt,
  throttleKeys,
  type KeyLimit,
} from './throttle.ts';
import { checkTotp, hasConfirmedTotp } from './totp.ts';
import type { SessionsRow, SignInDirectoryRow, TenantsRow, UsersRow } from '../db/schema.generated.ts';

/** The one message for an unknown e-mail, a wrong password or a disabled account: it reveals nothing. */
export const BAD_CREDENTIALS = 'Incorrect email or password.';

export type SignInResult =
  /** Signed in: a new session. */
  | { kind: 'signed-in'; tenantId: string; userId: string; sessionId: string; passwordChangeRequired: boolean }
  /** Password accepted; the TOTP code is still needed (the session grants nothing yet). */
  | { kind: 'mfa'; tenantId: string; sessionId: string }
  /** The password is right in several lenders: the user picks one (only those, so nothing leaks). */
  | { kind: 'choose-tenant'; tenants: { id: string; name: string }[] };

type Client = { ip: string; userAgent?: string; now: Date };

/**
 * The account lock of the sign-in throttle for an e-mail, from the password policy (lockout
 * threshold and duration). With a lender named (`tenantId`, the login page's ?tenant=) it is that
 * lender's policy whether or not the address has an account there, so the lock reveals nothing.
 * Without one it is the strictest policy of the lenders the address belongs to, and the default
 * (10 failures, 15 minutes) for an unknown address: only a lender that sets a stricter lock than the
 * default makes its accounts lock sooner than unknown addresses, which says no more than trying
 * that lender's login page does.
 */
export async function accountLockout(db: Db, tenantIds: readonly string[]): Promise<KeyLimit> {
  if (tenantIds.length === 0) return DEFAULT_LIMIT;
  let limit: KeyLimit | null = null;
  for (const tenantId of tenantIds) {
    const policy = await db.tenant(tenantId, (tx) => getPasswordPolicy(tx, tenantId));
    const windowMs = policy.lockoutMinutes * 60_000;
    limit = limit
      ? {
          maxFailures: Math.min(limit.maxFailures, policy.lockoutThreshold),
          windowMs: Math.max(limit.windowMs, windowMs),
        }
      : { maxFailures: policy.lockoutThreshold, windowMs };
  }
  return limit!;
}

/**
 * Password expiry, at sign-in: a password older than the policy's expiry_days must be changed
 * (password_change_required; the guard sends the user to /user/reset-password).
 */
async function flagExpiredPassword(tx: Tx, tenantId: string, userId: string, now: Date): Promise<void> {
  const { expiryDays } = await getPasswordPolicy(tx, tenantId);
  if (expiryDays <= 0) return;
  await tx.query(
    `update users set password_change_required = true
      where tenant_id = $1 and id = $2 and not password_change_required and password_changed_at <= $3`,
    [tenantId, userId, new Date(now.getTime() - expiryDays * 86_400_000)],
  );
}

/**
 * Password sign-in through the global directory (e-mail → tenants). Throttled per account and per
 * IP before any hash is checked: the attempt is counted as a failure in its own committed
 * transaction before the evaluation (so parallel guesses cannot outrun the count) and taken back
 * when the password is right.
 */
export async function signInWithPassword(
  db: Db,
  input: Client & { email: string; password: string; tenantId?: string | null },
): Promise<SignInResult> {
  const email = input.email.trim().toLowerCase();
  const keys = [throttleKeys.account(email), throttleKeys.ip(input.ip)];
  const entries = await db.system((tx) =>
    tx.query<Pick<SignInDirectoryRow, 'tenant_id' | 'user_id'> & Pick<TenantsRow, 'name'>>(
      `select d.tenant_id, d.user_id, t.name from sign_in_directory d join tenants t on t.id = d.tenant_id
       where d.email_lower = $1 and t.is_active
         -- A lender that turned password sign-in off (admin › general settings) signs in by SSO only.
         and coalesce((t.config -> 'login' ->> 'password')::boolean, true)
       order by t.name`,
      [email],
    ),
  );
  const namedTenant = input.tenantId
    ? await db.system((tx) =>
        tx.query<Pick<TenantsRow, 'id'>>('select id from tenants where id = $1 and is_active', [input.tenantId]),
      )
    : [];
  const lockout = await accountLockout(
    db,
    input.tenantId ? namedTenant.map((t) => t.id) : [...new Set(entries.map((e) => e.tenant_id))],
  );
  const attempt = await db.system((tx) => reserveAttempt(tx, keys, input.now, keys, { [keys[0]]: lockout }));
  // The failure is already counted (reserveAttempt); only a right password takes it back.
  const fail = async (): Promise<never> => {
    throw new AppError('UNAUTHORIZED', BAD_CREDENTIALS);
  };
  if (!email || !input.password || input.password.length > MAX_PASSWORD_LENGTH) return fail();

  const candidates = input.tenantId ? entries.filter((e) => e.tenant_id === input.tenantId) : entries;
  noteEvaluation(keys[0]);
  if (candidates.length === 0) {
    await decoyVerify(input.password);
    return fail();
  }
  const matches: typeof candidates = [];
  for (const entry of candidates) {
    const [user] = await db.tenant(entry.tenant_id, (tx) =>
      tx.query<Pick<UsersRow, 'password_hash' | 'is_active'>>(
        'select password_hash, is_active from users where tenant_id = $1 and id = $2',
        [entry.tenant_id, entry.user_id],
      ),
    );
    if (user && (await verifyPassword(user.password_hash, input.password)) && user.is_active) matches.push(entry);
  }
  if (matches.length === 0) return fail();
  await db.system(async (tx) => {
    await releaseAttempt(tx, attempt);
    if (matches.length === 1) await clearFailures(tx, keys[0]);
  });
  if (matches.length > 1)
    return { kind: 'choose-tenant', tenants: matches.map((m) => ({ id: m.tenant_id, name: m.name })) };

  const [match] = matches;
  return db.tenant(match.tenant_id, async (tx) => {
    await flagExpiredPassword(tx, match.tenant_id, match.user_id, input.now);
    const needsCode = await hasConfirmedTotp(tx, match.tenant_id, match.user_id);
    const sessionId = await createSession(tx, {
      tenantId: match.tenant_id,
      userId: match.user_id,
      stage: needsCode ? 'mfa' : 'active',
      method: 'password',
      now: input.now,
      ip: input.ip,
      userAgent: input.userAgent,
    });
    if (needsCode) return { kind: 'mfa', tenantId: match.tenant_id, sessionId } as const;
    const [user] = await tx.query<Pick<UsersRow, 'password_change_required'>>(
      'select password_change_required from users where tenant_id = $1 and id = $2',
      [match.tenant_id, match.user_id],
    );
    return {
      kind: 'signed-in',
      tenantId: match.tenant_id,
      userId: match.user_id,
      sessionId,
      passwordChangeRequired: user.password_change_required,
    } as const;
  });
}

/**
 * The second step: a valid, unused TOTP code turns the pending session into a signed-in one under a
 * new session id (the pending id is revoked, so it can never be promoted twice).
 */
export async function completeMfaSignIn(
  db: Db,
  input: Client & { tenantId: string; pendingSessionId: string; code: string },
): Promise<{ tenantId: string; userId: string; sessionId: string; passwordChangeRequired: boolean }> {
  const pending = await db.tenant(input.tenantId, (tx) =>
    tx.query<Pick<SessionsRow, 'user_id'>>(
      `select user_id from sessions where tenant_id = $1 and id = $2 and stage = 'mfa' and revoked_at is null and absolute_expires_at > $3`,
      [input.tenantId, input.pendingSessionId, input.now],
    ),
  );
  if (!pending[0]) throw new AppError('UNAUTHORIZED', 'Your sign-in has expired. Sign in again.');
  const userId = pending[0].user_id;
  const error = await db.tenant(input.tenantId, (tx) =>
    checkTotp(tx, { tenantId: input.tenantId, userId, code: input.code, now: input.now, ip: input.ip }),
  );
  if (error) throw error;
  return db.tenant(input.tenantId, async (tx) => {
    const ended = await endSession(tx, {
      tenantId: input.tenantId,
      sessionId: input.pendingSessionId,
      now: input.now,
      reason: 'mfa_completed',
    });
    if (!ended) throw new AppError('UNAUTHORIZED', 'Your sign-in has expired. Sign in again.');
    const sessionId = await createSession(tx, {
      tenantId: input.tenantId,
      userId,
      stage: 'active',
      method: 'password+totp',
      now: input.now,
      ip: input.ip,
      userAgent: input.userAgent,
    });
    const [user] = await tx.query<Pick<UsersRow, 'password_change_required'>>(
      'select password_change_required from users where tenant_id = $1 and id = $2',
      [input.tenantId, userId],
    );
    return { tenantId: input.tenantId, userId, sessionId, passwordChangeRequired: user.password_change_required };
  });
}
