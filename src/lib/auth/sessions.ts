import { AppError } from '../errors/app-error.ts';
import type { Db, Tx } from '../db/index.ts';
import type { DataPermission, Principal } from './principal.ts';
import type { SessionsRow } from '../db/schema.generated.ts';

/**
 * Server-side sessions. The cookie only names a row here ({ sessionId, tenantId }); every request
 * re-reads the row, the user and their roles, so revocation, disabling a user and role changes take
 * effect on the very next request.
 */

/** A signed-in session ends this long after sign-in whatever the activity (ASVS 7.3.2). */
export const ABSOLUTE_TIMEOUT_MS = 12 * 60 * 60_000;
/** A password-accepted, code-pending session must finish the second step within this time. */
export const MFA_PENDING_TIMEOUT_MS = 5 * 60_000;
/** The idle timeout when nothing else is configured. */
export const DEFAULT_IDLE_TIMEOUT_SECONDS = 60;
/** last_seen_at is written at most this often, to spare a write on every request. */
const TOUCH_INTERVAL_MS = 5_000;

export type SessionStage = 'mfa' | 'active';

export async function createSession(
  tx: Tx,
  input: {
    tenantId: string;
    userId: string;
    stage: SessionStage;
    method: string;
    now: Date;
    ip?: string;
    userAgent?: string;
    oidcIssuer?: string;
    oidcIdToken?: string;
  },
): Promise<string> {
  const lifetime = input.stage === 'mfa' ? MFA_PENDING_TIMEOUT_MS : ABSOLUTE_TIMEOUT_MS;
  const [row] = await tx.query<Pick<SessionsRow, 'id'>>(
    `insert into sessions (tenant_id, user_id, stage, method, created_at, last_seen_at, absolute_expires_at, ip, user_agent, oidc_issuer, oidc_id_token)
     values ($1, $2, $3, $4, $5, $5, $6, $7, $8, $9, $10) returning id`,
    [
      input.tenantId,
      input.userId,
      input.stage,
      input.method,
      input.now,
      new Date(input.now.getTime() + lifetime),
      input.ip ?? null,
      (input.userAgent ?? '').slice(0, 400) || null,
      input.oidcIssuer ?? null,
      input.oidcIdToken ?? null,
    ],
  );
  return row.id;
}

/** The idle timeout: admins their own session_timeout, others the tenant's auto_logout.timeout. */
export function idleTimeoutSeconds(input: {
  isAdmin: boolean;
  userSessionTimeout: number | null;
  tenantTimeout: unknown;
}): number {
  const positive = (value: unknown) => {
    const n = typeof value === 'string' ? Number(value) : value;
    return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : undefined;
  };
  if (input.isAdmin) return positive(input.userSessionTimeout) ?? DEFAULT_IDLE_TIMEOUT_SECONDS;
  return positive(input.tenantTimeout) ?? DEFAULT_IDLE_TIMEOUT_SECONDS;
}

type UserGrantRow = {
  user_id: string;
  email: string;
  display_name: string;
  language: string;
  is_active: boolean;
  password_change_required: boolean;
  session_timeout: number;
  tenant_timeout: unknown;
  is_admin: boolean;
  authorities: string[];
  data_permissions: DataPermission[];
  mfa_enrolment_required: boolean;
};

/**
 * The user, their roles' union and data permissions, the tenant's idle timeout, and whether the
 * password policy wants them to enrol in TOTP first (a role of theirs requires it and they have no
 * confirmed authenticator), in one query.
 */
