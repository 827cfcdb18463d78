/**
 * The one parser for money typed or sent by people and programs (API bodies, form posts, CSV, CLI
 * terms, islands). Pure and dependency-free, so islands import it too and pre-check an amount with
 * exactly the server's rules, on strings, never with a float.
 *
 * Accepted: plain decimal digits with at most the currency's minor digits — `"1234.5"`, `"0.07"`,
 * or a JSON number that prints as such (`1234.5`). Refused, each with its own reason:
 * - anything that is not a string or a finite number (null, arrays, objects, booleans, NaN, Infinity);
 * - exponents (`1e20`), hexadecimal (`0x10`), non-ASCII digits (`١٢`), a leading `+`, `.5`, `5.`;
 * - spaces inside, no-break spaces, apostrophes, underscores or commas used as thousands separators
 *   (`1 000`, `1,000.50`): the same keystrokes mean different amounts in English and French, so they
 *   are refused rather than guessed. A form may allow one decimal comma (`10,50`) for French input;
 * - a sign where the field does not allow one, zero where it must be positive;
 * - more decimals than the currency has (never rounded silently: `10.005 EUR` is a typing mistake);
 * - anything above {@link MAX_AMOUNT_MINOR}, and text longer than {@link MAX_AMOUNT_TEXT} characters
 *   (BigInt of a megabyte of digits costs real time; no sane amount is that long).
 */

/**
 * Upper bound of any single amount, in minor units, for every currency: 10^15 − 1
 * (9,999,999,999,999.99 EUR or USD, 999,999,999,999,999 JPY or XOF, 999,999,999,999.999 KWD).
 *
 * Why this number:
 * - Money is stored as int8 minor units (max 9,223,372,036,854,775,807 ≈ 9.2 × 10^18). With every
 *   input at most 10^15, more than 9,000 maximal amounts must be added before a sum can overflow.
 *   Sums across loans (ledger totals, portfolio and per-tenant figures, ledger:check) are computed by
 *   Postgres as `numeric` and by JavaScript as bigint, which do not overflow; the sums the product
 *   stores in int8 columns are per loan or per customer (a loan's outstanding, its installment
 *   components, a monthly snapshot row, a collateral's secured principal), made of a bounded
 *   principal, charges (each bounded) and interest the schedule derives from the principal. A loan's
 *   charges may not take what it owes above this bound either (apply-loan-charge), and a repayment
 *   cannot exceed what is owed unless the product accepts overpayments (repay-loan).
 * - 10^15 < 2^53: every bounded amount is also an exact JavaScript number, so charts and Intl
 *   formatting that go through Number never round a cent.
 * - It is per currency in minor units because every stored sum is in minor units: the headroom
 *   against int8 is the same whatever the currency's decimals. `maxAmountMinor` is the one place to
 *   lower it for a currency.
 */
export const MAX_AMOUNT_MINOR = 10n ** 15n - 1n;

/** Longest amount text looked at (after trimming); longer inputs are refused before any parsing. */
export const MAX_AMOUNT_TEXT = 40;

export function maxAmountMinor(_currency?: string): bigint {
  return MAX_AMOUNT_MINOR;
}

export type AmountOptions = {
  /** Minor-unit digits of the currency (0–6). */
  digits: number;
  /** Accept 0 (e.g. a collateral of no value); default: amounts must be greater than 0. */
  allowZero?: boolean;
  /** Accept a leading '-' (bank statement lines); default: no sign at all. */
  allowNegative?: boolean;
  /** Accept one ',' as the decimal separator (French form input); default: only '.'. */
  decimalComma?: boolean;
  /** A lower upper bound than {@link MAX_AMOUNT_MINOR}, in minor units. */
  max?: bigint;
  /** Judge the form only, not the bound (checkAmountText: the currency is not known yet). */
  isFormOnly?: boolean;
};

/** A refusal: a message key under `validation:messages` and its parameters (the field is added by the caller). */
export type AmountProblem = { key: string; params: Record<string, string | number> };

export type AmountResult = { ok: true; minor: bigint } | { ok: false; problem: AmountProblem };

