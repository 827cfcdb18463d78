/**
 * Hostile `redirect` values (open redirect). Each one, followed by a browser after
 * sign-in, must leave the user on our own origin: the server answers with a same-origin path or the
 * home board. Spellings: protocol-relative, backslashes, schemes, dot segments that resolve to `//`,
 * percent-encoded and double-encoded variants of all of these, controls and whitespace browsers strip,
 * Unicode format characters, credentials and ports. Used by src/lib/auth/redirect.test.ts (each must
 * fall back to `/`) and tests/e2e/security-redirect.spec.ts (each must end on the same origin).
 */
const HOST = 'evil.test';

export const HOSTILE_REDIRECTS: readonly string[] = [
  // Absolute and protocol-relative
  `https://${HOST}/`,
  `http://${HOST}`,
  `HTTPS://${HOST}`,
  `https:${HOST}`,
  `http:/${HOST}`,
  `https:/\\${HOST}`,
  `//${HOST}`,
  `///${HOST}`,
  `////${HOST}/x`,
  `//${HOST}/%2e%2e`,
  `//localhost@${HOST}`,
  `http://localhost@${HOST}/`,
  `//${HOST}:443/`,
  `//${HOST}%2f`,
  `//%65vil.test`,
  `/${'/'.repeat(20)}${HOST}`,
  // Backslashes (browsers read \ as / in http URLs)
  `/\\${HOST}`,
  `\\\\${HOST}`,
  `\\/${HOST}`,
  `/\\/${HOST}`,
  `\\${HOST}`,
  `/\\\\${HOST}`,
  `/x\\..\\..\\/${HOST}`,
  // Other schemes
  'javascript:alert(1)',
  'JaVaScRiPt:alert(document.domain)',
  'javascript://%0aalert(1)',
  'data:text/html,<script>alert(1)</script>',
  'vbscript:msgbox(1)',
  `ftp://${HOST}`,
  'file:///etc/passwd',
  `blob:https://${HOST}/x`,
  // Dot segments that resolve to //host
  `/a/..//${HOST}`,
  `/a/b/../..//${HOST}`,
  `/./..//${HOST}`,
  `/.//${HOST}`,
  `/..//${HOST}`,
  `/a/./..//${HOST}/x?y=1`,
  `/loans/loans/../../..//${HOST}`,
  `/a/%2e%2e//${HOST}`,
  `/a/%2E%2E//${HOST}`,
  `/a/.%2e//${HOST}`,
  `/a/%2e.//${HOST}`,
  `/%2e%2e//${HOST}`,
  `/%2e//${HOST}`,
  `/a/%2e%2e/%2f${HOST}`,
  `/a/..%2f..%2f/${HOST}`,
  `/%2e%2e%2f%2e%2e%2f%2f${HOST}`,
  `/a/%252e%252e//${HOST}`,
  `/a/%25252e%25252e//${HOST}`,
  // Encoded slashes and backslashes, at several depths
  `/%2F${HOST}`,
  `/%2f%2f${HOST}`,
  `%2F%2F${HOST}`,
  `/%252f%252f${HOST}`,
  `/%25252f${HOST}`,
  `/%2525252f${HOST}`,
  `/%5C${HOST}`,
  `/%5c%5c${HOST}`,
  `%5C%5C${HOST}`,
  `/%255c${HOST}`,
  `/%25255c${HOST}`,
  `/loans?q=%5C%5C${HOST}`,
  `%2f%5c${HOST}`,
  `/%2F%5C${HOST}`,
  // Controls and whitespace that browsers strip or that split headers
  `/\t/${HOST}`,
  `/\n/${HOST}`,
  `/\r\n/${HOST}`,
  ` //${HOST}`,
  `\t//${HOST}`,
  `//${HOST} `,
  `/%09/${HOST}`,
  `/%0a/${HOST}`,
  `/%0d%0a/${HOST}`,
  `/%0d%0aLocation:%20https://${HOST}`,
  `/%00//${HOST}`,
  `/%2509/${HOST}`,
  `/%20/${HOST}`,
  `/%e3%80%80/${HOST}`,
  `/%c2%a0/${HOST}`,
  `\u0000//${HOST}`,
  `/\u0008/${HOST}`,
  `/%7f/${HOST}`,
  // Unicode format characters and separators
  `/\u200b/${HOST}`,
  `/%e2%80%8b/${HOST}`,
  `/%e2%80%ae//${HOST}`,
  `/%e2%80%a8/${HOST}`,
  `/\u2028/${HOST}`,
  `/\ufeff/${HOST}`,
  // Malformed or overlong encodings
  `/%c0%af%c0%af${HOST}`,
  `/%%32%66%%32%66${HOST}`,
  `/%e0%80%af/${HOST}`,
  // Auth pages themselves (would loop, or carry another redirect)
  `/user/login?redirect=//${HOST}`,
  '/user/mfa',
  `/v1/auth/oidc/start?tenant=demo&redirect=//${HOST}`,
  '/User/Login',
  // Absurd length
  `/${'a/'.repeat(1200)}`,
  `/%${'25'.repeat(10)}2f${HOST}`,
];

/** Odd but harmless values: they stay on our origin (a path, possibly normalised), never leave it. */
export const SAME_ORIGIN_ODDITIES: readonly string[] = [
  `/%ef%bc%8f%ef%bc%8f${HOST}`,
  `/@${HOST}`,
  `/;//${HOST}`,
  `/loans/../loans/loans`,
  `/a?next=//${HOST}`,
  `/a#//${HOST}`,
  `/loans/loans?redirect=https://${HOST}`,
  `/%ZZ//${HOST}`,
  `/%ZZ%2f/${HOST}`,
  `/100%`,
];

/** Ordinary targets the login page must keep. */
export const LEGITIMATE_REDIRECTS: readonly (readonly [input: string, expected: string])[] = [
  ['/loans/loans?tab=overdue', '/loans/loans?tab=overdue'],
  ['/analytics/overview#chart', '/analytics/overview#chart'],
  ['/loans/customers?q=Dupont%20%C3%A9lodie', '/loans/customers?q=Dupont%20%C3%A9lodie'],
  ['/loans/loans?q=a%2Fb', '/loans/loans?q=a%2Fb'],
  ['/admin/user/users?sort=-name&page=2', '/admin/user/users?sort=-name&page=2'],
  [
    '/loans/customer/profile/3f1c2a9e-0000-4000-8000-000000000001/loans',
    '/loans/customer/profile/3f1c2a9e-0000-4000-8000-000000000001/loans',
  ],
  ['/loans/x/../loans', '/loans/loans'],
  ['/', '/'],
];
