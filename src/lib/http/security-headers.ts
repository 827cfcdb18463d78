/**
 * Response headers of every answer (security goal 8; ASVS 3.4.x). HTML gets a nonce-based CSP:
 * every inline or bundled <script> in our HTML comes from our templates or from Astro itself (Astro
 * escapes every interpolated value, and `set:html` is never used with user data), so the step stamps
 * the request's nonce on each <script> tag that lacks one and the policy allows only scripts carrying
 * it (plus what they load, via 'strict-dynamic'). Styles allow 'unsafe-inline' because Emotion
 * (Chakra UI) inserts <style> elements at run time; style injection cannot run code.
 */

export type HeaderOptions = {
  nonce: string;
  /** HSTS only in production (over plain-http development servers it would pin localhost to https). */
  isProduction: boolean;
  /** A signed-in page: never stored by the browser or a proxy (back button after logout shows nothing). */
  isSignedIn: boolean;
};

export function contentSecurityPolicy(nonce: string, isProduction: boolean): string {
  return [
    "default-src 'self'",
    `script-src 'nonce-${nonce}' 'strict-dynamic' 'self'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'self'",
    ...(isProduction ? ['upgrade-insecure-requests'] : []),
  ].join('; ');
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

export function applyHtmlHeaders(headers: Headers, options: HeaderOptions): void {
  applyCommonHeaders(headers, options);
  headers.set('content-security-policy', contentSecurityPolicy(options.nonce, options.isProduction));
  if (options.isSignedIn) headers.set('cache-control', 'no-store');
  else if (!headers.has('cache-control')) headers.set('cache-control', 'no-cache');
}

/** Puts `nonce="…"` on every <script> opening tag that has none. */
export function stampScriptNonces(html: string, nonce: string): string {
  return html.replace(/<script\b(?![^>]*\bnonce=)/gi, (tag) => `${tag} nonce="${nonce}"`);
}

export function isHtml(headers: Headers): boolean {
  return (headers.get('content-type') ?? '').toLowerCase().startsWith('text/html');
}
