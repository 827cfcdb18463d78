/**
 * The access decision for one request, deny by default: a path the manifest does not list is a 404,
 * a signed-out visitor goes to the login, a user without the route's permission gets a 403. Pure: the
 * middleware step (src/server/middleware/guard.ts) feeds it the canonical path and the principal the
 * authenticate step resolved, then acts on the answer.
 */
import type { Principal } from './principal.ts';
import {
  type ApiRouteEntry,
  type HttpMethod,
  type RouteEntry,
  canCall,
  canOpen,
  forbiddenPagePath,
  matchApiRoute,
  matchRoute,
  notFoundPagePath,
} from './route-manifest.ts';

/**
 * Paths served without a user and outside the manifest: built assets (hashed, cached immutably by the
 * node adapter), favicons, self-hosted fonts, the health check.
 */
const PUBLIC_PREFIXES = ['/_astro/', '/fonts/'] as const;
const PUBLIC_EXACT = new Set(['/healthz', '/robots.txt']);

export function isPublicAsset(path: string): boolean {
  return PUBLIC_EXACT.has(path) || path.startsWith('/favicon') || PUBLIC_PREFIXES.some((p) => path.startsWith(p));
}

export const LOGIN_PATH = '/user/login';
export const RESET_PASSWORD_PATH = '/user/reset-password';
export const MFA_PATH = '/user/mfa';
/**
 * API calls a user who must change their password can still make (to do it, and to know who they are).
 */
const PASSWORD_CHANGE_API = ['/v1/auth/', '/v1/users/me'];
/**
 * API calls a user who must enrol in TOTP can still make, exactly these paths: the enrolment itself
 * (/user/mfa is a plain form page; these are its JSON twins), the session check and sign-out the
 * shell makes, and who they are. Nothing else under /v1/auth/: an API token or another session made
 * before enrolling would carry on without the second factor.
 */
const MFA_ENROLMENT_API = new Set([
  '/v1/auth/mfa',
  '/v1/auth/mfa/enrolment',
  '/v1/auth/session',
  '/v1/auth/sign-out',
  '/v1/users/me',
]);

export type GuardDecision =
  /** Go on. `event` is the page-view event to record once the page renders successfully. */
  | { kind: 'allow'; route: RouteEntry | ApiRouteEntry | null; event: string | null }
  /** A page request that must go elsewhere (login, reset password). */
  | { kind: 'redirect'; location: string }
  /** Render the section's 403 page (`page`) with status 403. */
  | { kind: 'forbidden'; page: string }
  /** Render the section's 404 page (`page`) with status 404. */
  | { kind: 'not-found'; page: string }
  /** A JSON error for /v1; `audit` is the refused command to record in the audit log (src/server/middleware/guard.ts). */
  | {
      kind: 'api-error';
      status: 401 | 403 | 404 | 405;
      code: 'UNAUTHORIZED' | 'FORBIDDEN' | 'NOT_FOUND' | 'METHOD_NOT_ALLOWED';
      message: string;
      /** The message in the caller's language, when there is a translation (i18n key). */
      messageKey?: string;
      allow?: string;
      audit?: RefusalAudit;
    };

/** A command the guard refused for lack of permission, as the audit log names it. */
export type RefusalAudit = { action: string; objectType: string; objectId: string };

export type GuardInput = {
  method: string;
  /** Canonical, decoded path (src/lib/http/canonical-path.ts). */
  path: string;
  /** The query string including '?', or ''. */
  search: string;
  principal: Pick<Principal, 'isAdmin' | 'authorities' | 'passwordChangeRequired' | 'mfaEnrolmentRequired'> | undefined;
};

export function loginRedirect(path: string, search: string): string {
  return `${LOGIN_PATH}?redirect=${encodeURIComponent(path + search)}`;
}

export function decideAccess({ method, path, search, principal }: GuardInput): GuardDecision {
  if (isPublicAsset(path)) return { kind: 'allow', route: null, event: null };
  if (path === '/v1' || path.startsWith('/v1/')) return decideApi(method.toUpperCase(), path, principal);

  const match = matchRoute(path);
  if (match?.entry.rule.kind === 'public') return { kind: 'allow', route: match.entry, event: match.entry.event };
  // Signed out: every other page, known or not, goes to login (an unknown path does not reveal that it is unknown).
  if (!principal) return { kind: 'redirect', location: loginRedirect(path, search) };
  if (principal.passwordChangeRequired) return { kind: 'redirect', location: RESET_PASSWORD_PATH };
  if (principal.mfaEnrolmentRequired) return { kind: 'redirect', location: MFA_PATH };
  // Astro-internal endpoints for signed-in users (server islands) render components under the same locals.
  if (path.startsWith('/_server-islands/')) return { kind: 'allow', route: null, event: null };
  if (!match) return { kind: 'not-found', page: notFoundPagePath(path) };
  if (!canOpen(principal, match.entry)) return { kind: 'forbidden', page: forbiddenPagePath(path) };
  return { kind: 'allow', route: match.entry, event: match.entry.event };
}

function decideApi(method: string, path: string, principal: GuardInput['principal']): GuardDecision {
  const match = matchApiRoute(path);
  const methodKey = (method === 'HEAD' ? 'GET' : method) as HttpMethod;
  const access = match?.entry.methods[methodKey];
  if (access?.kind === 'public') return { kind: 'allow', route: match!.entry, event: null };
  if (!principal) return { kind: 'api-error', status: 401, code: 'UNAUTHORIZED', message: 'Sign in to continue.' };
  if (!match) return { kind: 'api-error', status: 404, code: 'NOT_FOUND', message: 'No such API route.' };
  if (!access) {
    // RFC 9110 §15.5.6: a 405 says which methods the resource answers.
    const methods = Object.keys(match.entry.methods);
    const allow = [...methods, ...(methods.includes('GET') ? ['HEAD'] : [])].join(', ');
    return {
      kind: 'api-error',
      status: 405,
      code: 'METHOD_NOT_ALLOWED',
      message: `${method} is not allowed here.`,
      allow,
    };
  }
  if (principal.passwordChangeRequired && !PASSWORD_CHANGE_API.some((p) => path.startsWith(p))) {
    return { kind: 'api-error', status: 403, code: 'FORBIDDEN', message: 'Change your password to continue.' };
  }
  if (principal.mfaEnrolmentRequired && !MFA_ENROLMENT_API.has(path)) {
    return { kind: 'api-error', status: 403, code: 'FORBIDDEN', message: 'Set up two-step sign-in to continue.' };
  }
  if (!canCall(principal, access)) {
    const action = match.entry.audit?.actions[methodKey];
    const audit = action
      ? { action, objectType: match.entry.audit!.objectType, objectId: match.params.id ?? '' }
      : undefined;
    return {
      kind: 'api-error',
      status: 403,
      code: 'FORBIDDEN',
      message: 'You do not have permission to do this.',
      messageKey: 'errors:api.noPermission',
      ...(audit ? { audit } : {}),
    };
  }
  return { kind: 'allow', route: match.entry, event: null };
}
