import { AppError } from '#lib/errors/app-error.ts';
import type { Tx } from '#lib/db/index.ts';
import type { Actor } from './actor.ts';
import { applyCharge, replay } from './apply.ts';
import {
  loadInstallments,
  saveInstallments,
  trackInstallments,
  type Components,
  type InstallmentRow,
} from './installments.ts';
import { postJournalEntry } from './ledger/post-entry.ts';
import { loadTransactions, type LoanRow, type TransactionRow } from './loans.ts';
import type { ProductRow } from './products.ts';
import { reconcileLoanLedger, updateLoan } from './commands/common.ts';
import { recordScheduleVersion } from './schedule-versions.ts';

/** One installment of a recomputed schedule (the schedule engine's ScheduleInstallment is one). */
export type ScheduleRowInput = {
  number: number;
  fromDate: string;
  dueDate: string;
  isDownPayment?: boolean;
  /** The N+1 installment of charges after maturity (migration 1122). */
  isAdditional?: boolean;
  principal: bigint;
  interest: bigint;
  fees: bigint;
  penalties: bigint;
};

/** The row of an engine installment (which carries more: totals, balance, flags) that replaceLoanSchedule writes. */
export function scheduleRowOf(i: ScheduleRowInput): ScheduleRowInput {
  return {
    number: i.number,
    fromDate: i.fromDate,
    dueDate: i.dueDate,
    isDownPayment: i.isDownPayment,
    ...(i.isAdditional ? { isAdditional: true } : {}),
    principal: i.principal,
    interest: i.interest,
    fees: i.fees,
    penalties: i.penalties,
  };
}

export type ReplaceScheduleOptions = {
  /** Value date of the adjustment entries. */
  date: string;
  /** The transaction the change belongs to (a tranche's DISBURSEMENT, a REAGE…), if any. */
  transactionId?: string | null;
  /** Journal entry description, e.g. "Interest recalculation of loan L-0001". */
  description: string;
};

export type ReplaceScheduleResult = {
  loan: LoanRow;
  installments: InstallmentRow[];
  /** What the change added to the dues per component (negative when it removed some). */
  dueDelta: Components;
};

const sum = (rows: InstallmentRow[], pick: (r: InstallmentRow) => bigint) => rows.reduce((s, r) => s + pick(r), 0n);

/**
 * Replaces an active loan's installments with a schedule the engine recomputed (interest
 * recalculation, a tranche, a reschedule, a re-age…), then replays the loan's live transactions over
 * the new dues, exactly as a reversal does, so paid, waived and written-off amounts land where the
 * allocation strategy puts them on the new schedule.
 *
 * Charges applied after disbursement (FEE_APPLIED / PENALTY_APPLIED) stay owed: each moves to the new
 * installment that falls due on or after its old installment's due date (the last one otherwise); an
 * N+1 installment (charges after maturity) is kept while the new schedule ends before it.
 *
 * Ledger: the change in scheduled interest, fees and penalties is recognised as income (Dr receivable /
 * Cr income, or the reverse when dues shrink), then any money the replay moved between components or
 * into the credit balance is posted as a reallocation. Principal is not created here: the new
 * schedule must repay exactly the principal of the loan's live disbursements (the caller records a
 * tranche's DISBURSEMENT and its entry before calling). The loan row is saved with its new credit
 * balance; status changes stay with the caller.
 */
