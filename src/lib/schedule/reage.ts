import { AppError } from '../errors/app-error.ts';
import { addDays, addMonths, isValidDate } from './dates.ts';
import { divRound } from './decimal.ts';
import type { RoundingMode } from './types.ts';

/**
 * Re-ageing and re-amortisation of a loan's installments, as Fineract (snapshot 4198b0bc) does them
 * for progressive loans with the advanced payment allocation strategy
 * (AdvancedPaymentScheduleTransactionProcessor handleReAge / handleReAmortization). Pure: the caller
 * passes the installments as they stand on the transaction date and gets the new ones back.
 *
 * Only principal moves. Interest, fees and penalties stay on the installments that carry them; what
 * was already paid (or written off) stays where it is. All amounts are minor units of the currency.
 */
export type ReshapeInstallment = {
  number: number;
  fromDate: string;
  dueDate: string;
  isDownPayment?: boolean;
  /** Fineract's N+1 installment (a charge due after maturity). */
  isAdditional?: boolean;
  /** Created by an earlier re-age. */
  isReAged?: boolean;
  principal: bigint;
  /** Principal settled: paid or written off. */
  principalPaid: bigint;
  interest: bigint;
  interestPaid: bigint;
  fees: bigint;
  feesPaid: bigint;
  penalties: bigint;
  penaltiesPaid: bigint;
};

export type ReshapedInstallment = Omit<ReshapeInstallment, 'isReAged' | 'isDownPayment' | 'isAdditional'> & {
  isDownPayment: boolean;
  isAdditional: boolean;
  isReAged: boolean;
};

export type ReshapeMoney = {
  /** Digits after the decimal point of the currency (minor units = 10^digits per unit). */
  digits: number;
  /** Fineract's MoneyHelper rounding mode; HALF_EVEN by default. */
  roundingMode?: RoundingMode;
  /** The product's installmentAmountInMultiplesOf, in currency units (null/0 = off). */
  installmentAmountInMultiplesOf?: number | null;
};

export type ReAgeFrequency = 'DAYS' | 'WEEKS' | 'MONTHS' | 'YEARS';
export const RE_AGE_FREQUENCIES: readonly ReAgeFrequency[] = ['DAYS', 'WEEKS', 'MONTHS', 'YEARS'];

export type ReAgeRequest = {
  /** The re-age transaction's date (the business date). */
  transactionDate: string;
  /** Due date of the first new installment. */
  startDate: string;
  frequencyType: ReAgeFrequency;
  frequencyNumber: number;
  numberOfInstallments: number;
};

export type ReshapeResult = {
  /** Every installment after the change, numbered 1… in due-date order. */
  installments: ReshapedInstallment[];
  /** Principal the change moved (the transaction's amount and principal portion). */
  principal: bigint;
};

const normalise = (i: ReshapeInstallment): ReshapedInstallment => ({
  ...i,
  isDownPayment: i.isDownPayment ?? false,
  isAdditional: i.isAdditional ?? false,
  isReAged: i.isReAged ?? false,
});

/** The per-installment share: outstanding / n at the currency scale, then to the installment multiple. */
function share(total: bigint, n: number, money: ReshapeMoney): bigint {
  const mode = money.roundingMode ?? 'HALF_EVEN';
  let each = divRound(total, BigInt(n), mode);
  const multiple = money.installmentAmountInMultiplesOf ?? 0;
  if (multiple > 0) {
    const unit = BigInt(multiple) * 10n ** BigInt(money.digits);
    each = divRound(each, unit, mode) * unit;
  }
  return each;
}

function nextDueDate(date: string, request: ReAgeRequest): string {
  const n = request.frequencyNumber;
  switch (request.frequencyType) {
    case 'DAYS':
      return addDays(date, n);
    case 'WEEKS':
      return addDays(date, 7 * n);
    case 'MONTHS':
      return addMonths(date, n);
    case 'YEARS':
      return addMonths(date, 12 * n);
  }
}

function renumber(rows: ReshapedInstallment[]): ReshapedInstallment[] {
  return rows
    .map((row, index) => ({ row, index }))
    .sort((a, b) => (a.row.dueDate < b.row.dueDate ? -1 : a.row.dueDate > b.row.dueDate ? 1 : a.index - b.index))
    .map(({ row }, k) => ({ ...row, number: k + 1 }));
}

function bad(field: string, message: string): never {
  throw new AppError('BAD_REQUEST', `${field}: ${message}`, { field });
}

