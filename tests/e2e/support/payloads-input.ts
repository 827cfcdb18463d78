/**
 * Hostile query-string values (client mistakes must be 4xx naming the field,
 * never 5xx). Each is written RAW, already percent-encoded as it goes on the wire, so the encodings
 * themselves (`%00`, `%FF`, overlong UTF-8, lone surrogates) reach the server untouched.
 */

/** Values that can never be a valid parameter: refused (400) on every route, pages included. */
export const MALFORMED_VALUES: readonly string[] = [
  '%00',
  'a%00b',
  '%00%00%00',
  'x%01',
  '%1B%5B31m',
  '%7F',
  '%C2%85', // NUL, C0/C1 controls, DEL
  'line%0Abreak',
  'cr%0Dlf',
  'tab%09', // control characters in a search
  '%FF',
  '%FE%FF',
  'abc%80',
  '%C3',
  '%E2%82', // bytes that are not UTF-8 / truncated sequences
  '%C0%AF',
  '%C0%80',
  '%E0%80%AF',
  '%F0%80%80%AF', // overlong UTF-8 ('/' and NUL in disguise)
  '%ED%A0%80',
  '%ED%BF%BF',
  '%ED%A0%BD%ED%B8%80', // lone and paired UTF-16 surrogates as UTF-8
  '%F4%90%80%80', // beyond U+10FFFF
  '%',
  '%G1',
  '%2',
  'a%zz', // malformed percent-encoding
  'x'.repeat(10_000), // a 10k-character value
];

/** Values of a whole-number parameter (limit, offset, page) that are not one. */
export const BAD_NUMBERS: readonly string[] = [
  '1.5',
  '-1',
  '0',
  '-0.5',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e3',
  '1e309',
  '0x10',
  '99999999999999999999999',
  '9223372036854775808',
  'abc',
  '1%2C2',
  '10abc',
  "1'%20or%20'1'%3D'1",
  '1;select%201',
  '%2B5',
  '5%00',
];

/** Cursors a list never handed out. */
export const BAD_CURSORS: readonly string[] = [
  'zzz',
  '!!',
  '%27or%201%3D1',
  'A'.repeat(600),
  base64({ a: 1 }),
  base64({ d: 'n', v: 1, id: 2, k: 3 }),
  base64({ d: 'x', v: 'a', id: 'b', k: 'c' }),
  base64([1, 2, 3]),
  base64(null),
  base64('string'),
  base64({ d: 'n', v: { $gt: '' }, id: [], k: 'name:asc' }),
  Buffer.from('not json', 'utf8').toString('base64url'),
  Buffer.from([0xff, 0xfe, 0x00]).toString('base64url'),
  `${base64({ at: '2026-01-01', id: 'x' })}|x`,
];

/** Search texts that are legal and must be answered normally (200), never as SQL. */
export const SQL_LIKE_TEXT: readonly string[] = [
  '%27%20or%201%3D1--',
  '%25',
  '_',
  '%5C',
  "Robert'%29%3B%20DROP%20TABLE%20customers%3B--",
  '%E2%80%AE',
  '%F0%9F%92%A5',
  'caf%C3%A9',
];

/** Malformed ids for path and query (a foreign or nonexistent uuid is added at run time). */
export const BAD_IDS: readonly string[] = [
  'abc',
  '1',
  '-1',
  '0',
  "1'%20or%20'1'%3D'1",
  '00000000-0000-0000-0000-00000000000g',
  '%7B%7D',
  'null',
  'undefined',
  'x'.repeat(300),
];

/** Unknown sort columns and odd list parameters. */
export const BAD_LIST_PARAMS: readonly string[] = [
  'sort=password_hash',
  'sort=-tenant_id',
  'sort=name%3Bdrop',
  'tab=..%2F..',
  'cols=secret',
  'f.status=deleted',
  'f.amount=1e999..',
  'scope=tenant:x',
  'scope=branch:%27',
  'view=1',
  'limit[]=10',
  'limit=10&limit=25',
  'q=a&q=b',
  'page=0',
  'page=99999',
  'page=1.5',
];

/** Methods nothing in the product answers, including the ones fetch cannot even express. */
export const ODD_METHODS: readonly string[] = [
  'TRACE',
  'TRACK',
  'CONNECT',
  'PROPFIND',
  'MKCOL',
  'LOCK',
  'PURGE',
  'SEARCH',
  'LINK',
  'M-SEARCH',
  'FOO',
  'GETS',
];

function base64(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}
