import { AppError } from '../errors/app-error.ts';
import { currencyDigits } from '../money/money.ts';
import { isValidDate } from './dates.ts';
import { DATE_EXAMPLE } from '../dates/parse-date.ts';
import { validationMessage } from '../errors/messages.ts';
import { parseAmount } from '../money/parse.ts';
import { withFixedTerms } from './fixed.ts';
import { parseCharges } from './charges.ts';
import { parseTrancheTerms } from './tranches.ts';
import type {
  Amortization,
  DaysInMonth,
  DaysInYear,
  InterestCalculationPeriod,
  InterestMethod,
  RepaymentFrequency,
  RoundingMode,
  ScheduleTerms,
  ScheduleType,
  WorkingCalendar,
  WorkingDayRule,
} from './types.ts';

/**
 * Validation of the terms JSON contract (see README.md). Every error is a BAD_REQUEST naming the
 * field, so the CLI (exit 2) and POST /v1/schedules/preview (400) can say exactly what is wrong.
 */

/**
 * Refuses a field. With a message key (validation:messages) the API answers in the caller's
 * language with the field's label; the English text keeps the JSON field name for the CLI.
 */
function bad(field: string, message: string, key?: string, params: Record<string, string | number> = {}): never {
  throw new AppError('BAD_REQUEST', `${field}: ${message}`, { field, ...(key ? { key, params } : {}) });
}

type Obj = Record<string, unknown>;

const DECIMAL = /^\d+(?:\.\d+)?$/;

function decimalText(o: Obj, field: string): string | undefined {
  const v = o[field];
  if (v === undefined || v === null) return undefined;
  let text: string;
  if (typeof v === 'string') text = v.trim();
  else if (typeof v === 'number' && Number.isFinite(v)) text = String(v);
  else bad(field, 'must be a decimal number written as a string, such as "12.5"');
  if (!DECIMAL.test(text)) bad(field, `must be a non-negative decimal number such as "12.5", got ${JSON.stringify(v)}`);
  return text;
}

function integer(o: Obj, field: string, fallback: number | undefined, min: number, max: number): number {
  const v = o[field];
  if (v === undefined || v === null) {
    if (fallback === undefined) bad(field, 'is required', 'required');
    return fallback;
  }
  const n = typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n))
    bad(field, `must be a whole number, got ${JSON.stringify(v)}`, 'number.whole');
  if (n < min || n > max) bad(field, `must be between ${min} and ${max}, got ${n}`, 'number.between', { min, max });
  return n;
}

function choice<T extends string>(o: Obj, field: string, allowed: readonly T[], fallback: T): T {
  const v = o[field];
  if (v === undefined || v === null) return fallback;
  const text = typeof v === 'string' ? v.trim().toUpperCase() : v;
  if (typeof text !== 'string' || !(allowed as readonly string[]).includes(text)) {
    bad(field, `must be one of ${allowed.join(', ')}, got ${JSON.stringify(v)}`, 'choice', {
      options: allowed.join(', '),
    });
  }
  return text as T;
}

function date(o: Obj, field: string, required: boolean): string | undefined {
  const v = o[field];
  if (v === undefined || v === null || v === '') {
    if (required) bad(field, 'is required (YYYY-MM-DD)', 'required');
    return undefined;
  }
  if (typeof v !== 'string' || !isValidDate(v))
    bad(field, `must be a calendar date YYYY-MM-DD, got ${JSON.stringify(v)}`, 'date.invalid', {
      example: DATE_EXAMPLE,
    });
  return v;
}

function bool(o: Obj, field: string, fallback: boolean): boolean {
  const v = o[field];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'boolean') bad(field, `must be true or false, got ${JSON.stringify(v)}`);
  return v;
}

const ROUNDING: readonly RoundingMode[] = ['HALF_EVEN', 'HALF_UP', 'HALF_DOWN', 'UP', 'DOWN', 'CEILING', 'FLOOR'];