/** The request checks Fineract's LoanReAgingValidator makes on the parameters themselves. */
export function validateReAgeRequest(request: ReAgeRequest): void {
  if (!isValidDate(request.startDate)) bad('startDate', 'must be a date (YYYY-MM-DD)');
  if (!RE_AGE_FREQUENCIES.includes(request.frequencyType)) bad('frequencyType', 'must be DAYS, WEEKS, MONTHS or YEARS');
  if (!Number.isInteger(request.frequencyNumber) || request.frequencyNumber <= 0)
    bad('frequencyNumber', 'must be a whole number greater than 0');
  if (
    !Number.isInteger(request.numberOfInstallments) ||
    request.numberOfInstallments <= 0 ||
    request.numberOfInstallments > 1200
  )
    bad('numberOfInstallments', 'must be a whole number from 1 to 1200');
}

/**
 * Re-age: every installment gives up its unpaid principal (its principal becomes what was paid of
 * it), and the sum is spread over `numberOfInstallments` new installments, the first due on
 * `startDate` (starting from the last non-down-payment installment's due date), each next one
 * `frequencyNumber` × `frequencyType` after the previous. Each gets outstanding / n rounded to the
 * currency (then to the product's installment multiple); the last takes what rounding left over.
 * Installments are renumbered by due date.
 */
export function reAgeInstallments(
  installments: readonly ReshapeInstallment[],
  request: ReAgeRequest,
  money: ReshapeMoney,
): ReshapeResult {
  validateReAgeRequest(request);
  const rows = installments.map(normalise);
  if (rows.length === 0) bad('installments', 'the loan has no installments');
  let outstanding = 0n;
  for (const row of rows) {
    const unpaid = row.principal - row.principalPaid;
    if (unpaid > 0n) {
      outstanding += unpaid;
      row.principal -= unpaid;
    }
  }
  const n = request.numberOfInstallments;
  const each = outstanding > 0n ? share(outstanding, n, money) : 0n;
  const remainder = outstanding > 0n ? outstanding - each * BigInt(n) : 0n;
  const anchor = rows.filter((r) => !r.isDownPayment).at(-1) ?? rows[rows.length - 1];
  const created: ReshapedInstallment[] = [];
  let fromDate = anchor.dueDate;
  let dueDate = request.startDate;
  for (let k = 0; k < n; k++) {
    if (k > 0) {
      fromDate = dueDate;
      dueDate = nextDueDate(dueDate, request);
    }
    created.push({
      number: 0,
      fromDate,
      dueDate,
      isDownPayment: false,
      isAdditional: false,
      isReAged: true,
      principal: each,
      principalPaid: 0n,
      interest: 0n,
      interestPaid: 0n,
      fees: 0n,
      feesPaid: 0n,
      penalties: 0n,
      penaltiesPaid: 0n,
    });
  }
  created[created.length - 1].principal += remainder;
  return { installments: renumber([...rows, ...created]), principal: outstanding };
}

/**
 * Re-amortise: the unpaid principal of every installment due on or before the transaction date is
 * taken off it and spread over the installments due after it (down-payment, N+1 and re-aged ones
 * excepted): each gets overdue / count rounded to the currency (then to the installment multiple),
 * the last one (latest due date) what is left. Refused when no installment falls due after the date.
 */
export function reAmortizeInstallments(
  installments: readonly ReshapeInstallment[],
  transactionDate: string,
  money: ReshapeMoney,
): ReshapeResult {
  if (!isValidDate(transactionDate)) bad('transactionDate', 'must be a date (YYYY-MM-DD)');
  const rows = installments.map(normalise);
  const future = rows.filter((r) => r.dueDate > transactionDate && !r.isAdditional && !r.isDownPayment && !r.isReAged);
  if (future.length === 0) bad('transactionDate', 'no installment falls due after it');
  let overdue = 0n;
  for (const row of rows) {
    if (row.dueDate > transactionDate) continue;
    overdue += row.principal - row.principalPaid;
    row.principal = row.principalPaid;
  }
  const moved = overdue;
  const each = share(overdue, future.length, money);
  const last = future.reduce((a, b) => (b.dueDate > a.dueDate ? b : a));
  for (const row of future) {
    if (row === last) {
      row.principal += overdue;
    } else {
      row.principal += each;
      overdue -= each;
    }
  }
  return { installments: rows, principal: moved };
}
