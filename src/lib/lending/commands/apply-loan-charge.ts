import type { Tx } from '#lib/db/index.ts';
import type { InstallmentRow } from '../installments.ts';
import type { ProductRow } from '../products.ts';
import type { Actor } from '../actor.ts';
import { applyCharge } from '../apply.ts';
import { additionalInstallmentFor, loanOutstanding, saveInstallments, totalOf } from '../installments.ts';
import { validationError } from '#lib/errors/messages.ts';
import { installmentHolding, lastRegularDueDate } from '#lib/schedule/charges.ts';
import { fromMinor, MAX_AMOUNT_MINOR, toDecimalString } from '#lib/money/money.ts';
import { transitionLoan } from '../lifecycle/loan.ts';
import { refusal, wordedTransition } from '../refusal.ts';
import { loanContextOf } from '../loans.ts';
import { recalculates } from '../recalculation.ts';
import { postJournalEntry } from '../ledger/post-entry.ts';
import {
  auditSnapshot,
  auditSuccess,
  commandDate,
  insertTransaction,
  openLoanForCommand,
  positiveAmount,
  updateLoan,
} from './common.ts';

export type ApplyChargeInput = {
  loanId: string;
  kind: 'fee' | 'penalty';
  /** Decimal string or minor units. */
  amount: string | bigint;
  /** Installment the charge is due with; default the oldest one not yet settled. */
  installmentNumber?: number | null;
  /**
   * Specified-due-date charge (Fineract SPECIFIED_DUE_DATE): the installment whose period holds this
   * date (the first one from its start date inclusive); a date after the last due date goes onto the
   * loan's N+1 installment (added, or its due date moved to the latest such date). Instead of
   * installmentNumber.
   */
  dueDate?: string | null;
  date?: string;
  note?: string | null;
};

/**
 * The installment a specified-due-date charge goes on: the one whose period holds the date, else,
 * after the last due date, the N+1 installment (not on a product that recalculates interest: its
 * recalculated schedule has no such installment). Before the disbursement: refused.
 */
async function dueDateInstallment(tx: Tx, product: ProductRow, installments: InstallmentRow[], dueDate: string) {
  const view = installments.map((row) => ({
    row,
    fromDate: row.from_date,
    dueDate: row.due_date,
    isDownPayment: row.is_down_payment,
    isAdditional: row.is_additional,
  }));
  const holding = installmentHolding(view, dueDate);
  if (holding) return holding.row;
  const maturity = lastRegularDueDate(view);
  if (maturity === null || dueDate <= maturity) {
    const start = view.find((i) => !i.isDownPayment)?.fromDate ?? '';
    throw validationError('dueDate', 'date.notBefore', { min: start }, 'BAD_REQUEST');
  }
  if (recalculates(product))
    throw refusal('charge_after_maturity_recalculation', { field: 'dueDate', params: { maturity } });
  return additionalInstallmentFor(tx, installments, maturity, dueDate);
}

/**
 * Charges a fee or penalty onto an installment of an active loan (the daily close applies the
 * product's penalties through this). Recognised at once: receivable against income.
 */
export async function applyLoanCharge(tx: Tx, actor: Actor, input: ApplyChargeInput) {
  const { loan, product, installments, transactions, today } = await openLoanForCommand(tx, actor, input.loanId);
  const { minor: amount } = positiveAmount(input.amount, loan.currency); // the input first: a bad amount is a 400 in any state
  wordedTransition(() => transitionLoan(loan.status, 'applyCharge', loanContextOf(installments, transactions)));
  // What a loan owes stays within the input bound, so its stored sums (installments, outstanding,
  // snapshots) stay far from int8 however many charges it gets.
  if (totalOf(loanOutstanding(installments)) + amount > MAX_AMOUNT_MINOR) {
    throw validationError('amount', 'money.chargeTooLarge', {
      max: toDecimalString(fromMinor(MAX_AMOUNT_MINOR, loan.currency)),
    });
  }
  const date = commandDate(input.date, today, loan.disbursed_on);
  if (input.dueDate && input.installmentNumber != null) throw validationError('dueDate', 'invalid', {}, 'BAD_REQUEST');
  const holding = input.dueDate ? await dueDateInstallment(tx, product, installments, input.dueDate) : null;
  const number =
    holding?.number ??
    input.installmentNumber ??
    installments.find((i) => i.obligations_met_on === null)?.number ??
    installments.at(-1)?.number;
  if (number === undefined) throw refusal('no_installments', { field: 'installmentNumber' });
  const before = auditSnapshot(loan, installments);
  applyCharge(installments, number, input.kind, amount, date);
  const transaction = await insertTransaction(tx, actor, loan, {
    type: input.kind === 'fee' ? 'FEE_APPLIED' : 'PENALTY_APPLIED',
    date,
    amount,
    fees: input.kind === 'fee' ? amount : 0n,
    penalties: input.kind === 'penalty' ? amount : 0n,
    installmentNumber: number,
    note: input.note,
  });
  await saveInstallments(tx, installments);
  const [receivable, income] =
    input.kind === 'fee'
      ? (['FEE_RECEIVABLE', 'FEE_INCOME'] as const)
      : (['PENALTY_RECEIVABLE', 'PENALTY_INCOME'] as const);
  await postJournalEntry(tx, {
    tenantId: actor.tenantId,
    date,
    currency: loan.currency,
    loanId: loan.id,
    transactionId: transaction.id,
    postedBy: actor.userId,
    description: `${input.kind === 'fee' ? 'Fee' : 'Penalty'} on loan ${loan.account_no}, installment ${number}`,
    lines: [
      { account: receivable, debit: amount },
      { account: income, credit: amount },
    ],
  });
  const updated = await updateLoan(tx, loan, {});
  await auditSuccess(tx, actor, `loan.apply_${input.kind}`, 'loan', loan.id, before, {
    ...auditSnapshot(updated, installments),
    transactionId: transaction.id,
  });
  return { transaction, loan: updated };
}