export function parseTerms(input: unknown): ScheduleTerms {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new AppError('BAD_REQUEST', 'terms must be a JSON object', { field: 'terms' });
  }
  const o = input as Obj;

  const currencyRaw = o.currency;
  if (typeof currencyRaw !== 'string' || !/^[A-Za-z]{3}$/.test(currencyRaw.trim())) {
    bad('currency', `must be a 3-letter ISO 4217 code such as "USD", got ${JSON.stringify(currencyRaw)}`);
  }
  const currency = currencyRaw.trim().toUpperCase();
  const digits = integer(o, 'digitsAfterDecimal', currencyDigits(currency), 0, 6);
  const currencyInMultiplesOf = integer(o, 'currencyInMultiplesOf', 0, 0, 1_000_000);
  const multiplesRaw = o.installmentAmountInMultiplesOf;
  const installmentAmountInMultiplesOf =
    multiplesRaw === undefined || multiplesRaw === null
      ? null
      : integer(o, 'installmentAmountInMultiplesOf', undefined, 1, 1_000_000);
  const roundingMode = choice(o, 'roundingMode', ROUNDING, 'HALF_EVEN');

  // The one money parser (bounds, decimals, no exponent or separator), as for every money field.
  const parsed = parseAmount(o.principal, { digits });
  if (!parsed.ok)
    bad(
      'principal',
      validationMessage('en', parsed.problem.key, parsed.problem.params, 'principal'),
      parsed.problem.key,
      parsed.problem.params,
    );
  const principal = parsed.minor;
  if (digits === 0 && currencyInMultiplesOf > 0 && principal % BigInt(currencyInMultiplesOf) !== 0n) {
    // Fineract would silently round the principal itself to the multiple; refusing is clearer.
    bad('principal', `must be a multiple of ${currencyInMultiplesOf} (currencyInMultiplesOf)`);
  }

  const rate = decimalText(o, 'annualInterestRate');
  if (rate === undefined) bad('annualInterestRate', 'is required (nominal percent per year, e.g. "12")');
  if (Number(rate) > 1000) bad('annualInterestRate', 'must be at most 1000 percent');

  const numberOfRepayments = integer(o, 'numberOfRepayments', undefined, 1, 1200);
  const repaymentEvery = integer(o, 'repaymentEvery', 1, 1, 1000);
  const repaymentFrequency = choice<RepaymentFrequency>(o, 'repaymentFrequency', ['DAYS', 'WEEKS', 'MONTHS'], 'MONTHS');

  const disbursementDate = date(o, 'disbursementDate', true) as string;
  const expectedDisbursementDate = date(o, 'expectedDisbursementDate', false) ?? disbursementDate;
  if (expectedDisbursementDate > disbursementDate) {
    bad('expectedDisbursementDate', 'must not be after disbursementDate');
  }
  const firstRepaymentDate = date(o, 'firstRepaymentDate', false) ?? null;
  if (firstRepaymentDate !== null && firstRepaymentDate <= disbursementDate) {
    bad('firstRepaymentDate', 'must be after disbursementDate');
  }

  const scheduleType = choice<ScheduleType>(o, 'scheduleType', ['CUMULATIVE', 'PROGRESSIVE'], 'CUMULATIVE');
  const interestMethod = choice<InterestMethod>(
    o,
    'interestMethod',
    ['DECLINING_BALANCE', 'FLAT'],
    'DECLINING_BALANCE',
  );
  const amortization = choice<Amortization>(
    o,
    'amortization',
    ['EQUAL_INSTALLMENTS', 'EQUAL_PRINCIPAL'],
    'EQUAL_INSTALLMENTS',
  );
  const interestCalculationPeriod = choice<InterestCalculationPeriod>(
    o,
    'interestCalculationPeriod',
    ['DAILY', 'SAME_AS_REPAYMENT_PERIOD'],
    'SAME_AS_REPAYMENT_PERIOD',
  );
  if (scheduleType === 'PROGRESSIVE' && interestMethod === 'FLAT') {
    bad('interestMethod', 'a PROGRESSIVE schedule is always DECLINING_BALANCE');
  }
  if (scheduleType === 'PROGRESSIVE' && amortization === 'EQUAL_PRINCIPAL') {
    bad('amortization', 'a PROGRESSIVE schedule is always EQUAL_INSTALLMENTS');
  }
  const allowPartialPeriodInterest = bool(o, 'allowPartialPeriodInterest', false);

  // Fineract's enum names (DAYS_360, DAYS_30) are accepted as well as the plain numbers.
  const diyRaw =
    o.daysInYear === undefined || o.daysInYear === null
      ? 'ACTUAL'
      : String(o.daysInYear)
          .trim()
          .toUpperCase()
          .replace(/^DAYS_?/, '');
  if (!['ACTUAL', '360', '364', '365'].includes(diyRaw)) {
    bad('daysInYear', `must be one of ACTUAL, 360, 364, 365, got ${JSON.stringify(o.daysInYear)}`);
  }
  const daysInYear: DaysInYear = diyRaw === 'ACTUAL' ? 'ACTUAL' : (Number(diyRaw) as 360 | 364 | 365);
  const dimRaw =
    o.daysInMonth === undefined || o.daysInMonth === null
      ? 'ACTUAL'
      : String(o.daysInMonth)
          .trim()
          .toUpperCase()
          .replace(/^DAYS_?/, '');
  if (!['ACTUAL', '30'].includes(dimRaw))
    bad('daysInMonth', `must be ACTUAL or 30, got ${JSON.stringify(o.daysInMonth)}`);
  const daysInMonth: DaysInMonth = dimRaw === 'ACTUAL' ? 'ACTUAL' : 30;

  const graceOnPrincipalPeriods = integer(o, 'graceOnPrincipalPeriods', 0, 0, numberOfRepayments - 1);
  const graceOnInterestPaymentPeriods = integer(o, 'graceOnInterestPaymentPeriods', 0, 0, numberOfRepayments - 1);
  const interestFreePeriods = integer(o, 'interestFreePeriods', 0, 0, numberOfRepayments);
  if (interestMethod === 'FLAT' && graceOnInterestPaymentPeriods + interestFreePeriods >= numberOfRepayments) {
    bad(
      'interestFreePeriods',
      'with graceOnInterestPaymentPeriods it must leave at least one installment that pays the flat interest',
    );
  }
  if (
    scheduleType === 'PROGRESSIVE' &&
    (graceOnPrincipalPeriods || graceOnInterestPaymentPeriods || interestFreePeriods)
  ) {
    const field = graceOnPrincipalPeriods
      ? 'graceOnPrincipalPeriods'
      : graceOnInterestPaymentPeriods
        ? 'graceOnInterestPaymentPeriods'
        : 'interestFreePeriods';
    bad(field, 'grace periods are supported on CUMULATIVE schedules only');
  }

  const downPaymentPercent = decimalText(o, 'downPaymentPercent') ?? null;
  if (downPaymentPercent !== null && (Number(downPaymentPercent) <= 0 || Number(downPaymentPercent) >= 100)) {
    bad('downPaymentPercent', 'must be greater than 0 and less than 100');
  }

  const charges = parseCharges(o.charges, digits);

  const base: ScheduleTerms = {
    principal,
    currency,
    digits,
    currencyInMultiplesOf,
    installmentAmountInMultiplesOf,
    roundingMode,
    annualInterestRate: rate,
    numberOfRepayments,
    repaymentEvery,
    repaymentFrequency,
    disbursementDate,
    expectedDisbursementDate,
    firstRepaymentDate,
    scheduleType,
    interestMethod,
    amortization,
    interestCalculationPeriod,
    allowPartialPeriodInterest,
    daysInYear,
    daysInMonth,
    graceOnPrincipalPeriods,
    graceOnInterestPaymentPeriods,
    interestFreePeriods,
    downPaymentPercent: downPaymentPercent === null || Number(downPaymentPercent) === 0 ? null : downPaymentPercent,
    ...(charges.length > 0 ? { charges } : {}),
  };
  // Tranches (tranches.ts), then fixed length, fixed EMI and variable installments (fixed.ts): optional,
  // absent = unchanged terms. Both read `fixedEmiAmount`; fixed.ts has the last word and the threshold.
  return withFixedTerms(o, parseTrancheTerms(o, base));
}

