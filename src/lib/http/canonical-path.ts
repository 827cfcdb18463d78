/**
 * URL canonicalisation before any access decision (security goal 9; Astro advisories such as
 * CVE-2025-64765, where a middleware saw `/%61dmin` while the router served `/admin`). The guard
 * decides on the DECODED path, the same one the router matches, and anything ambiguous is refused:
 *  - each segment is percent-decoded once; a segment still holding '%' after that (double encoding,
 *    `/%2561dmin`), an encoded or literal backslash, an encoded slash, a NUL or control character, or
 *    a '.'/'..' segment is refused (400);
 *  - empty segments (`//admin`), a trailing slash, needlessly encoded characters (`/%61dmin`) and
 *    upper-case letters in the fixed parts of a known route (`/Admin/...`) are answered with a
 *    redirect to the canonical spelling for GET/HEAD, and refused for other methods.
 */

export type CanonicalResult =
  | { kind: 'ok'; path: string }
  | { kind: 'redirect'; path: string; location: string }
  | { kind: 'reject'; reason: string };

// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\u0000-\u001f\u007f\\]/;

/**
 * Decodes and checks a raw URL pathname (as `new URL(request.url).pathname` gives it). `fixCase`
 * returns the canonical casing of a decoded path (or null when no route matches it ignoring case).
 */
export function canonicalisePath(
  rawPathname: string,
  fixCase?: (decodedPath: string) => string | null,
): CanonicalResult {
  if (!rawPathname.startsWith('/')) return { kind: 'reject', reason: 'path must start with /' };
  const rawSegments = rawPathname.split('/').slice(1);
  const decoded: string[] = [];
  let needsRedirect = false;
  for (let i = 0; i < rawSegments.length; i++) {
    const raw = rawSegments[i];
    if (raw === '') {
      // '//' inside the path, or a trailing slash (the root '/' itself is the only empty path).
      if (!(rawSegments.length === 1)) needsRedirect = true;
      continue;
    }
    let seg: string;
    try {
      seg = decodeURIComponent(raw);
    } catch {
      return { kind: 'reject', reason: 'malformed percent-encoding' };
    }
    if (seg.includes('%')) return { kind: 'reject', reason: 'double percent-encoding' };
    if (seg.includes('/')) return { kind: 'reject', reason: 'encoded slash' };
    if (FORBIDDEN.test(seg)) return { kind: 'reject', reason: 'control character or backslash' };
    if (seg === '.' || seg === '..') return { kind: 'reject', reason: 'dot segment' };
    if (encodeSegment(seg) !== raw) needsRedirect = true;
    decoded.push(seg);
  }
  let path = '/' + decoded.join('/');
  if (fixCase) {
    const fixed = fixCase(path);
    if (fixed && fixed !== path) {
      path = fixed;
      needsRedirect = true;
    }
  }
  if (!needsRedirect) return { kind: 'ok', path };
  const location = '/' + path.split('/').slice(1).map(encodeSegment).join('/');
  return { kind: 'redirect', path, location };
}

/** Encodes a path segment the way we link to it: unreserved characters and a few safe ones stay as they are. */
export function encodeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(/%(3A|40|2C|3B|3D|2B|24|21|27|28|29|2A)/gi, (m) => decodeURIComponent(m));
}
