import crypto from 'node:crypto';
import { AppError } from '../errors/app-error.ts';
import type { Db, Tx } from '../db/index.ts';
import { setUserPassword, verifyPassword } from './passwords.ts';
import { endUserSessions } from './sessions.ts';
import { releaseAttempt, reserveAttempt, throttleKeys } from './throttle.ts';
import type { PasswordResetTokensRow, SignInDirectoryRow, UsersRow } from '../db/schema.generated.ts';

/** A reset link works once and for this long. */
export const RESET_TOKEN_TTL_MS = 60 * 60_000;
/** An invitation link (the first password of an invited user) works once and for this long. */
export const INVITATION_TOKEN_TTL_MS = 7 * 24 * 60 * 60_000;

/** What a link is for: a forgotten password, or the first password of an invited user. */
export type ResetPurpose = 'reset' | 'invitation';

export function hashToken(token: string): string {
  return crypto.createHash('sha256').update(token, 'utf8').digest('hex');
}

export type ResetLink = { email: string; tenantId: string; token: string };

/**
 * Makes a reset token for every active account with this e-mail (one per lender) and returns the
 * links to mail. The caller answers the same thing whether or not any account exists, so the form
 * reveals nothing; requests are throttled per e-mail and IP like sign-in attempts.
 */
export async function createPasswordResets(
  db: Db,
  input: { email: string; now: Date; ip: string },
): Promise<ResetLink[]> {
  const email = input.email.trim().toLowerCase();
  const keys = [`reset:${email}`, throttleKeys.ip(input.ip)];
  // Counted like failures (checked and counted in one step, so parallel requests cannot slip past the
  // limit) so one address cannot be used to flood someone's mailbox; the IP is checked, not counted.
  await db.system((tx) => reserveAttempt(tx, keys, input.now, [`reset:${email}`]));
  const entries = await db.system((tx) =>
    tx.query<Pick<SignInDirectoryRow, 'tenant_id' | 'user_id'>>(
      'select d.tenant_id, d.user_id from sign_in_directory d join tenants t on t.id = d.tenant_id where d.email_lower = $1 and t.is_active',
      [email],
    ),
  );
  const links: ResetLink[] = [];
  for (const entry of entries) {
    const token = crypto.randomBytes(32).toString('base64url');
    const created = await db.tenant(entry.tenant_id, async (tx) => {
      const [user] = await tx.query<Pick<UsersRow, 'email' | 'is_active' | 'sso_only'>>(
        'select email, is_active, sso_only from users where tenant_id = $1 and id = $2',
        [entry.tenant_id, entry.user_id],
      );
      // Users who sign in with single sign-on only have no password to reset.
      if (!user?.is_active || user.sso_only) return null;
      await tx.query(
        'insert into password_reset_tokens (tenant_id, user_id, token_hash, created_at, expires_at) values ($1, $2, $3, $4, $5)',
        [
          entry.tenant_id,
          entry.user_id,
          hashToken(token),
          input.now,
          new Date(input.now.getTime() + RESET_TOKEN_TTL_MS),
        ],
      );
      return user.email;
    });
    if (created) links.push({ email: created, tenantId: entry.tenant_id, token });
  }
  return links;
}

/**
 * Makes the invitation link of an invited user (same table as reset links, purpose 'invitation',
 * valid 7 days). Every earlier link of the user that is still open is voided, so resending an
 * invitation invalidates the previous e-mail. Returns the token to mail (only its hash is stored).
 */
export async function createInvitationToken(
  tx: Tx,
  input: { tenantId: string; userId: string; now: Date },
): Promise<string> {
  await tx.query(
    'update password_reset_tokens set used_at = $3 where tenant_id = $1 and user_id = $2 and used_at is null',
    [input.tenantId, input.userId, input.now],
  );
  const token = crypto.randomBytes(32).toString('base64url');
  await tx.query(
    `insert into password_reset_tokens (tenant_id, user_id, token_hash, created_at, expires_at, purpose)
     values ($1, $2, $3, $4, $5, 'invitation')`,
    [
      input.tenantId,
      input.userId,
      hashToken(token),
      input.now,
      new Date(input.now.getTime() + INVITATION_TOKEN_TTL_MS),
    ],
  );
  return token;
}

/** Voids every open link of a user (a disabled account's links stop working). */
export async function voidPasswordLinks(tx: Tx, input: { tenantId: string; userId: string; now: Date }): Promise<void> {
  await tx.query(
    'update password_reset_tokens set used_at = $3 where tenant_id = $1 and user_id = $2 and used_at is null',
    [input.tenantId, input.userId, input.now],
  );
}

