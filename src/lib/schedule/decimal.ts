import type { RoundingMode } from './types.ts';

/**
 * Exact decimals with java.math.BigDecimal semantics (value = unscaled × 10^−scale), because
 * Fineract does its money arithmetic with BigDecimal and MathContext(12, HALF_EVEN): to match it to
 * the cent we must round at the same places to the same number of significant digits.
 */
export type Dec = { readonly u: bigint; readonly s: number };

const TEN = 10n;

const POW10: bigint[] = [];
function pow10(n: number): bigint {
  if (n < 64) return (POW10[n] ??= TEN ** BigInt(n));
  return TEN ** BigInt(n);
}

/** Integer n / d rounded with `mode` (d ≠ 0, any signs). */
export function divRound(n: bigint, d: bigint, mode: RoundingMode): bigint {
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  const q = n / d; // truncates toward zero
  const r = n - q * d;
  if (r === 0n) return q;
  const sign = n < 0n ? -1n : 1n;
  const twice = (r < 0n ? -r : r) * 2n;
  let away: boolean;
  switch (mode) {
    case 'UP':
      away = true;
      break;
    case 'DOWN':
      away = false;
      break;
    case 'CEILING':
      away = sign > 0n;
      break;
    case 'FLOOR':
      away = sign < 0n;
      break;
    case 'HALF_UP':
      away = twice >= d;
      break;
    case 'HALF_DOWN':
      away = twice > d;
      break;
    case 'HALF_EVEN':
      away = twice > d || (twice === d && (q & 1n) !== 0n);
      break;
  }
  return away ? q + sign : q;
}

const DECIMAL = /^([+-])?(\d+)(?:\.(\d*))?$/;

/** Parses "12", "-0.5", "9.4822" exactly; throws on anything else. */
export function parseDec(text: string): Dec {
  const m = DECIMAL.exec(text.trim());
  if (!m) throw new Error(`not a decimal: ${text}`);
  const fraction = m[3] ?? '';
  const u = BigInt(m[2] + fraction);
  return { u: m[1] === '-' ? -u : u, s: fraction.length };
}

export function fromInt(n: number | bigint): Dec {
  return { u: BigInt(n), s: 0 };
}

/** Minor units at `digits` → decimal. */
export function fromMinor(minor: bigint, digits: number): Dec {
  return { u: minor, s: digits };
}

function align(a: Dec, b: Dec): [bigint, bigint, number] {
  if (a.s === b.s) return [a.u, b.u, a.s];
  if (a.s > b.s) return [a.u, b.u * pow10(a.s - b.s), a.s];
  return [a.u * pow10(b.s - a.s), b.u, b.s];
}

export function add(a: Dec, b: Dec): Dec {
  const [x, y, s] = align(a, b);
  return { u: x + y, s };
}

export function sub(a: Dec, b: Dec): Dec {
  const [x, y, s] = align(a, b);
  return { u: x - y, s };
}

export function mul(a: Dec, b: Dec): Dec {
  return { u: a.u * b.u, s: a.s + b.s };
}

export function neg(a: Dec): Dec {
  return { u: -a.u, s: a.s };
}

