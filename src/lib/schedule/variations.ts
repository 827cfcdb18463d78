import { AppError } from '../errors/app-error.ts';
import { parseAmount } from '../money/parse.ts';
import { daysBetween, isValidDate } from './dates.ts';
import { adjustDueDate, nextRepaymentDate, nextWorkingDayAfter } from './due-dates.ts';
import type { ScheduleTerms, ScheduleVariation, WorkingCalendar } from './types.ts';

/**
 * Variable installments (Fineract `allowVariableInstallments` and its LoanTermVariations, all specific
 * to one installment), for the cumulative engine. Before disbursement a user may:
 *
 * - DUE_DATE: move one due date (`dueDate` → `newDueDate`); the dates after it keep their own rhythm.
 *   An optional `amount` fixes that installment's amount too (on the new date).
 * - AMOUNT: fix one installment's amount: the installment total for declining-balance equal
 *   installments (principal = amount − interest), its principal otherwise.
 * - INSERT: add an installment on a date between two due dates, optionally with an amount.
 * - DELETE: remove a due date (never the last); its period merges into the next one.
 *
 * Fineract's arithmetic, which `plan` below and cumulative.ts reproduce: the number of repayments
 * becomes numberOfRepayments + inserts − deletes (so the EMI is computed over that many periods);
 * the generator walks the usual chain of due dates and, at each date, applies the variations dated on
 * or before it (a due-date change; an insert takes the date and makes the chain repeat the date it
 * replaced; a delete drops the period, whose interest then runs into the next one); after an
 * installment with a fixed amount the EMI (or the equal principal) is recomputed over the remaining
 * periods for the principal still to schedule, and the last installment takes what is left.
 */

type Obj = Record<string, unknown>;

function bad(field: string, message: string): never {
  throw new AppError('BAD_REQUEST', `${field}: ${message}`, { field });
}

const TYPES = ['DUE_DATE', 'AMOUNT', 'INSERT', 'DELETE'] as const;