const RULES: readonly WorkingDayRule[] = ['SAME_DAY', 'NEXT_WORKING_DAY', 'PREVIOUS_WORKING_DAY', 'NEXT_REPAYMENT_DAY'];

/** Parses an optional `calendar` object of the terms JSON: { holidays, nonWorkingWeekdays, rule }. */
export function parseCalendar(input: unknown): WorkingCalendar | undefined {
  if (input === undefined || input === null) return undefined;
  if (typeof input !== 'object' || Array.isArray(input)) bad('calendar', 'must be an object');
  const o = input as Obj;
  const holidaysRaw = o.holidays ?? [];
  if (!Array.isArray(holidaysRaw)) bad('calendar.holidays', 'must be a list');
  const holidays = holidaysRaw.map((h, i) => {
    const field = `calendar.holidays[${i}]`;
    if (typeof h !== 'object' || h === null) bad(field, 'must be an object { from, to, repaymentsRescheduledTo? }');
    const from = date(h as Obj, 'from', true) as string;
    const to = date(h as Obj, 'to', true) as string;
    if (to < from) bad(`${field}.to`, 'must not be before from');
    const moved = date(h as Obj, 'repaymentsRescheduledTo', false);
    const toNext = bool(h as Obj, 'rescheduleToNextRepaymentDate', false);
    if (moved && toNext)
      bad(
        `${field}.rescheduleToNextRepaymentDate`,
        'a holiday has a reschedule date or moves to the next repayment date, not both',
      );
    if (toNext) return { from, to, rescheduleToNextRepaymentDate: true };
    return moved ? { from, to, repaymentsRescheduledTo: moved } : { from, to };
  });
  const weekdaysRaw = o.nonWorkingWeekdays ?? [];
  if (!Array.isArray(weekdaysRaw) || weekdaysRaw.some((d) => !Number.isInteger(d) || d < 1 || d > 7)) {
    bad('calendar.nonWorkingWeekdays', 'must be a list of ISO weekdays 1 (Monday) to 7 (Sunday)');
  }
  if (weekdaysRaw.length >= 7) bad('calendar.nonWorkingWeekdays', 'must leave at least one working day');
  const rule = choice<WorkingDayRule>(o, 'rule', RULES, 'NEXT_WORKING_DAY');
  return { holidays, nonWorkingWeekdays: weekdaysRaw as number[], rule };
}
