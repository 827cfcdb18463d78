/**
 * Where to go after sign-in (and every other place a user-supplied target is followed: the MFA step,
 * single sign-on's stored `redirect_to`, the forced password change): only a path on our own origin.
 *
 * The check is on the FINAL value, the way a browser will read it, not on the spelling received:
 * `/a/..//evil.test` or `/%2e%2e//evil.test` look like paths but the URL parser resolves them to
 * `//evil.test`, a protocol-relative URL to another host. So the value is resolved with the WHATWG URL
 * parser (the one browsers use) against a fixed origin, and the resolved path is what we answer with.
 * Every percent-decoded layer of both the input and the answer must pass the same test, so a
 * double-encoded `%252F%252F` or `%5C` cannot become `//` or `\` in whatever decodes it next.
 * Anything else falls back to the home board.
 */
const BASE = 'http://redirect.invalid';
const MAX_LENGTH = 2000;
/** More layers of percent-encoding than this is not a link anybody wrote by hand: refuse it. */
const MAX_DECODE_DEPTH = 8;
/** Auth pages and the API: sending a user back to them after sign-in would loop or show JSON. */
const REFUSED_PREFIXES = ['/user/login', '/user/mfa', '/v1/'];

export function safeRedirect(value: string | null | undefined, fallback = '/'): string {
  return sameOriginPath(value) ?? fallback;
}

/** The same-origin path `value` leads to (path, query, hash), or null when it could lead anywhere else. */
export function sameOriginPath(value: string | null | undefined): string | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_LENGTH) return null;
  // Printable ASCII only: browsers strip tabs and newlines anywhere in a URL and leading/trailing
  // controls and spaces, so `/\t/evil.test` is `//evil.test` to them. Real targets come percent-encoded.
  if (!/^[\x21-\x7e]+$/.test(value)) return null;
  const resolved = resolve(value);
  if (!resolved) return null;
  const layers = [...decodedLayers(value), ...decodedLayers(resolved)];
  if (layers.some((layer) => layer === null || !isSafeLayer(layer))) return null;
  const path = decodedLayers(resolved.split(/[?#]/)[0]).at(-1)!.toLowerCase();
  if (REFUSED_PREFIXES.some((prefix) => path.startsWith(prefix))) return null;
  return resolved;
}

/** path + query + hash of `value` resolved against our origin, or null when it leaves the origin. */
function resolve(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value, BASE);
  } catch {
    return null;
  }
  if (url.origin !== BASE || url.username || url.password) return null;
  const out = `${url.pathname}${url.search}${url.hash}`;
  // The answer must mean the same thing when parsed again (a Location header is parsed once more).
  return startsAsPath(out) && new URL(out, BASE).href === url.href ? out : null;
}

function startsAsPath(text: string): boolean {
  return text.startsWith('/') && !text.startsWith('//') && !text.startsWith('/\\');
}

// Anywhere, at any depth: backslashes (browsers read them as `/`), C0/C1 controls, format characters
// (zero-width, bidi overrides) and line/paragraph separators.
const NEVER = /[\\\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
// In the path part: no whitespace of any kind either.
const NEVER_IN_PATH = /[\s\p{Z}]/u;

/** One decoded spelling: a path on our origin, also once resolved, with none of the refused characters. */
function isSafeLayer(layer: string): boolean {
  if (NEVER.test(layer)) return false;
  if (!startsAsPath(layer)) return false;
  if (NEVER_IN_PATH.test(layer.split(/[?#]/)[0])) return false;
  let url: URL;
  try {
    url = new URL(layer, BASE);
  } catch {
    return false;
  }
  return url.origin === BASE && startsAsPath(url.pathname);
}

/**
 * The value and each percent-decoding of it until nothing changes, so whatever a later reader decodes,
 * we have looked at it first. null marks a layer we refuse to reason about: still changing after
 * MAX_DECODE_DEPTH layers, or bytes that are not UTF-8 (overlong `%c0%af` was `/` to some servers;
 * browsers never produce invalid UTF-8 in a URL they encode).
 */
function decodedLayers(value: string): (string | null)[] {
  const layers: (string | null)[] = [value];
  let current = value;
  for (let depth = 0; depth < MAX_DECODE_DEPTH; depth++) {
    const next = percentDecode(current);
    if (next === null) break;
    if (next === current) return layers;
    layers.push(next);
    current = next;
  }
  layers.push(null);
  return layers;
}

function percentDecode(text: string): string | null {
  let isMalformed = false;
  const out = text.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      isMalformed = true;
      return run;
    }
  });
  return isMalformed ? null : out;
}
