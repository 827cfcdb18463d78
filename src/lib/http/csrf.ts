/**
 * Cross-site request forgery defence for every mutating request (security goal 7; ASVS 3.5.1–3.5.3).
 * A forged request needs a victim's browser, and every browser in use sends `Origin` on a POST and
 * `Sec-Fetch-Site` on every request, so the decision rests on those two headers (the approach of
 * Go's net/http CrossOriginProtection):
 *  - `Sec-Fetch-Site: cross-site` or `same-site` → refused (a sibling subdomain is not us);
 *  - an `Origin` that is not our origin (PUBLIC_URL's when set, so it holds behind a TLS proxy, else
 *    the request's own) → refused; `Origin: null` (sandboxed frames, some redirects) → refused;
 *  - neither header → not a browser (curl, an API client), which cannot carry a victim's cookie → allowed.
 * On top of that, JSON API calls made with the session cookie must say `Content-Type: application/json`
 * (or send no body): a cross-site form cannot send that type without a CORS preflight, which we never
 * grant. API clients with a bearer token are not CSRF targets (browsers never attach that header).
 */

export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

export type CsrfInput = {
  method: string;
  /** Canonical path. */
  path: string;
  /** The origin the server sees the request on (new URL(request.url).origin). */
  requestOrigin: string;
  /** PUBLIC_URL, when the app runs behind a proxy that terminates TLS. */
  publicUrl?: string;
  headers: Headers;
};

export type CsrfResult = { ok: true } | { ok: false; reason: string };

/** /v1 routes that accept plain HTML form posts (the sign-in forms work without JavaScript). */
const FORM_API_PREFIXES = ['/v1/auth/'];

function allowedOrigins(input: CsrfInput): Set<string> {
  const origins = new Set<string>();
  if (input.publicUrl) origins.add(new URL(input.publicUrl).origin);
  else origins.add(input.requestOrigin);
  return origins;
}

function mediaType(headers: Headers): string {
  return (headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
}

function hasBody(headers: Headers): boolean {
  const length = headers.get('content-length');
  if (headers.has('transfer-encoding')) return true;
  return length !== null && length !== '0';
}

export function checkCsrf(input: CsrfInput): CsrfResult {
  const method = input.method.toUpperCase();
  if (SAFE_METHODS.has(method)) return { ok: true };
  const { headers } = input;
  // A cross-site page cannot set Authorization without a preflight we never grant.
  if (/^bearer\s/i.test(headers.get('authorization') ?? '')) return { ok: true };

  const site = headers.get('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none')
    return { ok: false, reason: `cross-site request (Sec-Fetch-Site: ${site})` };
  const origin = headers.get('origin');
  if (origin !== null && !allowedOrigins(input).has(origin)) return { ok: false, reason: `foreign origin ${origin}` };

  const isApi = input.path === '/v1' || input.path.startsWith('/v1/');
  if (isApi && !FORM_API_PREFIXES.some((p) => input.path.startsWith(p)) && hasBody(headers)) {
    const type = mediaType(headers);
    // multipart uploads (files, imports) only with a verified same-origin Origin header.
    const isVerifiedMultipart = type === 'multipart/form-data' && origin !== null;
    if (type !== 'application/json' && !isVerifiedMultipart) {
      return { ok: false, reason: `unsupported content type ${type || '(none)'}; send application/json` };
    }
  }
  return { ok: true };
}
