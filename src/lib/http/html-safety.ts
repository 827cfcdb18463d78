/**
 * The two places where our own code, not the template engine, decides how a value lands in HTML.
 * Astro and React escape text and attribute values themselves; these cover what they cannot know:
 * JSON written inside a <script> element, and URLs built from data.
 */

/**
 * JSON for a `<script>` element (`type="application/json"` or a script reading a literal): `<`, `>`
 * and `&` as \u escapes, so no value can close the element, open a comment or a CDATA section; U+2028
 * and U+2029 too, which end a line in older JavaScript parsers. JSON.parse reads it back unchanged.
 */
export function jsonForScript(value: unknown): string {
  return (JSON.stringify(value) ?? 'null').replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * A URL safe to put in href/src/action: a same-origin path (`/…`, not `//host` nor `/\host`), or with
 * `allowExternal` an absolute http(s) URL. Anything else (javascript:, data:, vbscript:, however
 * spelled, cased, entity- or whitespace-padded) gives `fallback`. Browsers strip leading C0 controls
 * and spaces and remove tabs and newlines anywhere before parsing a URL, so the check does the same.
 */
export function safeUrl(
  value: string | null | undefined,
  options: { allowExternal?: boolean; fallback?: string } = {},
): string {
  const fallback = options.fallback ?? '#';
  if (typeof value !== 'string') return fallback;
  // eslint-disable-next-line no-control-regex
  const url = value.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '').replace(/[\t\n\r]/g, '');
  if (url.startsWith('/') && !url.startsWith('//') && !url.startsWith('/\\')) return url;
  if (!options.allowExternal) return fallback;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : fallback;
  } catch {
    return fallback;
  }
}
