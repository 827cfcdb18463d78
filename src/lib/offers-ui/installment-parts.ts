import { add, fromDecimalString, isZero, toDecimalString, zeroOf } from '../money/money.ts';

/**
 * One installment of the loan page split as the officer reads it: what was paid, what is still
 * due (not yet late) and what is overdue at the tenant's business date. An installment's
 * outstanding amount is overdue once its due date is before the business date (the same rule as
 * the loans list's "overdue" tab), otherwise it is due. Decimal strings in, decimal strings out,
 * computed in minor units so every cent adds up.
 */
export type InstallmentIn = {
  dueDate: string;
  total: string;
  paid: { principal: string; interest: string; fees: string; penalties: string };
  outstanding: { total: string };
};

export type InstallmentState = 'paid' | 'overdue' | 'due' | 'upcoming';

export type InstallmentParts = { paid: string; due: string; overdue: string; state: InstallmentState };

/** `currency`: the loan's; its digits read the decimal strings. */
export function installmentParts(row: InstallmentIn, businessDate: string, currency: string): InstallmentParts {
  const m = (v: string) => fromDecimalString(v, currency);
  const paid = [row.paid.principal, row.paid.interest, row.paid.fees, row.paid.penalties].map(m).reduce(add);
  const outstanding = m(row.outstanding.total);
  const isLate = row.dueDate < businessDate;
  const overdue = isLate ? outstanding : zeroOf(currency);
  const due = isLate ? zeroOf(currency) : outstanding;
  let state: InstallmentState;
  if (isZero(outstanding)) state = 'paid';
  else if (isLate) state = 'overdue';
  else if (row.dueDate === businessDate) state = 'due';
  else state = 'upcoming';
  return { paid: toDecimalString(paid), due: toDecimalString(due), overdue: toDecimalString(overdue), state };
}