const USER_GRANTS_SQL = `
  select u.id as user_id, u.email, u.display_name, u.language, u.is_active, u.password_change_required, u.session_timeout,
    t.config -> 'auto_logout' -> 'timeout' as tenant_timeout,
    coalesce((select bool_or(r.is_admin) from user_roles ur join roles r on r.tenant_id = ur.tenant_id and r.id = ur.role_id
              where ur.tenant_id = u.tenant_id and ur.user_id = u.id), false) as is_admin,
    coalesce((select array_agg(distinct a order by a) from user_roles ur join roles r on r.tenant_id = ur.tenant_id and r.id = ur.role_id
              cross join lateral unnest(r.authorities) as a where ur.tenant_id = u.tenant_id and ur.user_id = u.id), '{}') as authorities,
    coalesce((select json_agg(json_build_object('field', p.field, 'value', p.value) order by p.field, p.value)
              from user_data_permissions p where p.tenant_id = u.tenant_id and p.user_id = u.id), '[]'::json) as data_permissions,
    (exists (select 1 from password_policy_mfa_roles m join user_roles ur on ur.tenant_id = m.tenant_id and ur.role_id = m.role_id
             where ur.tenant_id = u.tenant_id and ur.user_id = u.id)
     and not exists (select 1 from user_totp x where x.tenant_id = u.tenant_id and x.user_id = u.id and x.confirmed_at is not null))
      as mfa_enrolment_required
  from users u join tenants t on t.id = u.tenant_id
  where u.tenant_id = $1 and u.id = $2`;

export async function loadUserGrants(tx: Tx, tenantId: string, userId: string): Promise<UserGrantRow | null> {
  const [row] = await tx.query<UserGrantRow>(USER_GRANTS_SQL, [tenantId, userId]);
  return row ?? null;
}

export function principalFromGrants(
  tenantId: string,
  row: UserGrantRow,
  via: Principal['via'],
  sessionId: string | null,
): Principal {
  return {
    tenantId,
    userId: row.user_id,
    displayName: row.display_name,
    email: row.email,
    isAdmin: row.is_admin,
    authorities: row.authorities,
    dataPermissions: row.data_permissions,
    language: row.language,
    via,
    sessionId,
    passwordChangeRequired: row.password_change_required,
    // A password session only: API tokens are not interactive, and SSO sign-ins prove the second factor at the provider.
    mfaEnrolmentRequired: via === 'session' && row.mfa_enrolment_required,
    sessionTimeout: row.session_timeout,
    idleTimeout: idleTimeoutSeconds({
      isAdmin: row.is_admin,
      userSessionTimeout: row.session_timeout,
      tenantTimeout: row.tenant_timeout,
    }),
  };
}

export type SessionCheck =
  | { status: 'active'; principal: Principal }
  | { status: 'mfa'; tenantId: string; userId: string; sessionId: string }
  | { status: 'ended'; reason: 'unknown' | 'revoked' | 'user_disabled' | 'idle' | 'absolute' };

type SessionRow = Pick<
  SessionsRow,
  'id' | 'user_id' | 'last_seen_at' | 'absolute_expires_at' | 'revoked_at' | 'method'
> & {
  stage: SessionStage;
};

/**
 * Checks a session on a request: it must exist, not be revoked, belong to an active user and be
 * within both the idle and the absolute timeout. An expired session is revoked on the spot so it
 * can never come back. `isActivity` false (background polling) checks without extending idleness.
 */
export async function checkSession(
  db: Db,
  input: { tenantId: string; sessionId: string; now: Date; isActivity?: boolean },
): Promise<SessionCheck> {
  if (!/^[0-9a-f-]{36}$/i.test(input.sessionId)) return { status: 'ended', reason: 'unknown' };
  return db.tenant(input.tenantId, async (tx) => {
    const [session] = await tx.query<SessionRow>(
      'select id, user_id, stage, method, last_seen_at, absolute_expires_at, revoked_at from sessions where tenant_id = $1 and id = $2',
      [input.tenantId, input.sessionId],
    );
    if (!session) return { status: 'ended', reason: 'unknown' } as const;
    if (session.revoked_at) return { status: 'ended', reason: 'revoked' } as const;
    const grants = await loadUserGrants(tx, input.tenantId, session.user_id);
    const end = async (reason: 'user_disabled' | 'idle' | 'absolute') => {
      await revoke(tx, input.tenantId, session.id, reason, input.now);
      return { status: 'ended', reason } as const;
    };
    if (!grants || !grants.is_active) return end('user_disabled');
    if (input.now >= session.absolute_expires_at) return end('absolute');
    if (session.stage === 'mfa')
      return { status: 'mfa', tenantId: input.tenantId, userId: session.user_id, sessionId: session.id } as const;
    const principal = principalFromGrants(input.tenantId, grants, 'session', session.id);
    if (session.method === 'sso') principal.mfaEnrolmentRequired = false;
    if (input.now.getTime() - session.last_seen_at.getTime() > principal.idleTimeout * 1000) return end('idle');
    if (input.isActivity !== false && input.now.getTime() - session.last_seen_at.getTime() >= TOUCH_INTERVAL_MS) {
      await tx.query('update sessions set last_seen_at = $3 where tenant_id = $1 and id = $2', [
        input.tenantId,
        session.id,
        input.now,
      ]);
    }
    return { status: 'active', principal } as const;
  });
}