export function cmp(a: Dec, b: Dec): number {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function isZero(a: Dec): boolean {
  return a.u === 0n;
}

export function signum(a: Dec): number {
  return a.u < 0n ? -1 : a.u > 0n ? 1 : 0;
}

export function abs(a: Dec): Dec {
  return a.u < 0n ? neg(a) : a;
}

/** BigDecimal.setScale(scale, mode). */
export function setScale(a: Dec, scale: number, mode: RoundingMode): Dec {
  if (scale === a.s) return a;
  if (scale > a.s) return { u: a.u * pow10(scale - a.s), s: scale };
  return { u: divRound(a.u, pow10(a.s - scale), mode), s: scale };
}

function digitCount(n: bigint): number {
  const a = n < 0n ? -n : n;
  // Table lookup for the usual sizes (cheaper than toString on this hot path).
  for (let d = 1; d < 40; d++) if (a < pow10(d)) return d;
  return a.toString().length;
}

/** BigDecimal.round(new MathContext(precision, mode)): keep `precision` significant digits. */
export function roundSig(a: Dec, precision: number, mode: RoundingMode = 'HALF_EVEN'): Dec {
  if (a.u === 0n) return a;
  const drop = digitCount(a.u) - precision;
  if (drop <= 0) return a;
  const u = divRound(a.u, pow10(drop), mode);
  // Rounding up can add a digit (999.9 → 1000): one more pass keeps the precision exact.
  if (digitCount(u) > precision) return roundSig({ u, s: a.s - drop }, precision, mode);
  return { u, s: a.s - drop };
}

/** BigDecimal.divide(b, MathContext(precision, mode)). */
export function divSig(a: Dec, b: Dec, precision: number, mode: RoundingMode = 'HALF_EVEN'): Dec {
  if (b.u === 0n) throw new Error('division by zero');
  if (a.u === 0n) return { u: 0n, s: 0 };
  // Scale the numerator up so the integer quotient carries enough digits, then round once.
  const extra = precision + digitCount(b.u) + 2;
  const n = a.u * pow10(extra);
  const q = n / b.u;
  const exact = q * b.u === n;
  // Sticky digit: appending 1 when inexact makes half-way detection correct for every mode.
  const u = exact ? q * 10n : q * 10n + (n < 0n !== b.u < 0n ? -1n : 1n);
  const s = a.s - b.s + extra + 1;
  return stripZeros(roundSig({ u, s }, precision, mode), a.s - b.s);
}

/** Removes trailing zeros down to the preferred scale, as BigDecimal.divide does for exact quotients. */
function stripZeros(a: Dec, preferredScale: number): Dec {
  let { u, s } = a;
  while (s > preferredScale && u !== 0n && u % 10n === 0n) {
    u /= 10n;
    s -= 1;
  }
  return { u, s };
}

/** Exact-enough quotient at a fixed scale: BigDecimal.divide(b, scale, mode). */
export function divScale(a: Dec, b: Dec, scale: number, mode: RoundingMode): Dec {
  if (b.u === 0n) throw new Error('division by zero');
  // a.u·10^-a.s / (b.u·10^-b.s) = q·10^-scale  →  q = a.u·10^(scale - a.s + b.s) / b.u
  const shift = scale - a.s + b.s;
  const n = shift >= 0 ? a.u * pow10(shift) : a.u;
  const d = shift >= 0 ? b.u : b.u * pow10(-shift);
  return { u: divRound(n, d, mode), s: scale };
}

export function toNumber(a: Dec): number {
  return Number(toString(a));
}

/**
 * A JS double as the decimal BigDecimal.valueOf(double) gives (Double.toString digits). JS and Java
 * both print the shortest round-tripping digits, so the text matches.
 */
export function fromDouble(x: number): Dec {
  if (!Number.isFinite(x)) throw new Error(`not finite: ${x}`);
  const text = x.toString();
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(text);
  if (!m) throw new Error(`cannot convert ${text}`);
  const fraction = m[3] ?? '';
  let u = BigInt(m[2] + fraction);
  if (m[1] === '-') u = -u;
  let s = fraction.length - Number(m[4] ?? 0);
  if (s < 0) {
    u *= pow10(-s);
    s = 0;
  }
  return { u, s };
}

export function toString(a: Dec): string {
  const negative = a.u < 0n;
  let digits = (negative ? -a.u : a.u).toString();
  if (a.s <= 0) return (negative ? '-' : '') + digits + '0'.repeat(-a.s);
  digits = digits.padStart(a.s + 1, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -a.s)}.${digits.slice(-a.s)}`;
}

export const ZERO: Dec = { u: 0n, s: 0 };
export const ONE: Dec = { u: 1n, s: 0 };
export const HUNDRED: Dec = { u: 100n, s: 0 };
