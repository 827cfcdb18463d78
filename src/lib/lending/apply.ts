import { AppError } from '../errors/app-error.ts';
import { allocatePayment } from '../schedule/index.ts';
import type { AllocationStrategyCode } from '../schedule/types.ts';
import {
  outstandingOf,
  settle,
  toOutstandingInstallments,
  ZERO,
  type Components,
  type InstallmentRow,
} from './installments.ts';
import type { TransactionRow } from './loans.ts';

/**
 * How each transaction kind changes the installments. Pure functions over the rows (mutated in
 * place); the commands persist the rows afterwards. The same functions replay a loan's history
 * after a reversal, so a reversed loan ends exactly as if the reversed transaction never happened.
 */
export type Applied = Components & { overpayment: bigint };

/** A payment allocated by the product's strategy (the schedule engine's allocatePayment); excess is overpayment. */
export function applyRepayment(
  rows: InstallmentRow[],
  amount: bigint,
  date: string,
  strategy: AllocationStrategyCode,
): Applied {
  const result = allocatePayment({ installments: toOutstandingInstallments(rows), amount, date, strategy });
  const byNumber = new Map(rows.map((r) => [r.number, r]));
  for (const part of result.parts) {
    const row = byNumber.get(part.installmentNumber);
    if (!row) throw new AppError('INTERNAL', 'allocation named an unknown installment');
    row.principal_paid += part.principal;
    row.interest_paid += part.interest;
    row.fee_paid += part.fees;
    row.penalty_paid += part.penalties;
  }
  for (const row of rows) settle(row, date);
  return {
    principal: result.principal,
    interest: result.interest,
    fees: result.fees,
    penalties: result.penalties,
    overpayment: result.excess,
  };
}

/**
 * Waives up to `amounts` of interest / fees / penalties, oldest installment first. Asking for more
 * than is outstanding is refused (a waiver forgives what is owed, never more).
 */
export function applyWaiver(
  rows: InstallmentRow[],
  amounts: Pick<Components, 'interest' | 'fees' | 'penalties'>,
  date: string,
): Applied {
  let { interest, fees, penalties } = amounts;
  const left = rows.reduce(
    (s, r) => {
      const o = outstandingOf(r);
      return { interest: s.interest + o.interest, fees: s.fees + o.fees, penalties: s.penalties + o.penalties };
    },
    { interest: 0n, fees: 0n, penalties: 0n },
  );
  if (interest > left.interest || fees > left.fees || penalties > left.penalties) {
    throw new AppError('CONFLICT', 'The waiver is larger than what is outstanding', {
      details: { reason: 'waiver_exceeds_outstanding' },
    });
  }
  for (const row of rows) {
    const o = outstandingOf(row);
    const i = o.interest < interest ? o.interest : interest;
    const f = o.fees < fees ? o.fees : fees;
    const p = o.penalties < penalties ? o.penalties : penalties;
    row.interest_waived += i;
    row.fee_waived += f;
    row.penalty_waived += p;
    interest -= i;
    fees -= f;
    penalties -= p;
    settle(row, date);
  }
  return {
    principal: 0n,
    interest: amounts.interest,
    fees: amounts.fees,
    penalties: amounts.penalties,
    overpayment: 0n,
  };
}

/** Writes off everything still outstanding on every installment. */
export function applyWriteOff(rows: InstallmentRow[], date: string): Applied {
  const total = { ...ZERO };
  for (const row of rows) {
    const o = outstandingOf(row);
    row.principal_written_off += o.principal;
    row.interest_written_off += o.interest;
    row.fee_written_off += o.fees;
    row.penalty_written_off += o.penalties;
    total.principal += o.principal;
    total.interest += o.interest;
    total.fees += o.fees;
    total.penalties += o.penalties;
    settle(row, date);
  }
  return { ...total, overpayment: 0n };
}

/** Adds a fee or penalty to one installment's dues (negative `amount` removes it again on reversal). */
export function applyCharge(
  rows: InstallmentRow[],
  installmentNumber: number,
  kind: 'fee' | 'penalty',
  amount: bigint,
  date: string,
): void {
  const row = rows.find((r) => r.number === installmentNumber);
  if (!row)
    throw new AppError('BAD_REQUEST', `installment ${installmentNumber} does not exist on this loan`, {
      field: 'installmentNumber',
    });
  if (kind === 'fee') row.fee_due += amount;
  else row.penalty_due += amount;
  if (row.fee_due < 0n || row.penalty_due < 0n) throw new AppError('INTERNAL', 'charge reversal below zero');
  settle(row, date);
}

/**
 * Rebuilds the settled amounts of the installments from the loan's live (non-reversed) transactions,
 * in order. Dues (including applied charges) are kept. Returns the credit balance (overpayments).
 */
export function replay(rows: InstallmentRow[], live: TransactionRow[], strategy: AllocationStrategyCode): bigint {
  for (const row of rows) {
    row.principal_paid = row.interest_paid = row.fee_paid = row.penalty_paid = 0n;
    row.interest_waived = row.fee_waived = row.penalty_waived = 0n;
    row.principal_written_off = row.interest_written_off = row.fee_written_off = row.penalty_written_off = 0n;
    row.obligations_met_on = null;
  }
  let credit = 0n;
  for (const t of live) {
    if (t.type === 'REPAYMENT') credit += applyRepayment(rows, t.amount, t.transaction_date, strategy).overpayment;
    else if (t.type === 'WAIVE_INTEREST' || t.type === 'WAIVE_CHARGES') {
      applyWaiver(
        rows,
        { interest: t.interest_portion, fees: t.fee_portion, penalties: t.penalty_portion },
        t.transaction_date,
      );
    } else if (t.type === 'WRITE_OFF') applyWriteOff(rows, t.transaction_date);
    else if (t.type === 'CREDIT_BALANCE_REFUND') {
      credit -= t.amount;
      if (credit < 0n) {
        throw new AppError('CONFLICT', 'Reverse the credit balance refund first', {
          details: { reason: 'refund_first' },
        });
      }
    }
  }
  for (const row of rows)
    if (row.obligations_met_on === null) settle(row, live.at(-1)?.transaction_date ?? row.due_date);
  return credit;
}
