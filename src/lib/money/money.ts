import { validationError } from '../errors/messages.ts';
import { formatMinorPlain, parseAmount, type AmountOptions } from './parse.ts';

export { MAX_AMOUNT_MINOR, maxAmountMinor } from './parse.ts';

/**
 * Money is an integer count of minor units (bigint) with its currency. Decimal strings exist only at
 * the edges (API, CLI, CSV); never a JS float.
 */
export type Money = { readonly minor: bigint; readonly currency: string };

/** ISO 4217 minor-unit digits for the currencies we know; others default to 2. */
const DIGITS: Record<string, number> = {
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0, UGX: 0, VND: 0,
  VUV: 0, XAF: 0, XOF: 0, XPF: 0, BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3,
};

export function currencyDigits(currency: string): number {
  return DIGITS[currency.toUpperCase()] ?? 2;
}

/**
 * Parses money input into minor units with the one parser (./parse.ts): plain decimal text or a JSON
 * number, at most `digits` decimals (never rounded), within the bound {@link MAX_AMOUNT_MINOR}. A
 * refusal is a 400 naming `field`, its message in every language (validation:messages.money.*).
 * Signs and zero are allowed unless `options` say otherwise; commands use `positiveAmount`.
 */
export function parseMinor(value: unknown, digits: number, field = 'amount', options: Omit<AmountOptions, 'digits'> = { allowNegative: true, allowZero: true }): bigint {
  const result = parseAmount(value, { ...options, digits });
  if (!result.ok) throw validationError(field, result.problem.key, result.problem.params);
  return result.minor;
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

/** Formats minor units as a plain decimal string with exactly `digits` decimals ("1234.50"). */
export const formatMinor = formatMinorPlain;

export function money(minor: bigint, currency: string): Money {
  return { minor, currency: currency.toUpperCase() };
}

function sameCurrency(a: Money, b: Money): void {
  if (a.currency !== b.currency) throw new Error(`currency mismatch: ${a.currency} vs ${b.currency}`);
}

export function add(a: Money, b: Money): Money {
  sameCurrency(a, b);
  return money(a.minor + b.minor, a.currency);
}

export function subtract(a: Money, b: Money): Money {
  sameCurrency(a, b);
  return money(a.minor - b.minor, a.currency);
}

export function toDecimalString(m: Money): string {
  return formatMinor(m.minor, currencyDigits(m.currency));
}
