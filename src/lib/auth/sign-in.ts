import { AppError } from '../errors/app-error.ts';
import type { Db } from '../db/index.ts';
import { decoyVerify, MAX_PASSWORD_LENGTH, verifyPassword } from './passwords.ts';
import { createSession, endSession } from './sessions.ts';
import { clearFailures, noteEvaluation, releaseAttempt, reserveAttempt, throttleKeys } from './throttle.ts';
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
  const attempt = await db.system((tx) => reserveAttempt(tx, keys, input.now));
  // The failure is already counted (reserveAttempt); only a right password takes it back.
  const fail = async (): Promise<never> => {
    throw new AppError('UNAUTHORIZED', BAD_CREDENTIALS);
  };
  if (!email || !input.password || input.password.length > MAX_PASSWORD_LENGTH) return fail();

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
