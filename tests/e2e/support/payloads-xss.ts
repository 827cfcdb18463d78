/**
 * Hostile text for the script-injection suite (tests/e2e/security-xss.spec.ts). Every payload that
 * could run calls `__xss(n)`, a trap the spec installs before any page script, and every payload that
 * could add markup carries the `data-xss` canary; the spec asserts neither ever shows up in a live
 * page. Each entry names the context it tries to break out of. Keep them short (list searches take
 * at most 100 characters, view names 80); `LONG_PAYLOAD` covers very long values.
 */

/** The global the payloads call; the spec's init script defines it and records every call. */
export const TRAP = '__xss';

export type XssPayload = { name: string; value: string };

export const XSS_PAYLOADS: readonly XssPayload[] = [
  { name: 'script tag', value: `<script>${TRAP}(1)</script>` },
  // The nonce stamping of old put a nonce on every `<script` in the HTML, attribute values included:
  // the stamp's own quote closed the attribute and the second script ran with a valid nonce.
  { name: 'two scripts (attribute breakout through a stamped nonce)', value: `<script x><script>${TRAP}(2)</script>` },
  { name: 'double-quote breakout', value: `"><script>${TRAP}(3)</script><b data-xss>` },
  { name: 'single-quote breakout into svg onload', value: `'><svg onload=${TRAP}(4) data-xss>` },
  { name: 'title breakout', value: `</title><script>${TRAP}(5)</script><b data-xss>` },
  { name: 'script-element breakout', value: `</script><script>${TRAP}(6)</script>` },
  { name: 'img onerror', value: `<img src=x onerror=${TRAP}(7) data-xss>` },
  { name: 'event handler in a double-quoted attribute', value: `" autofocus onfocus="${TRAP}(8)" data-xss="` },
  { name: 'event handler in a single-quoted attribute', value: `' autofocus onfocus='${TRAP}(9)' data-xss='` },
  { name: 'unquoted attribute breakout', value: `x onmouseover=${TRAP}(10) data-xss` },
  { name: 'textarea and style breakout', value: `</textarea></style><script>${TRAP}(11)</script>` },
  { name: 'javascript: URL', value: `javascript:${TRAP}(12)` },
  { name: 'javascript: URL, mixed case', value: `JaVaScRiPt:${TRAP}(13)` },
  { name: 'javascript: URL, entity-encoded', value: `&#106;avascript&colon;${TRAP}(14)` },
  { name: 'javascript: URL, leading whitespace and control characters', value: ` \t\u0001javascript:${TRAP}(15)` },
  { name: 'javascript: URL, tab inside the scheme', value: `java\tscript:${TRAP}(16)` },
  { name: 'data: URL', value: `data:text/html,<script>${TRAP}(17)</script>` },
  { name: 'vbscript: URL', value: `vbscript:${TRAP}(18)` },
  { name: 'template-literal breakout', value: `\${${TRAP}(19)}\`;${TRAP}(19);\`` },
  { name: 'JSON string breakout', value: `"});${TRAP}(20);//</script><script>${TRAP}(20)</script>` },
  { name: 'line and paragraph separators', value: `\u2028${TRAP}(21)\u2029<script>\u2028${TRAP}(21)</script>` },
  { name: 'comment and CDATA breakout', value: `--><!--<script>${TRAP}(22)</script>]]><b data-xss>` },
  { name: 'iframe srcdoc', value: `<iframe srcdoc="<script>parent.${TRAP}(23)</script>" data-xss></iframe>` },
];

/** A very long value: filler, then a breakout at the end (where a truncation might cut an escape short). */
export const LONG_PAYLOAD = `${'A'.repeat(1_500)}"'><script>${TRAP}(99)</script><img src=x onerror=${TRAP}(99) data-xss>`;

/** Payloads that fit a field of at most `max` characters. */
export function payloadsUpTo(max: number): XssPayload[] {
  return XSS_PAYLOADS.filter((p) => p.value.length <= max);
}
