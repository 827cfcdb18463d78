import crypto from 'node:crypto';
import { AppError } from '../errors/app-error.ts';
import type { Db, Tx } from '../db/index.ts';
import { consumeUsage } from '../plans/plans.ts';
import type { Principal } from './principal.ts';
import { hashToken } from './password-reset.ts';
import { loadUserGrants, principalFromGrants } from './sessions.ts';
import type { ApiTokensRow } from '../db/schema.generated.ts';

/**
 * Per-tenant API tokens for API clients: `Authorization: Bearer <token>` plus `x-tenant-id`.
 * The token is shown once at creation; only its SHA-256 is stored (a random 256-bit token needs no
 * slow hash). It acts with the roles of the user it belongs to, so revoking a role applies to it too.
 */
export const TOKEN_PREFIX = 'lbo_';

export type ApiTokenSummary = Pick<
  ApiTokensRow,
  'id' | 'name' | 'user_id' | 'created_at' | 'last_used_at' | 'expires_at' | 'revoked_at'
>;

export async function createApiToken(
  tx: Tx,
  input: { tenantId: string; createdBy: Principal; name: string; userId?: string; expiresAt?: Date | null; now: Date },
): Promise<{ id: string; token: string }> {
  if (!input.createdBy.isAdmin) throw new AppError('FORBIDDEN', 'Only administrators can create API tokens.');
  const name = input.name.trim();
  if (!name) throw new AppError('BAD_REQUEST', 'Give the token a name.', { field: 'name' });
  const userId = input.userId ?? input.createdBy.userId;
  const [user] = await tx.query('select 1 from users where tenant_id = $1 and id = $2 and is_active', [
    input.tenantId,
    userId,
  ]);
  if (!user)
    throw new AppError('BAD_REQUEST', 'The token must belong to an active user of this lender.', { field: 'user_id' });
  // The plan's limit on tokens in force, checked under a lock held until this insert commits.
  await consumeUsage(tx, input.tenantId, 'api_tokens');
  const token = `${TOKEN_PREFIX}${crypto.randomBytes(32).toString('base64url')}`;
  const [row] = await tx.query<Pick<ApiTokensRow, 'id'>>(
    `insert into api_tokens (tenant_id, name, user_id, token_hash, created_by, created_at, expires_at) values ($1, $2, $3, $4, $5, $6, $7) returning id`,
    [input.tenantId, name, userId, hashToken(token), input.createdBy.userId, input.now, input.expiresAt ?? null],
  );
  return { id: row.id, token };
}

export async function listApiTokens(tx: Tx, tenantId: string): Promise<ApiTokenSummary[]> {
  return tx.query<ApiTokenSummary>(
    'select id, name, user_id, created_at, last_used_at, expires_at, revoked_at from api_tokens where tenant_id = $1 order by created_at desc',
    [tenantId],
  );
}

export async function revokeApiToken(tx: Tx, input: { tenantId: string; id: string; now: Date }): Promise<void> {
  const rows = await tx.query(
    'update api_tokens set revoked_at = $3 where tenant_id = $1 and id = $2 and revoked_at is null returning id',
    [input.tenantId, input.id, input.now],
  );
  if (rows.length === 0) throw new AppError('NOT_FOUND', 'This API token does not exist or is already revoked.');
}

/**
 * The principal of a bearer token, or null when the token is unknown, revoked, expired, of another
 * tenant, or its user is disabled. Row-level security scopes the lookup to the x-tenant-id tenant,
 * so a token of tenant A sent with x-tenant-id B matches nothing.
 */
export async function authenticateApiToken(
  db: Db,
  input: { tenantId: string; token: string; now: Date },
): Promise<Principal | null> {
  if (!input.token.startsWith(TOKEN_PREFIX) || input.token.length > 200) return null;
  return db.tenant(input.tenantId, async (tx) => {
    const [row] = await tx.query<Pick<ApiTokensRow, 'id' | 'user_id' | 'expires_at' | 'last_used_at'>>(
      'select id, user_id, expires_at, last_used_at from api_tokens where tenant_id = $1 and token_hash = $2 and revoked_at is null',
      [input.tenantId, hashToken(input.token)],
    );
    if (!row || (row.expires_at && row.expires_at <= input.now)) return null;
    const grants = await loadUserGrants(tx, input.tenantId, row.user_id);
    if (!grants?.is_active) return null;
    if (!row.last_used_at || input.now.getTime() - row.last_used_at.getTime() > 60_000) {
      await tx.query('update api_tokens set last_used_at = $3 where tenant_id = $1 and id = $2', [
        input.tenantId,
        row.id,
        input.now,
      ]);
    }
    // An API client has no password to change and no idle browser: those fields do not apply.
    return { ...principalFromGrants(input.tenantId, grants, 'token', null), passwordChangeRequired: false };
  });
}
