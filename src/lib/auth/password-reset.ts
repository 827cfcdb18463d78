import crypto from 'node:crypto';
import { AppError } from '../errors/app-error.ts';
import type { Db } from '../db/index.ts';
import { setUserPassword, verifyPassword } from './passwords.ts';
import { endUserSessions } from './sessions.ts';
import { releaseAttempt, reserveAttempt, throttleKeys } from './throttle.ts';
import type { PasswordResetTokensRow, SignInDirectoryRow, UsersRow } from '../db/schema.generated.ts';

/** A reset link works once and for this long. */
export const RESET_TOKEN_TTL_MS = 60 * 60_000;

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
      const [user] = await tx.query<Pick<UsersRow, 'email' | 'is_active'>>(
        'select email, is_active from users where tenant_id = $1 and id = $2',
        [entry.tenant_id, entry.user_id],
      );
      if (!user?.is_active) return null;
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

const INVALID_LINK = 'This reset link is invalid or has expired. Ask for a new one.';

/** Whether a link is still usable (the page shows the form or the "expired" message). */
export async function isResetTokenValid(
  db: Db,
  input: { tenantId: string; token: string; now: Date },
): Promise<boolean> {
  const rows = await db.tenant(input.tenantId, (tx) =>
    tx.query(
      'select 1 from password_reset_tokens where tenant_id = $1 and token_hash = $2 and used_at is null and expires_at > $3',
      [input.tenantId, hashToken(input.token), input.now],
    ),
  );
  return rows.length > 0;
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
    const [row] = await tx.query<Pick<PasswordResetTokensRow, 'id' | 'user_id'>>(
      `update password_reset_tokens set used_at = $3
       where tenant_id = $1 and token_hash = $2 and used_at is null and expires_at > $3 returning id, user_id`,
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
