import * as client from 'openid-client';
import { assertFeatureEnabled, featureAccess } from '../plans/plans.ts';
import { AppError } from '../errors/app-error.ts';
import type { Db } from '../db/index.ts';
import { logger } from '../observability/log.ts';
import type { Tenant } from '../tenancy/tenant.ts';
import { createSession } from './sessions.ts';
import type { OidcAuthRequestsRow, OidcLinksRow, RolesRow, UsersRow } from '../db/schema.generated.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { lockAdministrators } from '../users/rules.ts';
import type { Tx } from '../db/index.ts';
import { openSecret } from './secret-box.ts';

/**
 * Single sign-on per tenant with OpenID Connect (authorization code + PKCE + state + nonce) through
 * openid-client. The tenant configuration's `login.sso` names the provider:
 *   { "login": { "sso": { "issuer": "https://idp.example.com", "client_id": "…", "client_secret": "…", "label": "Sign in with Example" } } }
 * Users are linked by (issuer, subject). The first time, a verified e-mail that matches an active
 * user of the tenant creates the link; afterwards only the link counts (an e-mail change at the
 * provider cannot take over another account).
 *
 * Accounts are not created by single sign-on: a person gets an account by invitation (which counts
 * against the plan's seats), and SSO signs in existing accounts only. The roles of `login.sso.roles`
 * are given at a user's first single sign-on (when the link is made) if they have no role yet, so an
 * administrator can invite SSO users without choosing roles and let the provider's sign-in settle it.
 *
 * The client secret is stored encrypted (src/lib/auth/secret-box.ts) and decrypted only here.
 */
export type SsoConfig = { issuer: string; clientId: string; clientSecret: string; label: string; roles: string[] };

/** An authorisation request must come back within this time. */
export const AUTH_REQUEST_TTL_MS = 10 * 60_000;

export function ssoConfigOf(tenant: Pick<Tenant, 'config'>): SsoConfig | null {
  const sso = (tenant.config?.login as { sso?: Record<string, unknown> } | undefined)?.sso;
  if (!sso || typeof sso.issuer !== 'string' || typeof sso.client_id !== 'string') return null;
  return {
    issuer: sso.issuer,
    clientId: sso.client_id,
    clientSecret: typeof sso.client_secret === 'string' ? readSecret(sso.client_secret) : '',
    label: typeof sso.label === 'string' && sso.label ? sso.label : 'Single sign-on',
    roles: Array.isArray(sso.roles) ? sso.roles.filter((r): r is string => typeof r === 'string') : [],
  };
}

/** The stored client secret in clear; '' (the provider then refuses us) when it cannot be decrypted. */
function readSecret(stored: string): string {
  try {
    return openSecret(stored);
  } catch (error) {
    logger.warn('sso client secret unreadable (SESSION_SECRET changed?); enter it again in the settings', {
      error: String(error),
    });
    return '';
  }
}

/** Plain http is allowed only for a provider on this machine (tests, local development). */
function isLocalIssuer(issuer: string): boolean {
  const url = new URL(issuer);
  return url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
}

const configurations = new Map<string, Promise<client.Configuration>>();

/** Discovery result per (issuer, client), cached for the process; a failed discovery is retried next time. */
export function providerConfiguration(sso: SsoConfig): Promise<client.Configuration> {
  const key = `${sso.issuer}\n${sso.clientId}\n${sso.clientSecret}`;
  let found = configurations.get(key);
  if (!found) {
    found = client.discovery(new URL(sso.issuer), sso.clientId, sso.clientSecret || undefined, undefined, {
      execute: isLocalIssuer(sso.issuer) ? [client.allowInsecureRequests] : [],
      timeout: 10,
    });
    configurations.set(key, found);
    found.catch(() => configurations.delete(key));
  }
  return found;
}