const PLAIN = /^(-)?([0-9]+)(?:\.([0-9]+))?$/;
/** Characters people use to group thousands, or that sneak in from copy and paste. */
const SEPARATORS = /[\s\u00a0\u2007\u202f'’_]/;

/** Example amount shown in messages, with the currency's decimals and the accepted separator. */
export function exampleAmount(digits: number, decimalComma = false): string {
  const text = digits > 0 ? `10.${'50'.padEnd(digits, '0').slice(0, digits)}` : '10';
  return decimalComma ? text.replace('.', ',') : text;
}

/** Formats minor units as a plain decimal string with exactly `digits` decimals ("1234.50"). */
export function formatMinorPlain(minor: bigint, digits: number): string {
  const negative = minor < 0n;
  const abs = (negative ? -minor : minor).toString().padStart(digits + 1, '0');
  const whole = digits === 0 ? abs : abs.slice(0, -digits);
  const fraction = digits === 0 ? '' : `.${abs.slice(-digits)}`;
  return `${negative ? '-' : ''}${whole}${fraction}`;
}

function problem(key: string, params: Record<string, string | number> = {}): AmountResult {
  return { ok: false, problem: { key, params } };
}

/** Parses an amount into minor units, or says why not (see the module comment for the rules). */
export function parseAmount(value: unknown, options: AmountOptions): AmountResult {
  const { digits } = options;
  const example = exampleAmount(digits, options.decimalComma);
  const max = options.max !== undefined && options.max < MAX_AMOUNT_MINOR ? options.max : MAX_AMOUNT_MINOR;
  let text: string;
  if (value === undefined || value === null) return problem('required');
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return problem('money.invalid', { example });
    text = String(value); // shortest round-trip text: 10.1 → "10.1"; 1e21 → "1e+21" (refused below)
  } else if (typeof value === 'string') {
    text = value.replace(/^[ \t]+|[ \t]+$/g, '');
  } else {
    return problem('money.invalid', { example });
  }
  if (text === '') return problem('required');
  if (text.length > MAX_AMOUNT_TEXT) {
    if (!/^-?[0-9]+([.,][0-9]+)?$/.test(text)) return problem('money.invalid', { example });
    return options.isFormOnly
      ? problem('money.tooLong', { length: MAX_AMOUNT_TEXT })
      : problem('money.tooLarge', { max: formatMinorPlain(max, digits) });
  }
  if (SEPARATORS.test(text)) return problem('money.separators', { example });
  if (text.includes(',')) {
    // One comma followed by decimals, and no point: a decimal comma when the form allows it.
    if (!options.decimalComma || text.includes('.') || !/^-?[0-9]+,[0-9]+$/.test(text))
      return problem('money.separators', { example });
    text = text.replace(',', '.');
  }
  const match = PLAIN.exec(text);
  if (!match) return problem('money.invalid', { example });
  const [, sign, whole, fraction = ''] = match;
  // Sign and zero before the decimals: an amount with both problems gets the same reason here as at
  // the API edge (checkAmountText, which does not know the decimals), so an island's pre-check and
  // the server never name different problems for one input.
  const isZero = /^0*$/.test(whole + fraction);
  if (sign && !isZero && !options.allowNegative) {
    return options.allowZero ? problem('money.mustNotBeNegative') : problem('money.mustBePositive');
  }
  if (isZero && !options.allowZero && !options.allowNegative) return problem('money.mustBePositive');
  if (fraction.length > digits)
    return digits === 0 ? problem('money.wholeOnly') : problem('money.tooManyDecimals', { digits });
  const magnitude = BigInt(whole + fraction.padEnd(digits, '0'));
  if (magnitude > max && !options.isFormOnly) return problem('money.tooLarge', { max: formatMinorPlain(max, digits) });
  return { ok: true, minor: sign ? -magnitude : magnitude };
}

/**
 * Checks an amount's form without knowing its currency yet (the API edge, before the loan is read):
 * type, characters, separators, sign, length. The currency's decimals and the bound are checked by
 * `parseAmount` once the command knows the currency. Returns the amount as plain text.
 */
export function checkAmountText(
  value: unknown,
  options: Omit<AmountOptions, 'digits' | 'max' | 'isFormOnly'> = {},
): { ok: true; text: string } | { ok: false; problem: AmountProblem } {
  // As many decimals as the text has: only the form is judged here, not the currency's decimals.
  const raw =
    typeof value === 'number' && Number.isFinite(value)
      ? String(value)
      : typeof value === 'string'
        ? value.replace(/^[ \t]+|[ \t]+$/g, '')
        : null;
  const decimals = raw && /^-?[0-9]+[.,]([0-9]+)$/.test(raw) ? raw.length - raw.search(/[.,]/) - 1 : 0;
  const result = parseAmount(value, { ...options, digits: decimals, isFormOnly: true });
  if (!result.ok) {
    // The example shows cents, the usual case, whatever the refused text looked like.
    if ('example' in result.problem.params) result.problem.params.example = exampleAmount(2, options.decimalComma);
    return result;
  }
  return { ok: true, text: (raw as string).replace(',', '.') };
}
