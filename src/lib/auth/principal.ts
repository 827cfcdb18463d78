import { AppError } from '../errors/app-error.ts';

/** A row filter on a user (data_permissions), e.g. { field: 'branch', value: 'PAR-01' }. */
export type DataPermission = { field: string; value: string };

/**
 * Who is calling, as the middleware resolved it from the session cookie or an API token. Domain
 * functions take what they need from it (tenant, user id, authorities, data permissions); they never
 * read cookies or headers themselves.
 */
export type Principal = {
  tenantId: string;
  userId: string;
  displayName: string;
  email: string;
  isAdmin: boolean;
  authorities: readonly string[];
  dataPermissions: readonly DataPermission[];
  /** Locale such as 'fr-FR'; the UI language is the part before the dash. */
  language: string;
  /** 'session' for a signed-in browser, 'token' for an API client. */
  via: 'session' | 'token';
  sessionId: string | null;
  /** Set by an administrator or a reset: the guard sends the user to /user/reset-password. */
  passwordChangeRequired: boolean;
  /**
   * A role of the user requires two-step sign-in (password policy) and they have not enrolled: the
   * guard sends them to /user/mfa until they do. Password sessions only.
   */
  mfaEnrolmentRequired?: boolean;
  /** The user's own idle timeout in seconds (users.session_timeout). */
  sessionTimeout: number;
  /**
   * The idle timeout in force for this user, in seconds: admins their session_timeout,
   * others the tenant's auto_logout.timeout, default 60. The server enforces it; the shell's idle
   * timer uses the same number.
   */
  idleTimeout: number;
};

export function requirePrincipal(principal: Principal | undefined): Principal {
  if (!principal) throw new AppError('UNAUTHORIZED', 'Sign in to continue.');
  return principal;
}