export async function replaceLoanSchedule(
  tx: Tx,
  actor: Actor,
  state: { loan: LoanRow; product: Pick<ProductRow, 'allocation_strategy'> },
  schedule: readonly ScheduleRowInput[],
  options: ReplaceScheduleOptions,
): Promise<ReplaceScheduleResult> {
  const { loan, product } = state;
  if (schedule.length === 0) throw new AppError('INTERNAL', 'A recomputed schedule has no installment');
  schedule.forEach((row, i) => {
    if (row.number !== i + 1) {
      throw new AppError('INTERNAL', 'A recomputed schedule must number its installments 1, 2, 3…', {
        internal: `row ${i} has number ${row.number}`,
      });
    }
    if (row.principal < 0n || row.interest < 0n || row.fees < 0n || row.penalties < 0n) {
      throw new AppError('INTERNAL', 'A recomputed schedule has a negative amount', {
        internal: `installment ${row.number}`,
      });
    }
  });
  const old = await loadInstallments(tx, loan.id);
  const transactions = await loadTransactions(tx, loan.id);
  const live = transactions.filter((t) => !t.is_reversed && t.type !== 'REVERSAL');
  const disbursed = live.filter((t) => t.type === 'DISBURSEMENT').reduce((s, t) => s + t.principal_portion, 0n);
  const principal = schedule.reduce((s, r) => s + r.principal, 0n);
  if (principal !== disbursed) {
    throw new AppError('INTERNAL', 'The recomputed schedule does not repay the disbursed principal', {
      internal: `${principal} ≠ ${disbursed}`,
    });
  }

  await tx.query(`delete from loan_installments where loan_id = $1`, [loan.id]);
  const params: unknown[] = [];
  const values = withAdditional(schedule, old).map((r, k) => {
    params.push(
      actor.tenantId,
      loan.id,
      r.number,
      r.fromDate,
      r.dueDate,
      r.isDownPayment ?? false,
      r.isAdditional ?? false,
      r.principal,
      r.interest,
      r.fees,
      r.penalties,
    );
    const o = k * 11;
    return `(${Array.from({ length: 11 }, (_, j) => `$${o + j + 1}`).join(', ')})`;
  });
  const installments = trackInstallments(
    (
      await tx.query<InstallmentRow>(
        `insert into loan_installments (tenant_id, loan_id, number, from_date, due_date, is_down_payment, is_additional, principal_due, interest_due, fee_due, penalty_due)
         values ${values.join(', ')} returning *`,
        params,
      )
    ).sort((a, b) => a.number - b.number),
  );
  reattachCharges(old, installments, live, options.date);
  const creditBalance = replay(installments, replayable(live), product.allocation_strategy);
  await saveInstallments(tx, installments);
  // The installments replaced, and what the replay reallocated, stay readable for rebuilding past month ends.
  await recordScheduleVersion(tx, actor.tenantId, loan.id, {
    replaced: old,
    transactions,
    replayed: installments,
    creditBalance,
  });

  const dueDelta: Components = {
    principal: sum(installments, (r) => r.principal_due) - sum(old, (r) => r.principal_due),
    interest: sum(installments, (r) => r.interest_due) - sum(old, (r) => r.interest_due),
    fees: sum(installments, (r) => r.fee_due) - sum(old, (r) => r.fee_due),
    penalties: sum(installments, (r) => r.penalty_due) - sum(old, (r) => r.penalty_due),
  };
  await postJournalEntry(tx, {
    tenantId: actor.tenantId,
    date: options.date,
    currency: loan.currency,
    loanId: loan.id,
    transactionId: options.transactionId ?? null,
    postedBy: actor.userId,
    description: options.description,
    lines: [
      { account: 'INTEREST_RECEIVABLE', debit: dueDelta.interest },
      { account: 'INTEREST_INCOME', credit: dueDelta.interest },
      { account: 'FEE_RECEIVABLE', debit: dueDelta.fees },
      { account: 'FEE_INCOME', credit: dueDelta.fees },
      { account: 'PENALTY_RECEIVABLE', debit: dueDelta.penalties },
      { account: 'PENALTY_INCOME', credit: dueDelta.penalties },
    ],
  });
  const updated =
    creditBalance === loan.credit_balance ? loan : await updateLoan(tx, loan, { credit_balance: creditBalance });
  await reconcileLoanLedger(
    tx,
    actor,
    updated,
    installments,
    options.date,
    options.transactionId ?? null,
    `${options.description}: reallocation`,
  );
  return { loan: updated, installments, dueDelta };
}

/**
 * Keeps the loan's N+1 installment (charges after maturity) when the recomputed schedule has none and
 * still ends before it: appended empty after the new last installment, `reattachCharges` then moves its
 * charges back onto it. When the new schedule runs past it, its charges go onto the installment that
 * now holds their date, as any other charge.
 */
function withAdditional(schedule: readonly ScheduleRowInput[], old: readonly InstallmentRow[]): ScheduleRowInput[] {
  const additional = old.find((r) => r.is_additional);
  const last = schedule[schedule.length - 1];
  if (!additional || schedule.some((r) => r.isAdditional) || additional.due_date <= last.dueDate) return [...schedule];
  return [
    ...schedule,
    {
      number: last.number + 1,
      fromDate: last.dueDate,
      dueDate: additional.due_date,
      isAdditional: true,
      principal: 0n,
      interest: 0n,
      fees: 0n,
      penalties: 0n,
    },
  ];
}

/** The transactions `replay` settles installments with (charges are carried as dues instead). */
function replayable(live: TransactionRow[]): TransactionRow[] {
  return live.filter((t) => t.type !== 'FEE_APPLIED' && t.type !== 'PENALTY_APPLIED');
}

/** Moves every live applied charge onto the new installment that falls due on or after its old one. */
export function reattachCharges(
  old: InstallmentRow[],
  rows: InstallmentRow[],
  live: TransactionRow[],
  date: string,
): void {
  const oldDue = new Map(old.map((r) => [r.number, r.due_date]));
  for (const t of live) {
    if (t.type !== 'FEE_APPLIED' && t.type !== 'PENALTY_APPLIED') continue;
    const due = oldDue.get(t.installment_number ?? -1) ?? t.transaction_date;
    const target = rows.find((r) => r.due_date >= due) ?? rows[rows.length - 1];
    applyCharge(rows, target.number, t.type === 'FEE_APPLIED' ? 'fee' : 'penalty', t.amount, date);
  }
}