const INVALID_LINK = 'This reset link is invalid or has expired. Ask for a new one.';

/** An open link: what it is for and whom it greets. */
export type ResetLinkInfo = { purpose: ResetPurpose; displayName: string };

/** The link's purpose and its user's name while it is usable (null: unknown, used, expired or the account disabled). */
export async function resetLinkInfo(
  db: Db,
  input: { tenantId: string; token: string; now: Date },
): Promise<ResetLinkInfo | null> {
  const [row] = await db.tenant(input.tenantId, (tx) =>
    tx.query<{ purpose: ResetPurpose; display_name: string }>(
      `select t.purpose, u.display_name from password_reset_tokens t
         join users u on u.tenant_id = t.tenant_id and u.id = t.user_id
        where t.tenant_id = $1 and t.token_hash = $2 and t.used_at is null and t.expires_at > $3 and u.is_active`,
      [input.tenantId, hashToken(input.token), input.now],
    ),
  );
  return row ? { purpose: row.purpose, displayName: row.display_name } : null;
}

/** Whether a link is still usable (the page shows the form or the "expired" message). */
export async function isResetTokenValid(
  db: Db,
  input: { tenantId: string; token: string; now: Date },
): Promise<boolean> {
  return (await resetLinkInfo(db, input)) !== null;
}

/**
 * Sets the new password through a reset link: the token is consumed in the same transaction (so two
 * racing uses cannot both succeed), other tokens of the user are voided, and every session ends.
 */
export async function completePasswordReset(
  db: Db,
  input: { tenantId: string; token: string; password: string; now: Date },
): Promise<void> {
  await db.tenant(input.tenantId, async (tx) => {
    // A disabled account's link does nothing (its user may not sign in anyway).
    const [row] = await tx.query<Pick<PasswordResetTokensRow, 'id' | 'user_id'>>(
      `update password_reset_tokens t set used_at = $3
       where t.tenant_id = $1 and t.token_hash = $2 and t.used_at is null and t.expires_at > $3
         and exists (select 1 from users u where u.tenant_id = t.tenant_id and u.id = t.user_id and u.is_active)
       returning t.id, t.user_id`,
      [input.tenantId, hashToken(input.token), input.now],
    );
    if (!row) throw new AppError('BAD_REQUEST', INVALID_LINK, { field: 'token' });
    await setUserPassword(tx, {
      tenantId: input.tenantId,
      userId: row.user_id,
      password: input.password,
      now: input.now,
    });
    await tx.query(
      'update password_reset_tokens set used_at = $3 where tenant_id = $1 and user_id = $2 and used_at is null',
      [input.tenantId, row.user_id, input.now],
    );
    await endUserSessions(tx, {
      tenantId: input.tenantId,
      userId: row.user_id,
      now: input.now,
      reason: 'password_reset',
    });
  });
}

/**
 * A signed-in user changes their password (also the forced change after sign-in). The current
 * password is required; other sessions end, the current one stays.
 */
export async function changePassword(
  db: Db,
  input: {
    tenantId: string;
    userId: string;
    sessionId: string | null;
    currentPassword: string;
    newPassword: string;
    now: Date;
    ip: string;
  },
): Promise<void> {
  const key = `change:${input.tenantId}:${input.userId}`;
  // The guess is counted before it is evaluated (atomic with the check); a right one takes it back.
  const attempt = await db.system((tx) => reserveAttempt(tx, [key, throttleKeys.ip(input.ip)], input.now));
  const [user] = await db.tenant(input.tenantId, (tx) =>
    tx.query<Pick<UsersRow, 'password_hash'>>('select password_hash from users where tenant_id = $1 and id = $2', [
      input.tenantId,
      input.userId,
    ]),
  );
  if (!(await verifyPassword(user?.password_hash, input.currentPassword))) {
    throw new AppError('BAD_REQUEST', 'The current password is not correct.', { field: 'current_password' });
  }
  await db.system((tx) => releaseAttempt(tx, attempt));
  await db.tenant(input.tenantId, async (tx) => {
    await setUserPassword(tx, {
      tenantId: input.tenantId,
      userId: input.userId,
      password: input.newPassword,
      now: input.now,
      field: 'new_password',
    });
    await endUserSessions(tx, {
      tenantId: input.tenantId,
      userId: input.userId,
      now: input.now,
      reason: 'password_changed',
      exceptSessionId: input.sessionId,
    });
  });
}
