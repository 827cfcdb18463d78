import { validationError } from '../errors/messages.ts';
import type { Language } from '../i18n/index.ts';
import { INTL_LOCALE } from '../i18n/intl-locale.ts';
import { formatMinorPlain, parseAmount, type AmountOptions } from './parse.ts';

export { MAX_AMOUNT_MINOR, maxAmountMinor } from './parse.ts';

/**
 * The one money value of the domain: an integer count of minor units, its currency and the number of
 * minor digits of that currency. Values that travel between functions travel as Money, never as a
 * bigint beside a separate currency string and digit count. Decimal strings exist only at the edges
 * (JSON, forms, CSV, CLI) and are made by {@link toDecimalString}; never a JS float.
 *
 * Plain TypeScript with no server imports, so islands use the same module.
 */
export type Money = { readonly minor: bigint; readonly currency: string; readonly digits: number };

/**
 * ISO 4217 minor-unit digits for the currencies we know that do not have 2; every other currency has 2.
 *
 * This table is the one source of a currency's digits. Loan products also store `digits_after_decimal`
 * (the schedule engine's convention, kept in the database and the API), but the table wins: minor units
 * stored in any table are read back by code that only knows the currency (lists, exports, profile
 * tabs, ledgers), so a product whose digits differed would make the same stored number mean two
 * amounts. Creating a product therefore checks that its digits are the currency's
 * (`assertProductDigits`), and a loan's digits are derived from its currency.
 */
const DIGITS: Record<string, number> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
};

const CODE = /^[A-Z]{3}$/;

/**
 * A currency code as the domain uses it: three upper-case letters. Database columns are `char(3)`
 * and inputs may come in lower case or padded; this is the one place that cleans them, at the edge
 * where a row or a request becomes a domain value.
 */
export function currencyCode(raw: string): string {
  const code = raw.trim().toUpperCase();
  if (!CODE.test(code)) throw validationError('currency', 'text.format');
  return code;
}

export function currencyDigits(currency: string): number {
  return DIGITS[currency.trim().toUpperCase()] ?? 2;
}

/** A Money from minor units already in the currency's digits (a database column, a computed sum). */
export function fromMinor(minor: bigint, currency: string): Money {
  const code = currencyCode(currency);
  return { minor, currency: code, digits: currencyDigits(code) };
}

/** A zero amount of the currency. */
export function zeroOf(currency: string): Money {
  return fromMinor(0n, currency);
}

/**
 * Parses money input into minor units with the one parser (./parse.ts): plain decimal text or a JSON
 * number, at most `digits` decimals (never rounded), within the bound {@link MAX_AMOUNT_MINOR}. A
 * refusal is a 400 naming `field`, its message in every language (validation:messages.money.*).
 * Signs and zero are allowed unless `options` say otherwise; commands use `positiveAmount`.
 */
export function parseMinor(
  value: unknown,
  digits: number,
  field = 'amount',
  options: Omit<AmountOptions, 'digits'> = { allowNegative: true, allowZero: true },
): bigint {
  const result = parseAmount(value, { ...options, digits });
  if (!result.ok) throw validationError(field, result.problem.key, result.problem.params);
  return result.minor;
}

/** Parses money input in a currency into a Money (the rules of {@link parseMinor}; a refusal names `field`). */
export function parseMoney(
  value: unknown,
  currency: string,
  field = 'amount',
  options: Omit<AmountOptions, 'digits'> = { allowNegative: true, allowZero: true },
): Money {
  const code = currencyCode(currency);
  return {
    minor: parseMinor(value, currencyDigits(code), field, options),
    currency: code,
    digits: currencyDigits(code),
  };
}

const TRUSTED_DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

/**
 * Reads a decimal string this system wrote itself (an API answer, a numeric column) into minor
 * units, without the input bound: display code must show any stored amount, never refuse it.
 */
export function decodeMinor(text: string, digits: number): bigint {
  const match = TRUSTED_DECIMAL.exec(text.trim());
  if (!match) throw new Error(`not a decimal amount: ${text.slice(0, 40)}`);
  const [, sign, whole, fraction = ''] = match;
  const minor = BigInt(whole + fraction.padEnd(digits, '0').slice(0, Math.max(digits, 0)));
  return sign ? -minor : minor;
}

/** A Money from a decimal string this system wrote itself ({@link decodeMinor}). */
export function fromDecimalString(text: string, currency: string): Money {
  const code = currencyCode(currency);
  return { minor: decodeMinor(text, currencyDigits(code)), currency: code, digits: currencyDigits(code) };
}

/** Formats minor units as a plain decimal string with exactly `digits` decimals ("1234.50"). */
export const formatMinor = formatMinorPlain;

function sameCurrency(a: Money, b: Money): void {
  if (a.currency !== b.currency) throw new Error(`currency mismatch: ${a.currency} vs ${b.currency}`);
}

export function add(a: Money, b: Money): Money {
  sameCurrency(a, b);
  return { ...a, minor: a.minor + b.minor };
}

export function sub(a: Money, b: Money): Money {
  sameCurrency(a, b);
  return { ...a, minor: a.minor - b.minor };
}

/** −1, 0 or 1 as `a` is less than, equal to or greater than `b` (same currency only). */
export function compare(a: Money, b: Money): -1 | 0 | 1 {
  sameCurrency(a, b);
  return a.minor < b.minor ? -1 : a.minor > b.minor ? 1 : 0;
}

export function isZero(m: Money): boolean {
  return m.minor === 0n;
}

/** The amount as the API writes it: a plain decimal string with the currency's digits ("1234.50", "1500"). */
export function toDecimalString(m: Money): string {
  return formatMinorPlain(m.minor, m.digits);
}

/**
 * The one money formatter for people: the exact decimal string goes to Intl (which formats decimal
 * strings without passing through a float), never `Number(minor) / 100`. "€1,234.50", "1 234,50 €".
 */
export function formatMoney(m: Money, language: Language): string {
  const format = new Intl.NumberFormat(INTL_LOCALE[language] ?? 'en-US', { style: 'currency', currency: m.currency });
  return format.format(toDecimalString(m) as unknown as number);
}
