import { AppError } from '../errors/app-error.ts';
import { isValidDate } from './dates.ts';
import { generateSchedule } from './generator.ts';
import type { Schedule, ScheduleInstallment, ScheduleTerms, WorkingCalendar } from './types.ts';

/**
 * Loan reschedule (Fineract's "reschedule request": LoanRescheduleRequestWritePlatformServiceImpl and
 * AbstractCumulativeLoanScheduleGenerator.rescheduleNextInstallments), as a pure function.
 *
 * What Fineract does, in our words: every installment due before the reschedule-from date (and any
 * down payment) is kept as it is. The rest of the loan is laid out again from the last kept due date:
 *  - the principal still scheduled is the loan's principal minus the principal of the kept rows;
 *  - the number of new installments is the number of installments due on or after the from date,
 *    plus `extraTerms`, plus `graceOnPrincipal` (Fineract records a principal grace together with an
 *    "extend repayment period" variation of the same length);
 *  - the first new due date is `adjustedDueDate` when given, else the from date; the following ones
 *    step one repayment period at a time from it (the dates after a moved date shift with it);
 *  - `newInterestRate` replaces the nominal yearly rate from the first new installment on;
 *  - the first `graceOnPrincipal` new installments repay no principal; `graceOnInterest` new
 *    installments defer their interest to the first one after the grace (the loan's own
 *    interest-payment grace rule);
 *  - declining balance: the EMI (or the equal principal) is computed again on the remaining balance
 *    over the new installments; flat: each new period is charged flat interest on the whole disbursed
 *    principal at the (new) rate, as Fineract's flat generator does.
 *
 * The result is the complete new schedule (kept rows first, then the new ones, numbered 1, 2, 3…),
 * ready for the loan's schedule sync. Progressive loans are refused: at the reference snapshot
 * Fineract's progressive interest-rate change is not implemented (ProgressiveEMICalculator
 * .changeInterestRate is empty) and the other variations are refused by its progressive validator.
 */

export type RescheduleRequest = {
  /** Due date of the first installment to reschedule (an existing installment's due date). */
  rescheduleFromDate: string;
  /** Nominal yearly rate in percent as a decimal string, from the first rescheduled installment on. */
  newInterestRate?: string | null;
  /** New due date of the first rescheduled installment; the following ones shift with it. */
  adjustedDueDate?: string | null;
  /** Installments added at the end. */
  extraTerms?: number | null;
  /** Rescheduled installments that repay no principal (the term grows by as many). */
  graceOnPrincipal?: number | null;
  /** Rescheduled installments whose interest is deferred to the first one after them. */
  graceOnInterest?: number | null;
  /** The day the request is made (must not be before the disbursement). */
  submittedOn: string;
};

/** One installment of the loan as it stands (amounts due, minor units). */
export type CurrentInstallment = {
  number: number;
  fromDate: string;
  dueDate: string;
  principal: bigint;
  interest: bigint;
  fees: bigint;
  penalties: bigint;
  isDownPayment: boolean;
  /** Everything due on it is paid, waived or written off (Fineract "obligations met"). */
  obligationsMet?: boolean;
};

export type RescheduleResult = {
  schedule: Schedule;
  /** How many current installments were kept unchanged (at the start of the schedule). */
  kept: number;
  /** The terms the new installments were generated with (informative). */
  tailTerms: ScheduleTerms;
};

/** Why a reschedule is refused; every refusal carries one of these in `details.reason`. */
export type RescheduleRefusal =
  | 'RESCHEDULE_NOTHING_TO_CHANGE'
  | 'RESCHEDULE_FROM_DATE_NOT_A_DUE_DATE'
  | 'RESCHEDULE_INSTALLMENT_PAID'
  | 'RESCHEDULE_ADJUSTED_DATE_BEFORE_FROM_DATE'
  | 'RESCHEDULE_SUBMITTED_BEFORE_DISBURSEMENT'
  | 'RESCHEDULE_PROGRESSIVE_NOT_SUPPORTED';

function refuse(reason: RescheduleRefusal, message: string, field?: string): never {
  throw new AppError('BAD_REQUEST', message, { field, details: { reason } });
}

function count(value: number | null | undefined, field: string): number {
  if (value === null || value === undefined) return 0;
  if (!Number.isInteger(value) || value < 0 || value > 120) {
    throw new AppError('BAD_REQUEST', `${field}: must be a whole number from 0 to 120`, { field });
  }
  return value;
}

function checkDate(value: string, field: string) {
  if (!isValidDate(value)) throw new AppError('BAD_REQUEST', `${field}: must be a date YYYY-MM-DD`, { field });
}

const RATE = /^\d{1,4}(\.\d{1,6})?$/;