/** Starts sign-in at the provider: stores state, nonce and PKCE verifier, returns where to send the browser. */
export async function startSso(
  db: Db,
  input: {
    tenant: Tenant;
    callbackUrl: string;
    redirectTo: string;
    now: Date;
    /** 'test': the settings page's "test sign-in"; its callback reports the outcome and signs nobody in. */
    purpose?: 'sign-in' | 'test';
  },
): Promise<{ url: string; state: string }> {
  const sso = ssoConfigOf(input.tenant);
  if (!sso) throw new AppError('NOT_FOUND', 'Single sign-on is not set up for this lender.');
  // Single sign-on is a plan feature: a lender whose plan lacks it signs in with passwords.
  await db.tenant(input.tenant.id, (tx) => assertFeatureEnabled(tx, input.tenant.id, 'sso'));
  const config = await providerConfiguration(sso).catch((error: unknown) => {
    throw new AppError(
      'UNAVAILABLE',
      'The single sign-on provider cannot be reached right now; please try again shortly.',
      { cause: error },
    );
  });
  const state = client.randomState();
  const nonce = client.randomNonce();
  const codeVerifier = client.randomPKCECodeVerifier();
  const codeChallenge = await client.calculatePKCECodeChallenge(codeVerifier);
  await db.system((tx) =>
    tx.query(
      `insert into oidc_auth_requests (state, tenant_id, nonce, code_verifier, redirect_to, created_at, expires_at, purpose) values ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        state,
        input.tenant.id,
        nonce,
        codeVerifier,
        input.redirectTo,
        input.now,
        new Date(input.now.getTime() + AUTH_REQUEST_TTL_MS),
        input.purpose ?? 'sign-in',
      ],
    ),
  );
  await db.system((tx) => tx.query('delete from oidc_auth_requests where expires_at < $1', [input.now]));
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: input.callbackUrl,
    scope: 'openid email profile',
    response_type: 'code',
    state,
    nonce,
    code_challenge: codeChallenge,
    code_challenge_method: 'S256',
  });
  return { url: url.href, state };
}

const SSO_FAILED = 'Single sign-on failed. Please try again.';

/**
 * Finishes sign-in on the callback. Refuses a state that is unknown, expired, already used or not
 * the one this browser started with (the cookie), and anything openid-client refuses: wrong nonce,
 * issuer or audience, a reused or stolen code, a bad PKCE verifier. Returns a new session.
 */
type CallbackInput = {
  callbackUrl: string;
  query: URLSearchParams;
  browserState: string | undefined;
  now: Date;
  ip: string;
  userAgent?: string;
};
export type SsoSignIn = { tenantId: string; userId: string; sessionId: string; redirectTo: string };
/**
 * Why a "test sign-in" failed, as a fixed code the settings page words itself (never the provider's
 * text, which goes to the log only): the provider answered with an error, the code exchange or the ID
 * token checks failed, or the test could not start (no settings, provider unreachable).
 */
export const SSO_TEST_FAILURES = ['provider_error', 'token_failed', 'start_failed'] as const;
export type SsoTestFailure = (typeof SSO_TEST_FAILURES)[number];
/** What a "test sign-in" found: the identity the provider vouched for, or why it failed. */
export type SsoTestOutcome =
  | { ok: true; tenantId: string; subject: string; email: string | null; isLinked: boolean }
  | { ok: false; tenantId: string; code: SsoTestFailure };

export async function finishSso(db: Db, input: CallbackInput): Promise<SsoSignIn> {
  const done = await finishSsoCallback(db, input);
  if (done.kind !== 'signed-in') throw new AppError('UNAUTHORIZED', SSO_FAILED, { internal: 'a test request' });
  return done.signIn;
}

/**
 * The callback: a sign-in (as finishSso), or the outcome of a "test sign-in" started from the
 * settings page, which exchanges the code and checks the ID token exactly as a sign-in does but
 * creates no session and links nobody.
 */
export async function finishSsoCallback(
  db: Db,
  input: CallbackInput,
): Promise<{ kind: 'signed-in'; signIn: SsoSignIn } | { kind: 'test'; outcome: SsoTestOutcome }> {
  const state = input.query.get('state');
  if (!state || !input.browserState || state !== input.browserState) {
    throw new AppError('UNAUTHORIZED', SSO_FAILED, { internal: 'state does not match the browser' });
  }
  const [request] = await db.system((tx) =>
    tx.query<Pick<OidcAuthRequestsRow, 'tenant_id' | 'nonce' | 'code_verifier' | 'redirect_to' | 'purpose'>>(
      'delete from oidc_auth_requests where state = $1 and expires_at > $2 returning tenant_id, nonce, code_verifier, redirect_to, purpose',
      [state, input.now],
    ),
  );
  if (!request) throw new AppError('UNAUTHORIZED', SSO_FAILED, { internal: 'unknown, expired or used state' });
  if (request.purpose === 'test') {
    try {
      const identity = await redeem(db, request, state, input);
      const [linked] = await db.tenant(request.tenant_id, (tx) =>
        tx.query<Pick<OidcLinksRow, 'user_id'>>(
          `select l.user_id from oidc_links l where l.issuer = $1 and l.subject = $2
           union all select u.id from users u where $3::text is not null and lower(u.email) = $3 and u.is_active limit 1`,
          [identity.issuer, identity.subject, identity.emailVerified ? identity.email : null],
        ),
      );
      return {
        kind: 'test',
        outcome: {
          ok: true,
          tenantId: request.tenant_id,
          subject: identity.subject,
          email: identity.email,
          isLinked: Boolean(linked),
        },
      };
    } catch (error) {
      const reason = error instanceof AppError ? (error.internal ?? error.message) : String(error);
      const code: SsoTestFailure = input.query.get('error') ? 'provider_error' : 'token_failed';
      logger.warn('sso test sign-in failed', { tenant_id: request.tenant_id, code, reason });
      return { kind: 'test', outcome: { ok: false, tenantId: request.tenant_id, code } };
    }
  }
  const { issuer, subject, email, emailVerified, idToken, roles } = await redeem(db, request, state, input);
  const signIn = await db.tenant(request.tenant_id, async (tx) => {
    const [linked] = await tx.query<Pick<OidcLinksRow, 'user_id'>>(
      'select user_id from oidc_links where tenant_id = $1 and issuer = $2 and subject = $3',
      [request.tenant_id, issuer, subject],
    );
    let userId = linked?.user_id;
    if (!userId && email && emailVerified) {
      const [byEmail] = await tx.query<Pick<UsersRow, 'id'>>(
        'select id from users where tenant_id = $1 and lower(email) = $2 and is_active',
        [request.tenant_id, email],
      );
      if (byEmail) {
        await tx.query(
          'insert into oidc_links (tenant_id, issuer, subject, user_id, created_at) values ($1, $2, $3, $4, $5)',
          [request.tenant_id, issuer, subject, byEmail.id, input.now],
        );
        userId = byEmail.id;
        await giveFirstSignInRoles(tx, request.tenant_id, userId, roles, { ip: input.ip });
      }
    }
    if (!userId)
      throw new AppError('UNAUTHORIZED', 'No account of this lender is linked to this single sign-on identity.', {
        internal: `unlinked ${issuer} ${subject} ${email} ${String(emailVerified)}`,
      });
    const [user] = await tx.query<Pick<UsersRow, 'is_active'>>(
      'select is_active from users where tenant_id = $1 and id = $2',
      [request.tenant_id, userId],
    );
    if (!user?.is_active) throw new AppError('UNAUTHORIZED', 'This account is disabled.');
    const sessionId = await createSession(tx, {
      tenantId: request.tenant_id,
      userId,
      stage: 'active',
      method: 'sso',
      now: input.now,
      ip: input.ip,
      userAgent: input.userAgent,
      oidcIssuer: issuer,
      oidcIdToken: idToken,
    });
    return { tenantId: request.tenant_id, userId, sessionId, redirectTo: request.redirect_to };
  });
  return { kind: 'signed-in', signIn };
}

/**
 * The configured SSO roles for a user signing in by SSO for the first time, only when they have no
 * role at all (roles an administrator chose are never widened). Role ids that no longer exist are skipped.
 * Audited as a 'system' change (user.sso_roles_granted) in the sign-in's transaction; an Administrator
 * role is given under the lock of the one-administrator rule (src/lib/users/rules.ts).
 */
async function giveFirstSignInRoles(
  tx: Tx,
  tenantId: string,
  userId: string,
  roleIds: string[],
  audit: { ip?: string | null },
): Promise<void> {
  if (roleIds.length === 0) return;
  const [held] = await tx.query<{ count: number }>(
    'select count(*)::int as count from user_roles where tenant_id = $1 and user_id = $2',
    [tenantId, userId],
  );
  if (held.count > 0) return;
  const roles = await tx.query<Pick<RolesRow, 'name' | 'is_admin'> & { id: string }>(
    'select id::text as id, name, is_admin from roles where tenant_id = $1 and id::text = any($2::text[]) order by name',
    [tenantId, roleIds],
  );
  if (roles.length === 0) return;
  if (roles.some((r) => r.is_admin)) await lockAdministrators(tx, tenantId);
  await tx.query(
    `insert into user_roles (tenant_id, user_id, role_id)
     select $1, $2, r.id::uuid from unnest($3::text[]) as r(id)
     on conflict do nothing`,
    [tenantId, userId, roles.map((r) => r.id)],
  );
  await recordAudit(tx, {
    tenantId,
    actorId: 'system',
    actorKind: 'system',
    ip: audit.ip ?? null,
    action: 'user.sso_roles_granted',
    objectType: 'user',
    objectId: userId,
    before: { roles: [] },
    after: { roles: roles.map((r) => r.name) },
    outcome: 'success',
  });
}

/** Exchanges the code and checks the ID token (nonce, issuer, audience, PKCE): the identity the provider vouches for. */
async function redeem(
  db: Db,
  request: Pick<OidcAuthRequestsRow, 'tenant_id' | 'nonce' | 'code_verifier'>,
  state: string,
  input: CallbackInput,
): Promise<{
  issuer: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
  idToken?: string;
  /** The roles of the tenant's SSO settings, for a first sign-in. */
  roles: string[];
}> {
  const [tenantRow] = await db.system((tx) =>
    tx.query<{ config: Record<string, unknown> }>('select config from tenants where id = $1 and is_active', [
      request.tenant_id,
    ]),
  );
  const sso = tenantRow ? ssoConfigOf(tenantRow) : null;
  if (!sso) throw new AppError('UNAUTHORIZED', SSO_FAILED, { internal: 'tenant has no sso configuration' });
  const access = await db.tenant(request.tenant_id, (tx) => featureAccess(tx, request.tenant_id, 'sso'));
  if (!access.isEnabled)
    throw new AppError('UNAUTHORIZED', SSO_FAILED, { internal: 'single sign-on is not in the tenant plan' });
  const config = await providerConfiguration(sso);
  const currentUrl = new URL(input.callbackUrl);
  for (const [key, value] of input.query) currentUrl.searchParams.append(key, value);
  let claims: client.IDToken | undefined;
  let idToken: string | undefined;
  try {
    const tokens = await client.authorizationCodeGrant(config, currentUrl, {
      pkceCodeVerifier: request.code_verifier,
      expectedState: state,
      expectedNonce: request.nonce,
      idTokenExpected: true,
    });
    claims = tokens.claims();
    idToken = tokens.id_token;
    // Providers that conform ID token claims to the response type (e.g. oidc-provider) return the
    // e-mail only from the userinfo endpoint; ask it, bound to the ID token's subject.
    if (claims && typeof claims.email !== 'string') {
      const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
      claims = { ...claims, email: info.email, email_verified: info.email_verified };
    }
  } catch (error) {
    // openid-client says which check failed (the ID token's nonce, the provider's invalid_grant…) in its cause.
    const detail = error as {
      cause?: { message?: string; error_description?: string };
      error?: string;
      error_description?: string;
    } | null;
    const reason = [
      String(error),
      detail?.cause?.message,
      detail?.error,
      detail?.error_description ?? detail?.cause?.error_description,
    ]
      .filter(Boolean)
      .join(' | ');
    logger.warn('sso refused', { tenant_id: request.tenant_id, reason });
    throw new AppError('UNAUTHORIZED', SSO_FAILED, { internal: reason, cause: error });
  }
  if (!claims?.sub) throw new AppError('UNAUTHORIZED', SSO_FAILED, { internal: 'no subject' });
  return {
    issuer: claims.iss,
    subject: claims.sub,
    email: typeof claims.email === 'string' ? claims.email.toLowerCase() : null,
    emailVerified: claims.email_verified === true,
    idToken,
    roles: sso.roles,
  };
}

/**
 * RP-initiated logout: where to send the browser after our session ended, when the provider has an
 * end_session_endpoint; null otherwise (then the login page).
 */
export async function ssoLogoutUrl(
  tenant: Tenant,
  input: { idToken: string | null; postLogoutRedirectUri: string },
): Promise<string | null> {
  const sso = ssoConfigOf(tenant);
  if (!sso) return null;
  try {
    const config = await providerConfiguration(sso);
    if (!config.serverMetadata().end_session_endpoint) return null;
    const params: Record<string, string> = {
      post_logout_redirect_uri: input.postLogoutRedirectUri,
      client_id: sso.clientId,
    };
    if (input.idToken) params.id_token_hint = input.idToken;
    return client.buildEndSessionUrl(config, params).href;
  } catch (error) {
    logger.warn('sso logout url unavailable', { error: String(error) });
    return null;
  }
}
