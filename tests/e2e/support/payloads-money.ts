/**
 * Hostile values for money fields: every one must be refused with a 400 naming
 * the field, and change nothing. Values are JSON (what an API client can send), by kind.
 */
export type MoneyPayload = { kind: string; value: unknown };

const INT8_MAX = '9223372036854775807';

export const MONEY_PAYLOADS: MoneyPayload[] = [
  // Past the bound (10^15 − 1 minor units) up to and beyond int8.
  { kind: 'huge', value: '99999999999999999999' },
  { kind: 'huge', value: '10000000000000.00' },
  { kind: 'huge', value: '92233720368547758.07' },
  { kind: 'int8 max', value: INT8_MAX },
  { kind: 'int8 max + 1', value: '9223372036854775808' },
  { kind: 'int8 max as cents', value: '92233720368547758.08' },
  { kind: 'int8 min', value: '-9223372036854775808' },
  { kind: '2^53 + 1 (number)', value: 2 ** 53 + 1 },
  { kind: '2^53 + 1 (text)', value: '9007199254740993' },
  { kind: 'huge number', value: 1e300 },
  { kind: 'long digit string', value: '1'.repeat(1000) },
  { kind: 'long zero-padded', value: `${'0'.repeat(64)}1` },
  { kind: 'long decimals', value: `1.${'0'.repeat(64)}` },
  // Exponents and other bases.
  { kind: 'exponent', value: '1e20' },
  { kind: 'exponent', value: '1E3' },
  { kind: 'exponent', value: '1e-2' },
  { kind: 'exponent number', value: 1e21 },
  { kind: 'hex', value: '0x10' },
  { kind: 'binary', value: '0b101' },
  { kind: 'octal', value: '0o17' },
  // Digits that are not ASCII.
  { kind: 'arabic-indic digits', value: '١٢٣' },
  { kind: 'fullwidth digits', value: '１２３' },
  { kind: 'bengali digits', value: '১২' },
  { kind: 'superscript', value: '¹²' },
  // Separators whose meaning depends on the language.
  { kind: 'nbsp thousands', value: '1\u00a0000' },
  { kind: 'narrow nbsp thousands', value: '1\u202f000,50' },
  { kind: 'space thousands', value: '1 000' },
  { kind: 'comma thousands', value: '1,000.00' },
  { kind: 'dot thousands', value: '1.000,00' },
  { kind: 'comma decimal (API)', value: '10,50' },
  { kind: 'apostrophe thousands', value: "1'000" },
  { kind: 'underscore', value: '1_000' },
  // Signs and zero.
  { kind: 'negative', value: '-10' },
  { kind: 'negative number', value: -10 },
  { kind: 'negative cent', value: '-0.01' },
  { kind: 'plus sign', value: '+10' },
  { kind: 'zero', value: '0' },
  { kind: 'zero cents', value: '0.00' },
  // Too many decimals for EUR.
  { kind: 'three decimals', value: '10.001' },
  { kind: 'float noise', value: 0.1 + 0.2 },
  // Not numbers.
  { kind: 'NaN', value: 'NaN' },
  { kind: 'Infinity', value: 'Infinity' },
  { kind: '-Infinity', value: '-Infinity' },
  { kind: 'letters', value: 'abc' },
  { kind: 'trailing letters', value: '10abc' },
  { kind: 'two points', value: '10.5.5' },
  { kind: 'leading point', value: '.5' },
  { kind: 'trailing point', value: '5.' },
  { kind: 'NUL', value: '10\u0000' },
  { kind: 'newline', value: '10\n5' },
  { kind: 'currency sign', value: '€10' },
  { kind: 'empty', value: '' },
  { kind: 'whitespace', value: '   ' },
  { kind: 'tab', value: '\t' },
  { kind: 'null', value: null },
  { kind: 'boolean', value: true },
  { kind: 'array', value: ['10.00'] },
  { kind: 'empty array', value: [] },
  { kind: 'object', value: { amount: '10.00' } },
  { kind: 'empty object', value: {} },
];

/** Dates that must be refused where a calendar date is expected. */
export const DATE_PAYLOADS: unknown[] = [
  '31/02/2027',
  '2027-02-31',
  '2027-13-01',
  '2027-00-10',
  '2027-1-5',
  '20270105',
  '2027-02-29T00:00:00Z',
  ' 2027-01-05',
  '0000-00-00',
  '9999-99-99',
  'tomorrow',
  '',
  null,
  20270105,
  ['2027-01-05'],
  {},
];