/** Validates the request against the loan; returns the normalised counts. Throws the refusals above. */
export function checkRescheduleRequest(
  terms: ScheduleTerms,
  current: CurrentInstallment[],
  request: RescheduleRequest,
) {
  checkDate(request.rescheduleFromDate, 'rescheduleFromDate');
  checkDate(request.submittedOn, 'submittedOn');
  if (request.adjustedDueDate) checkDate(request.adjustedDueDate, 'adjustedDueDate');
  const rate = request.newInterestRate ?? null;
  if (rate !== null && (!RATE.test(rate) || Number(rate) > 1000)) {
    throw new AppError('BAD_REQUEST', 'newInterestRate: must be a percentage from 0 to 1000', {
      field: 'newInterestRate',
    });
  }
  const extraTerms = count(request.extraTerms, 'extraTerms');
  const graceOnPrincipal = count(request.graceOnPrincipal, 'graceOnPrincipal');
  const graceOnInterest = count(request.graceOnInterest, 'graceOnInterest');
  if (terms.scheduleType === 'PROGRESSIVE') {
    refuse(
      'RESCHEDULE_PROGRESSIVE_NOT_SUPPORTED',
      'Progressive loans cannot be rescheduled yet: only cumulative schedules are supported',
    );
  }
  const adjusted = request.adjustedDueDate || null;
  if (rate === null && adjusted === null && extraTerms === 0 && graceOnPrincipal === 0 && graceOnInterest === 0) {
    refuse(
      'RESCHEDULE_NOTHING_TO_CHANGE',
      'A reschedule needs a new rate, a new due date, extra terms or a grace period',
    );
  }
  if (request.submittedOn < terms.disbursementDate) {
    refuse(
      'RESCHEDULE_SUBMITTED_BEFORE_DISBURSEMENT',
      'submittedOn: cannot be before the disbursement date',
      'submittedOn',
    );
  }
  const from = current.find((i) => !i.isDownPayment && i.dueDate === request.rescheduleFromDate);
  if (!from) {
    refuse(
      'RESCHEDULE_FROM_DATE_NOT_A_DUE_DATE',
      'rescheduleFromDate: no installment falls due on that date',
      'rescheduleFromDate',
    );
  }
  if (from.obligationsMet) {
    refuse('RESCHEDULE_INSTALLMENT_PAID', 'rescheduleFromDate: that installment is already paid', 'rescheduleFromDate');
  }
  if (adjusted !== null && adjusted < request.rescheduleFromDate) {
    refuse(
      'RESCHEDULE_ADJUSTED_DATE_BEFORE_FROM_DATE',
      'adjustedDueDate: cannot be before the date it replaces',
      'adjustedDueDate',
    );
  }
  return { rate, adjusted, extraTerms, graceOnPrincipal, graceOnInterest };
}

/**
 * The new schedule after the reschedule (see the module comment). `current` is the loan's schedule
 * as it stands (principal, interest and charges due per installment). Charges stay on the kept rows;
 * the new rows carry none (the loan's schedule sync moves applied charges onto them).
 */
export function rescheduleSchedule(
  terms: ScheduleTerms,
  current: CurrentInstallment[],
  request: RescheduleRequest,
  calendar?: WorkingCalendar,
): RescheduleResult {
  const r = checkRescheduleRequest(terms, current, request);
  const sorted = [...current].sort((a, b) => a.number - b.number);
  const kept = sorted.filter((i) => i.isDownPayment || i.dueDate < request.rescheduleFromDate);
  const moved = sorted.filter((i) => !i.isDownPayment && i.dueDate >= request.rescheduleFromDate);
  const keptRegular = kept.filter((i) => !i.isDownPayment);
  const keptPrincipal = kept.reduce((s, i) => s + i.principal, 0n);
  const remaining = terms.principal - keptPrincipal;
  const installments = moved.length + r.extraTerms + r.graceOnPrincipal;

  // The new rows start where the last kept regular installment ended (or where the loan started).
  const last = keptRegular.at(-1);
  const start = last ? last.dueDate : terms.expectedDisbursementDate;
  const disbursement = last ? last.dueDate : terms.disbursementDate;
  const firstDue = r.adjusted ?? request.rescheduleFromDate;
  const tailTerms: ScheduleTerms = {
    ...terms,
    principal: remaining,
    annualInterestRate: r.rate ?? terms.annualInterestRate,
    numberOfRepayments: installments,
    expectedDisbursementDate: start,
    disbursementDate: disbursement,
    firstRepaymentDate: firstDue,
    graceOnPrincipalPeriods: r.graceOnPrincipal,
    graceOnInterestPaymentPeriods: r.graceOnInterest,
    interestFreePeriods: 0,
    downPaymentPercent: null,
  };

  let tail: ScheduleInstallment[] = [];
  if (remaining > 0n) {
    tail = generateSchedule(tailTerms, calendar).installments;
    if (terms.interestMethod === 'FLAT') {
      // Flat interest is charged on the whole disbursed principal, period by period.
      const flat = generateSchedule({ ...tailTerms, principal: terms.principal }, calendar).installments;
      tail = tail.map((row, i) => ({ ...row, interest: flat[i].interest, total: row.principal + flat[i].interest }));
    }
  }

  const rows: ScheduleInstallment[] = [];
  let balance = terms.principal;
  for (const k of kept) {
    balance -= k.principal;
    rows.push({
      number: rows.length + 1,
      fromDate: k.fromDate,
      dueDate: k.dueDate,
      principal: k.principal,
      interest: k.interest,
      fees: k.fees,
      penalties: k.penalties,
      total: k.principal + k.interest + k.fees + k.penalties,
      balance,
      isDownPayment: k.isDownPayment,
    });
  }
  for (const t of tail) {
    balance -= t.principal;
    rows.push({ ...t, number: rows.length + 1, balance, fees: 0n, penalties: 0n, total: t.principal + t.interest });
  }
  const totals = { principal: 0n, interest: 0n, fees: 0n, penalties: 0n, total: 0n };
  for (const i of rows) {
    totals.principal += i.principal;
    totals.interest += i.interest;
    totals.fees += i.fees;
    totals.penalties += i.penalties;
    totals.total += i.total;
  }
  return {
    schedule: { currency: terms.currency, digits: terms.digits, installments: rows, totals },
    kept: kept.length,
    tailTerms,
  };
}
