import { decodeMinor, formatMinor } from '../money/money.ts';

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

export function installmentParts(row: InstallmentIn, businessDate: string, digits: number): InstallmentParts {
  const m = (v: string) => decodeMinor(v, digits);
  const paid = m(row.paid.principal) + m(row.paid.interest) + m(row.paid.fees) + m(row.paid.penalties);
  const outstanding = m(row.outstanding.total);
  const isLate = row.dueDate < businessDate;
  const overdue = isLate ? outstanding : 0n;
  const due = isLate ? 0n : outstanding;
  let state: InstallmentState;
  if (outstanding === 0n) state = 'paid';
  else if (isLate) state = 'overdue';
  else if (row.dueDate === businessDate) state = 'due';
  else state = 'upcoming';
  return { paid: formatMinor(paid, digits), due: formatMinor(due, digits), overdue: formatMinor(overdue, digits), state };
}
