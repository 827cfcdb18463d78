import { AppError } from '#lib/errors/app-error.ts';
import type { Tx } from '#lib/db/index.ts';
import type { Actor } from '../actor.ts';
import { applyCharge, replay } from '../apply.ts';
import { loanOutstanding, removeEmptyAdditional, saveInstallments, totalOf } from '../installments.ts';
import { transitionLoan } from '../lifecycle/loan.ts';
import { assertUuid, loanContextOf } from '../loans.ts';
import { mirrorLinesOf, postJournalEntry } from '../ledger/post-entry.ts';
import { REVERSIBLE_TYPES } from '../transaction-types.ts';
import { recalculateAfter } from '../recalculation.ts';
import {
  auditSnapshot,
  auditSuccess,
  closedOnFor,
  insertTransaction,
  openLoanForCommand,
  reconcileLoanLedger,
  updateLoan,
} from './common.ts';

export type ReverseInput = { loanId: string; transactionId: string; note?: string | null };

/**
 * Reverses one transaction: appends a REVERSAL naming it, posts the mirror of its journal entry,
 * then rebuilds the installments by replaying the remaining transactions in order and posts any
 * reallocation this causes (a later payment may now settle other components). While a write-off
 * stands, only the write-off itself can be reversed.
 */
export async function reverseLoanTransaction(tx: Tx, actor: Actor, input: ReverseInput) {
  assertUuid(input.transactionId, 'transactionId');
  const { loan, product, installments, transactions, today } = await openLoanForCommand(tx, actor, input.loanId);
  const target = transactions.find((t) => t.id === input.transactionId);
  if (!target)
    throw new AppError('NOT_FOUND', 'This transaction does not belong to the loan', { field: 'transactionId' });
  if (!REVERSIBLE_TYPES.includes(target.type)) {
    throw new AppError('CONFLICT', `A ${target.type} transaction cannot be reversed`, {
      field: 'transactionId',
      details: { reason: 'not_reversible' },
    });
  }
  if (target.is_reversed)
    throw new AppError('CONFLICT', 'This transaction is already reversed', {
      field: 'transactionId',
      details: { reason: 'already_reversed' },
    });
  const standingWriteOff = transactions.find((t) => t.type === 'WRITE_OFF' && !t.is_reversed);
  if (standingWriteOff && standingWriteOff.id !== target.id) {
    throw new AppError('CONFLICT', 'Reverse the write-off first', {
      field: 'transactionId',
      details: { reason: 'write_off_first' },
    });
  }
  // A re-age / re-amortisation reshaped the dues from the history before it: changing that history
  // under it would leave the reshaped dues wrong, so it is undone first (its own undo command).
  const targetIndex = transactions.indexOf(target);
  if (
    transactions.some((t, i) => i > targetIndex && !t.is_reversed && (t.type === 'REAGE' || t.type === 'REAMORTIZE'))
  ) {
    throw new AppError('CONFLICT', 'Undo the later re-age or re-amortisation first', {
      field: 'transactionId',
      details: { reason: 'undo_later_reshape_first' },
    });
  }
  const context = loanContextOf(installments, transactions);
  transitionLoan(loan.status, 'reverseTransaction', context);
  const before = auditSnapshot(loan, installments);
  const date = today;

  if (target.type === 'FEE_APPLIED' || target.type === 'PENALTY_APPLIED') {
    // Dues change first; the replay below then re-settles what the remaining payments cover.
    applyCharge(
      installments,
      target.installment_number!,
      target.type === 'FEE_APPLIED' ? 'fee' : 'penalty',
      -target.amount,
      date,
    );
  }
  const live = transactions.filter((t) => t.id !== target.id && !t.is_reversed && t.type !== 'REVERSAL');
  const creditBalance = replay(installments, live, product.allocation_strategy);
  const status = transitionLoan(loan.status, 'reverseTransaction', {
    ...context,
    outstandingAfter: totalOf(loanOutstanding(installments)),
    creditBalanceAfter: creditBalance,
  });
  const reversal = await insertTransaction(tx, actor, loan, {
    type: 'REVERSAL',
    date,
    amount: target.amount,
    principal: target.principal_portion,
    interest: target.interest_portion,
    fees: target.fee_portion,
    penalties: target.penalty_portion,
    overpayment: target.overpayment_portion,
    reversesId: target.id,
    note: input.note,
  });
  // A charge after maturity reversed: its N+1 installment goes once it carries nothing (Fineract).
  await removeEmptyAdditional(tx, installments);
  await saveInstallments(tx, installments);
  await postJournalEntry(tx, {
    tenantId: actor.tenantId,
    date,
    currency: loan.currency,
    loanId: loan.id,
    transactionId: reversal.id,
    postedBy: actor.userId,
    description: `Reversal of ${target.type} ${target.id} on loan ${loan.account_no}`,
    lines: await mirrorLinesOf(tx, target.id),
  });
  const reversed = await updateLoan(tx, loan, {
    status,
    credit_balance: creditBalance,
    closed_on: closedOnFor(status, null, date),
    written_off_on: target.type === 'WRITE_OFF' ? null : loan.written_off_on,
  });
  await reconcileLoanLedger(tx, actor, reversed, installments, date, reversal.id);
  // Interest recalculation (1120): the engine recomputes the dues without the reversed transaction.
  const { loan: updated, installments: after } = await recalculateAfter(tx, actor, {
    loan: reversed,
    previousStatus: loan.status,
    product,
    installments,
    action: 'reverseTransaction',
    context,
    date,
    today,
    transactionId: reversal.id,
  });
  await auditSuccess(tx, actor, 'loan.reverse_transaction', 'loan', loan.id, before, {
    ...auditSnapshot(updated, after),
    reversedTransactionId: target.id,
    reversalId: reversal.id,
  });
  return { transaction: reversal, loan: updated };
}