export function parseVariations(raw: unknown, terms: ScheduleTerms): ScheduleVariation[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) bad('variations', 'must be a list');
  if (raw.length === 0) return [];
  if (terms.scheduleType !== 'CUMULATIVE')
    bad('variations', 'variable installments apply to CUMULATIVE schedules only');
  if (terms.downPaymentPercent !== null)
    bad('variations', 'variable installments cannot be combined with a down payment');
  if (raw.length > 240) bad('variations', 'at most 240 variations');
  return raw.map((item, i): ScheduleVariation => {
    const field = `variations[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) bad(field, 'must be an object');
    const o = item as Obj;
    const type = typeof o.type === 'string' ? o.type.trim().toUpperCase() : '';
    if (!(TYPES as readonly string[]).includes(type)) bad(`${field}.type`, `must be one of ${TYPES.join(', ')}`);
    const date = (key: string, required: boolean): string | undefined => {
      const v = o[key];
      if (v === undefined || v === null || v === '') {
        if (required) bad(`${field}.${key}`, 'is required (YYYY-MM-DD)');
        return undefined;
      }
      if (typeof v !== 'string' || !isValidDate(v)) bad(`${field}.${key}`, 'must be a calendar date YYYY-MM-DD');
      return v;
    };
    const amount = (required: boolean): bigint | undefined => {
      const v = o.amount;
      if (v === undefined || v === null || v === '') {
        if (required) bad(`${field}.amount`, 'is required');
        return undefined;
      }
      const parsed = parseAmount(v, { digits: terms.digits });
      if (!parsed.ok || parsed.minor <= 0n) bad(`${field}.amount`, 'must be an amount greater than 0');
      return parsed.minor;
    };
    const dueDate = date('dueDate', true) as string;
    if (dueDate <= terms.disbursementDate) bad(`${field}.dueDate`, 'must be after the disbursement date');
    if (type === 'DUE_DATE') {
      const newDueDate = date('newDueDate', true) as string;
      if (newDueDate <= terms.disbursementDate) bad(`${field}.newDueDate`, 'must be after the disbursement date');
      const a = amount(false);
      return a === undefined ? { type, dueDate, newDueDate } : { type, dueDate, newDueDate, amount: a };
    }
    if (type === 'AMOUNT') return { type, dueDate, amount: amount(true) as bigint };
    if (type === 'INSERT') {
      const a = amount(false);
      return a === undefined ? { type, dueDate } : { type, dueDate, amount: a };
    }
    return { type: 'DELETE', dueDate };
  });
}

/** numberOfRepayments after the variations (Fineract adjustNumberOfRepayments). */
export function repaymentsAfterVariations(t: ScheduleTerms): number {
  let n = t.numberOfRepayments;
  for (const v of t.variations ?? []) {
    if (v.type === 'INSERT') n++;
    else if (v.type === 'DELETE') n--;
  }
  return n;
}

/** The regular loan end date, or the new date of a due-date change made on it. */
export function variedEndDate(t: ScheduleTerms, regularEnd: string): string {
  for (const v of t.variations ?? []) if (v.type === 'DUE_DATE' && v.dueDate === regularEnd) return v.newDueDate;
  return regularEnd;
}

/** One installment of a varied schedule: its due date and, when the user fixed it, its amount. */
export type PlannedSlot = { dueDate: string; amount: bigint | null };

type Entry = { kind: 'AMOUNT' | 'INSERT' | 'DELETE'; date: string; amount: bigint | null; order: number };

/**
 * The due dates (and fixed amounts) of a varied schedule, one `next()` per installment, walking the
 * chain of due dates as Fineract's cumulative generator does.
 */
export function variationPlan(t: ScheduleTerms, calendar: WorkingCalendar | undefined): { next(): PlannedSlot } {
  const seed = t.firstRepaymentDate ?? t.expectedDisbursementDate;
  const step = (d: string) => nextRepaymentDate(d, t.repaymentFrequency, t.repaymentEvery, seed);
  const dueDateChanges = new Map<string, string>();
  const entries: Entry[] = [];
  (t.variations ?? []).forEach((v, order) => {
    if (v.type === 'DUE_DATE') {
      dueDateChanges.set(v.dueDate, v.newDueDate);
      if (v.amount !== undefined) entries.push({ kind: 'AMOUNT', date: v.newDueDate, amount: v.amount, order });
    } else if (v.type === 'INSERT') entries.push({ kind: 'INSERT', date: v.dueDate, amount: v.amount ?? null, order });
    else if (v.type === 'DELETE') entries.push({ kind: 'DELETE', date: v.dueDate, amount: null, order });
    else entries.push({ kind: 'AMOUNT', date: v.dueDate, amount: v.amount, order });
  });
  // By date; on the same date an insert comes before the rest (LoanTermVariationsData.compareTo).
  entries.sort((a, b) =>
    a.date !== b.date
      ? a.date < b.date
        ? -1
        : 1
      : (a.kind === 'INSERT' ? 0 : 1) - (b.kind === 'INSERT' ? 0 : 1) || a.order - b.order,
  );

  let chain = t.expectedDisbursementDate;
  let first = true;
  let cursor = 0;
  let previousDue = t.disbursementDate;
  return {
    next(): PlannedSlot {
      for (let guard = 0; guard < 10_000; guard++) {
        const previousChain = chain;
        chain = first && t.firstRepaymentDate ? t.firstRepaymentDate : step(chain);
        first = false;
        let due = adjustDueDate(chain, calendar, step);
        if (calendar?.holidays.some((h) => h.rescheduleToNextRepaymentDate && h.from <= chain && chain <= h.to))
          chain = due;
        const moved = dueDateChanges.get(due);
        if (moved !== undefined) due = moved;
        let skip = false;
        let amount: bigint | null = null;
        while (cursor < entries.length && entries[cursor].date <= due) {
          const e = entries[cursor++];
          if (e.kind === 'INSERT') {
            chain = previousChain;
            due = e.date;
            amount = e.amount;
          } else if (e.kind === 'DELETE') {
            if (e.date === due) skip = true;
          } else {
            amount = e.amount;
          }
        }
        if (skip) continue;
        due = adjustDueDate(due, calendar, step);
        if (due <= previousDue) due = nextWorkingDayAfter(previousDue, calendar);
        previousDue = due;
        return { dueDate: due, amount };
      }
      throw new Error('variation plan does not converge');
    },
  };
}

/**
 * Fineract's checks on a variable-installment request (LoanScheduleAssembler.assempleVariableScheduleFrom),
 * against the due dates of the schedule without variations: changed, fixed and deleted dates must be due
 * dates; the last installment can be neither deleted nor given an amount; an insert lies after the
 * disbursement and not after the last due date; no two installments on one date; and, when the product
 * sets them, every gap between consecutive due dates (from the disbursement) lies within
 * [minimumGapDays, maximumGapDays]. Returns the final due dates.
 */
export function checkVariations(
  variations: ScheduleVariation[],
  baseDueDates: string[],
  disbursementDate: string,
  gaps?: { minimumGapDays: number | null; maximumGapDays: number | null },
): string[] {
  const dates = new Set(baseDueDates);
  let last = baseDueDates[baseDueDates.length - 1];
  const clash = (d: string, i: number) => bad(`variations[${i}]`, `two installments would fall on ${d}`);
  variations.forEach((v, i) => {
    const field = `variations[${i}].dueDate`;
    if (v.type === 'INSERT') {
      if (dates.has(v.dueDate)) clash(v.dueDate, i);
      if (v.dueDate > last) bad(field, `an inserted installment cannot fall after the last due date ${last}`);
      dates.add(v.dueDate);
      return;
    }
    if (!dates.has(v.dueDate)) bad(field, `${v.dueDate} is not a due date of the schedule`);
    if (v.type === 'DELETE') {
      if (v.dueDate === last) bad(field, 'the last installment cannot be deleted');
      dates.delete(v.dueDate);
    } else if (v.type === 'AMOUNT') {
      if (v.dueDate === last) bad(field, 'the amount of the last installment is what remains; it cannot be fixed');
    } else {
      dates.delete(v.dueDate);
      if (dates.has(v.newDueDate)) clash(v.newDueDate, i);
      dates.add(v.newDueDate);
      if (v.dueDate === last) last = v.newDueDate;
      else if (v.amount !== undefined && v.newDueDate >= last) {
        bad(`variations[${i}].amount`, 'the amount of the last installment is what remains; it cannot be fixed');
      }
    }
  });
  const sorted = [...dates].sort();
  if (gaps && (gaps.minimumGapDays !== null || gaps.maximumGapDays !== null)) {
    let previous = disbursementDate;
    for (const d of sorted) {
      const gap = daysBetween(previous, d);
      if (
        (gaps.minimumGapDays !== null && gap < gaps.minimumGapDays) ||
        (gaps.maximumGapDays !== null && gap > gaps.maximumGapDays)
      ) {
        bad(
          'variations',
          `${d}: ${gap} days after the previous date; the product allows ${gaps.minimumGapDays ?? 0} to ${gaps.maximumGapDays ?? '∞'} days between installments`,
        );
      }
      previous = d;
    }
  }
  return sorted;
}
