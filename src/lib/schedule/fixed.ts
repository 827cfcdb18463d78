import { AppError } from '../errors/app-error.ts';
import { parseAmount } from '../money/parse.ts';
import { addDays, addMonths } from './dates.ts';
import { adjustDueDate, nextRepaymentDate } from './due-dates.ts';
import type { ScheduleTerms, WorkingCalendar } from './types.ts';
import { parseVariations } from './variations.ts';

/**
 * Fixed-length and fixed-installment terms (Fineract `fixedLength`, `fixedEmiAmount`,
 * `principalThresholdForLastInstalment`) and the variable-installment list, parsed on top of the
 * base terms. Every field is optional; absent, the schedule is exactly the one without them.
 *
 * Fixed length, as Fineract's DefaultScheduledDateGenerator does it for the progressive engine: the
 * due dates follow the repayment frequency as usual, except the last one, which is the schedule
 * start plus `fixedLength` units of the repayment frequency (days, weeks or months), moved off a day
 * off like any due date. The last period is shorter or longer accordingly. Fineract accepts it only on
 * zero-interest products and only when the last regular due date still falls inside the fixed length:
 * fixedLength ≥ (numberOfRepayments − 1) × repaymentEvery + 1 (LoanProductDataValidator).
 */

type Obj = Record<string, unknown>;

function bad(field: string, message: string): never {
  throw new AppError('BAD_REQUEST', `${field}: ${message}`, { field });
}

function wholeNumber(o: Obj, field: string, min: number, max: number): number | null {
  const v = o[field];
  if (v === undefined || v === null || v === '') return null;
  const n = typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n)) bad(field, `must be a whole number, got ${JSON.stringify(v)}`);
  if (n < min || n > max) bad(field, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

/** Adds the optional fixed-length / fixed-EMI / variations fields to validated base terms. */
export function withFixedTerms(o: Obj, terms: ScheduleTerms): ScheduleTerms {
  const fixedLength = wholeNumber(o, 'fixedLength', 1, 120_000);
  if (fixedLength !== null) {
    if (terms.scheduleType !== 'PROGRESSIVE') {
      // Fineract's cumulative generator ignores fixedLength when it builds the due dates.
      bad('fixedLength', 'a fixed length applies to PROGRESSIVE schedules only');
    }
    if (Number(terms.annualInterestRate) !== 0) {
      bad('fixedLength', 'a fixed length is only allowed with a zero interest rate');
    }
    const minimum = (terms.numberOfRepayments - 1) * terms.repaymentEvery + 1;
    if (fixedLength < minimum) {
      bad(
        'fixedLength',
        `must be at least ${minimum} with ${terms.numberOfRepayments} repayments every ${terms.repaymentEvery} (numberOfRepayments − 1) × repaymentEvery + 1`,
      );
    }
  }

  let fixedEmiAmount: bigint | null = null;
  if (o.fixedEmiAmount !== undefined && o.fixedEmiAmount !== null && o.fixedEmiAmount !== '') {
    const parsed = parseAmount(o.fixedEmiAmount, { digits: terms.digits });
    if (!parsed.ok || parsed.minor <= 0n) bad('fixedEmiAmount', 'must be an amount greater than 0');
    if (
      terms.scheduleType !== 'CUMULATIVE' ||
      terms.interestMethod !== 'DECLINING_BALANCE' ||
      terms.amortization !== 'EQUAL_INSTALLMENTS'
    ) {
      bad('fixedEmiAmount', 'applies to CUMULATIVE, DECLINING_BALANCE, EQUAL_INSTALLMENTS schedules only');
    }
    fixedEmiAmount = parsed.minor;
  }
  // Fineract's default: 50 % on a multi-disbursement loan, 0 otherwise.
  const threshold = wholeNumber(o, 'principalThresholdForLastInstallment', 0, 100) ?? (terms.disbursements ? 50 : 0);

  const variations = parseVariations(o.variations, terms);
  const extra: Partial<ScheduleTerms> = {};
  if (fixedLength !== null) extra.fixedLength = fixedLength;
  if (fixedEmiAmount !== null) {
    extra.fixedEmiAmount = fixedEmiAmount;
    extra.principalThresholdForLastInstallment = threshold;
  }
  if (variations.length > 0) extra.variations = variations;
  return { ...terms, ...extra };
}

/** The last due date of a fixed-length loan (before moving it off a day off), or null. */
export function fixedLengthEndDate(t: ScheduleTerms): string | null {
  if (t.fixedLength === undefined || t.fixedLength === null) return null;
  const start = t.expectedDisbursementDate;
  if (t.repaymentFrequency === 'DAYS') return addDays(start, t.fixedLength);
  if (t.repaymentFrequency === 'WEEKS') return addDays(start, 7 * t.fixedLength);
  return addMonths(start, t.fixedLength);
}

/** Replaces the last due date by the fixed-length end date (moved off days off), when the terms have one. */
export function applyFixedLength(t: ScheduleTerms, dueDates: string[], calendar?: WorkingCalendar): string[] {
  const end = fixedLengthEndDate(t);
  if (end === null || dueDates.length === 0) return dueDates;
  const seed = t.firstRepaymentDate ?? t.expectedDisbursementDate;
  const moved = adjustDueDate(end, calendar, (d) => nextRepaymentDate(d, t.repaymentFrequency, t.repaymentEvery, seed));
  const out = [...dueDates];
  out[out.length - 1] = moved;
  if (out.length > 1 && moved <= out[out.length - 2]) {
    bad(
      'fixedLength',
      `the fixed-length end date ${moved} must fall after the previous due date ${out[out.length - 2]}`,
    );
  }
  return out;
}
