import { AppError } from '../errors/app-error.ts';

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

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

/**
 * Parses a decimal string into minor units. Refuses more fractional digits than the currency has,
 * rather than rounding silently: an amount typed as 10.005 EUR is a mistake to report.
 */
export function parseMinor(value: string | number, digits: number, field = 'amount'): bigint {
  const text = typeof value === 'number' ? String(value) : value.trim();
  const match = DECIMAL.exec(text);
  if (!match) throw new AppError('BAD_REQUEST', `${field} must be a decimal number such as 10.50`, { field });
  const [, sign, whole, fraction = ''] = match;
  if (fraction.length > digits) {
    throw new AppError('BAD_REQUEST', `${field} has more than ${digits} decimal places`, { field });
  }
  const minor = BigInt(whole + fraction.padEnd(digits, '0'));
  return sign ? -minor : minor;
}

/** Formats minor units as a plain decimal string with exactly `digits` decimals ("1234.50"). */
export function formatMinor(minor: bigint, digits: number): string {
  const negative = minor < 0n;
  const abs = (negative ? -minor : minor).toString().padStart(digits + 1, '0');
  const whole = digits === 0 ? abs : abs.slice(0, -digits);
  const fraction = digits === 0 ? '' : `.${abs.slice(-digits)}`;
  return `${negative ? '-' : ''}${whole}${fraction}`;
}

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
