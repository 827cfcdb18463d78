import type { Tx } from '#lib/db/index.ts';
import type { Actor } from '../actor.ts';
import { applyCharge } from '../apply.ts';
import { loanOutstanding, saveInstallments, totalOf } from '../installments.ts';
import { validationError } from '#lib/errors/messages.ts';
import { installmentHolding } from '#lib/schedule/charges.ts';
import { fromMinor, MAX_AMOUNT_MINOR, toDecimalString } from '#lib/money/money.ts';
import { transitionLoan } from '../lifecycle/loan.ts';
import { refusal, wordedTransition } from '../refusal.ts';
import { loanContextOf } from '../loans.ts';
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
   * date (the first one from its start date inclusive). Instead of installmentNumber.
   */
  dueDate?: string | null;
  date?: string;
  note?: string | null;
};

/**
 * Charges a fee or penalty onto an installment of an active loan (the daily close applies the
 * product's penalties through this). Recognised at once: receivable against income.
 */
export async function applyLoanCharge(tx: Tx, actor: Actor, input: ApplyChargeInput) {
  const { loan, installments, transactions, today } = await openLoanForCommand(tx, actor, input.loanId);
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
  const holding = input.dueDate
    ? installmentHolding(
        installments.map((i) => ({
          number: i.number,
          fromDate: i.from_date,
          dueDate: i.due_date,
          isDownPayment: i.is_down_payment,
          principal: 0n,
          interest: 0n,
          fees: 0n,
          penalties: 0n,
          total: 0n,
          balance: 0n,
        })),
        input.dueDate,
      )
    : null;
  if (input.dueDate && !holding) throw validationError('dueDate', 'date.outOfSchedule', {}, 'BAD_REQUEST');
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
