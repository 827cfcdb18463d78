import { AppError } from '../errors/app-error.ts';
import { addDays, daysBetween, isValidDate } from './dates.ts';
import type {
  DelinquencyInput,
  DelinquencyInstallment,
  DelinquencyPause,
  DelinquencyRange,
  InstallmentLevelDelinquency,
  LoanDelinquency,
} from './types.ts';

/**
 * Delinquency the way Fineract's LoanDelinquencyDomainServiceImpl computes it:
 * - pastDueDays = business date − the oldest due date that still has something unpaid (an installment
 *   due ON the business date is not yet overdue);
 * - delinquentDays = pastDueDays − graceOnArrearsAgeing − days inside a delinquency pause (≥ 0);
 * - delinquentDate = oldest overdue due date + grace;
 * - classification = the range with min ≤ delinquentDays ≤ max (max null = open), none when ≤ 0;
 * - installment level: each overdue installment is placed by its OWN days past due (no grace; pauses do count),
 *   amounts summed per range, reported only while the loan itself is delinquent.
 */

/** The range holding `days`, or null (none when days ≤ 0). */
export function classifyDays(days: number, ranges: DelinquencyRange[]): DelinquencyRange | null {
  if (days <= 0) return null;
  for (const range of ranges) {
    if (days >= range.minimumAgeDays && (range.maximumAgeDays === null || days <= range.maximumAgeDays)) return range;
  }
  return null;
}

/** Installments with something unpaid whose due date is before the business date, oldest first. */
export function overdueInstallments(
  installments: DelinquencyInstallment[],
  businessDate: string,
): DelinquencyInstallment[] {
  return installments
    .filter((i) => i.outstanding > 0n && i.dueDate < businessDate)
    .sort((a, b) => (a.dueDate < b.dueDate ? -1 : a.dueDate > b.dueDate ? 1 : a.number - b.number));
}

/**
 * Paused days before the business date, as DelinquencyEffectivePauseHelper counts them: every pause that
 * started before the date counts end − start when it is over, date − start while it runs (a pause is
 * [from, to) and is not limited to the overdue window).
 */
export function pausedDaysBefore(date: string, pauses: DelinquencyPause[]): number {
  let total = 0;
  for (const p of pauses) {
    if (p.from >= date) continue;
    total += daysBetween(p.from, p.to < date ? p.to : date);
  }
  return total;
}

function validate(input: DelinquencyInput): void {
  if (!isValidDate(input.businessDate)) {
    throw new AppError('BAD_REQUEST', 'businessDate must be a date YYYY-MM-DD', { field: 'businessDate' });
  }
  const grace = input.graceOnArrearsAgeing ?? 0;
  if (!Number.isInteger(grace) || grace < 0) {
    throw new AppError('BAD_REQUEST', 'graceOnArrearsAgeing must be a whole number of days ≥ 0', {
      field: 'graceOnArrearsAgeing',
    });
  }
  for (const [i, r] of input.ranges.entries()) {
    if (
      !Number.isInteger(r.minimumAgeDays) ||
      r.minimumAgeDays < 0 ||
      (r.maximumAgeDays !== null && r.maximumAgeDays < r.minimumAgeDays)
    ) {
      throw new AppError('BAD_REQUEST', `ranges[${i}] must have 0 ≤ minimumAgeDays ≤ maximumAgeDays`, {
        field: `ranges[${i}]`,
      });
    }
  }
}

export function loanDelinquency(input: DelinquencyInput): LoanDelinquency {
  validate(input);
  const grace = input.graceOnArrearsAgeing ?? 0;
  const ranges = [...input.ranges].sort((a, b) => a.minimumAgeDays - b.minimumAgeDays);
  const overdue = overdueInstallments(input.installments, input.businessDate);
  if (overdue.length === 0) {
    return {
      pastDueDays: 0,
      delinquentDays: 0,
      delinquentDate: null,
      delinquentAmount: 0n,
      classification: null,
      installmentLevel: [],
    };
  }
  const oldestDue = overdue[0].dueDate;
  const pastDueDays = daysBetween(oldestDue, input.businessDate);
  const paused = pausedDaysBefore(input.businessDate, input.pauses ?? []);
  const delinquentDays = Math.max(0, pastDueDays - grace - paused);
  const delinquentAmount = overdue.reduce((sum, i) => sum + i.outstanding, 0n);
  const range = classifyDays(delinquentDays, ranges);

  const installmentLevel: InstallmentLevelDelinquency[] = [];
  if (delinquentDays > 0) {
    const byRange = new Map<string, bigint>();
    for (const i of overdue) {
      // Installment level: its own days past due, no arrears grace, but paused days still count out.
      const r = classifyDays(daysBetween(i.dueDate, input.businessDate) - paused, ranges);
      if (r) byRange.set(r.name, (byRange.get(r.name) ?? 0n) + i.outstanding);
    }
    for (const r of ranges) {
      const amount = byRange.get(r.name);
      if (amount !== undefined) installmentLevel.push({ range: r.name, amount });
    }
  }
  return {
    pastDueDays,
    delinquentDays,
    delinquentDate: addDays(oldestDue, grace),
    delinquentAmount,
    classification: range?.name ?? null,
    installmentLevel,
  };
}

/** Fineract's e2e default bucket: 1-3, 4-30, 31-60, 61-90, 91-120, 121-150, 151-180, 181-240, 241+. */
export const DEFAULT_DELINQUENCY_RANGES: DelinquencyRange[] = [
  { name: 'RANGE_1', minimumAgeDays: 1, maximumAgeDays: 3 },
  { name: 'RANGE_3', minimumAgeDays: 4, maximumAgeDays: 30 },
  { name: 'RANGE_30', minimumAgeDays: 31, maximumAgeDays: 60 },
  { name: 'RANGE_60', minimumAgeDays: 61, maximumAgeDays: 90 },
  { name: 'RANGE_90', minimumAgeDays: 91, maximumAgeDays: 120 },
  { name: 'RANGE_120', minimumAgeDays: 121, maximumAgeDays: 150 },
  { name: 'RANGE_150', minimumAgeDays: 151, maximumAgeDays: 180 },
  { name: 'RANGE_180', minimumAgeDays: 181, maximumAgeDays: 240 },
  { name: 'RANGE_240', minimumAgeDays: 241, maximumAgeDays: null },
];