async function revoke(tx: Tx, tenantId: string, sessionId: string, reason: string, now: Date): Promise<void> {
  await tx.query(
    'update sessions set revoked_at = $3, revoked_reason = $4 where tenant_id = $1 and id = $2 and revoked_at is null',
    [tenantId, sessionId, now, reason],
  );
}

/** Sign-out: the session row is revoked, so the cookie is worthless even if someone kept a copy. */
export async function endSession(
  tx: Tx,
  input: { tenantId: string; sessionId: string; now: Date; reason?: string },
): Promise<{ oidcIssuer: string | null; oidcIdToken: string | null } | null> {
  const [row] = await tx.query<Pick<SessionsRow, 'oidc_issuer' | 'oidc_id_token'>>(
    `update sessions set revoked_at = $3, revoked_reason = $4 where tenant_id = $1 and id = $2 and revoked_at is null
     returning oidc_issuer, oidc_id_token`,
    [input.tenantId, input.sessionId, input.now, input.reason ?? 'logout'],
  );
  return row ? { oidcIssuer: row.oidc_issuer, oidcIdToken: row.oidc_id_token } : null;
}

/** Ends every session of a user ("sign out everywhere", password change, an administrator's action). */
export async function endUserSessions(
  tx: Tx,
  input: { tenantId: string; userId: string; now: Date; reason: string; exceptSessionId?: string | null },
): Promise<number> {
  const rows = await tx.query(
    `update sessions set revoked_at = $3, revoked_reason = $4
     where tenant_id = $1 and user_id = $2 and revoked_at is null and ($5::uuid is null or id <> $5::uuid) returning id`,
    [input.tenantId, input.userId, input.now, input.reason, input.exceptSessionId ?? null],
  );
  return rows.length;
}

export type SessionSummary = Pick<
  SessionsRow,
  'id' | 'created_at' | 'last_seen_at' | 'ip' | 'user_agent' | 'method'
> & { is_current: boolean };

/** The user's signed-in sessions that are still alive, newest first (profile page, "active sessions"). */
export async function listUserSessions(
  tx: Tx,
  input: { tenantId: string; userId: string; now: Date; currentSessionId: string | null },
): Promise<SessionSummary[]> {
  const rows = await tx.query<Omit<SessionSummary, 'is_current'>>(
    `select id, created_at, last_seen_at, ip, user_agent, method from sessions
     where tenant_id = $1 and user_id = $2 and stage = 'active' and revoked_at is null and absolute_expires_at > $3
     order by last_seen_at desc`,
    [input.tenantId, input.userId, input.now],
  );
  return rows.map((row) => ({ ...row, is_current: row.id === input.currentSessionId }));
}

/** Ends one of the user's own sessions by id (the session list's "end" button). */
export async function endOwnSession(
  tx: Tx,
  input: { tenantId: string; userId: string; sessionId: string; now: Date },
): Promise<void> {
  const rows = await tx.query(
    `update sessions set revoked_at = $4, revoked_reason = 'ended_by_user' where tenant_id = $1 and user_id = $2 and id = $3 and revoked_at is null returning id`,
    [input.tenantId, input.userId, input.sessionId, input.now],
  );
  if (rows.length === 0) throw new AppError('NOT_FOUND', 'This session does not exist or has already ended.');
}
