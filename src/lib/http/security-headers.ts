/**
 * Response headers of every answer (security goal 8; ASVS 3.4.x).
 *
 * The Content-Security-Policy of a page comes from the renderer, never from rewriting finished HTML:
 * Astro's built-in CSP (`security.csp` in astro.config.mjs, directives in ./csp-policy.ts) hashes the
 * inline scripts it emits itself (island hydration) at build time and writes the header of every page
 * it renders; bundled scripts load from 'self'. A script a user managed to smuggle into the HTML has
 * neither a listed hash nor our origin's URL, so it does not run. The step here only completes that
 * header (upgrade-insecure-requests in production, a run-time setting) and gives HTML that Astro's
 * renderer did not produce (answers made in middleware) a policy that runs no script at all.
 */
import { CSP_DIRECTIVES, CSP_STYLE_RESOURCES } from './csp-policy.ts';

export type HeaderOptions = {
  /** HSTS and upgrade-insecure-requests only in production (over plain-http development servers they would pin localhost to https). */
  isProduction: boolean;
  /** A signed-in page: never stored by the browser or a proxy (back button after logout shows nothing). */
  isSignedIn: boolean;
};

const UPGRADE = 'upgrade-insecure-requests';

/** The policy of an HTML answer no page rendered (so no script of ours is in it): no script runs. */
export function fallbackContentSecurityPolicy(isProduction: boolean): string {
  return [
    ...CSP_DIRECTIVES,
    "script-src 'none'",
    `style-src ${CSP_STYLE_RESOURCES.join(' ')}`,
    ...(isProduction ? [UPGRADE] : []),
  ].join('; ');
}

/**
 * The CSP an HTML answer leaves with: the renderer's own (with its script hashes) completed for
 * production, or the script-less fallback when there is none.
 */
export function htmlContentSecurityPolicy(rendered: string | null, isProduction: boolean): string {
  if (!rendered?.trim()) return fallbackContentSecurityPolicy(isProduction);
  const policy = rendered.trim().replace(/;\s*$/, '');
  return isProduction && !policy.split(';').some((d) => d.trim() === UPGRADE) ? `${policy}; ${UPGRADE}` : policy;
}

/** Headers every response carries, HTML or not. */
export function applyCommonHeaders(headers: Headers, options: Pick<HeaderOptions, 'isProduction'>): void {
  headers.set('x-content-type-options', 'nosniff');
  headers.set('referrer-policy', 'strict-origin-when-cross-origin');
  headers.set('x-frame-options', 'DENY');
  headers.set('cross-origin-opener-policy', 'same-origin');
  headers.set('permissions-policy', 'camera=(), microphone=(), geolocation=(), payment=()');
  if (options.isProduction) headers.set('strict-transport-security', 'max-age=63072000; includeSubDomains');
}

/** Headers of an HTML answer; `headers` may already hold the CSP the renderer wrote. */
export function applyHtmlHeaders(headers: Headers, options: HeaderOptions): void {
  applyCommonHeaders(headers, options);
  headers.set(
    'content-security-policy',
    htmlContentSecurityPolicy(headers.get('content-security-policy'), options.isProduction),
  );
  if (options.isSignedIn) headers.set('cache-control', 'no-store');
  else if (!headers.has('cache-control')) headers.set('cache-control', 'no-cache');
}

export function isHtml(headers: Headers): boolean {
  return (headers.get('content-type') ?? '').toLowerCase().startsWith('text/html');
}
