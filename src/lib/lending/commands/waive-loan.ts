import type { Tx } from '#lib/db/index.ts';
import type { Actor } from '../actor.ts';
import { applyWaiver } from '../apply.ts';
import { loanOutstanding, saveInstallments, totalOf } from '../installments.ts';
import { transitionLoan } from '../lifecycle/loan.ts';
import { loanContextOf } from '../loans.ts';
import { postJournalEntry } from '../ledger/post-entry.ts';
import {
  auditSnapshot,
  auditSuccess,
  closedOnFor,
  commandDate,
  insertTransaction,
  lastTransactionDate,
  openLoanForCommand,
  positiveAmount,
  updateLoan,
} from './common.ts';

export type WaiveInput = {
  loanId: string;
  /** What to waive: 'interest', or 'charges' (fees and penalties). */
  kind: 'interest' | 'charges';
  /** Amount to forgive (decimal string or minor units); default everything outstanding of that kind. */
  amount?: string | bigint | null;
  date?: string;
  note?: string | null;
};

/**
 * Waives (forgives) interest, or fees and penalties, oldest installment first. No cash moves: the
 * receivable is reversed against the income it was recognised in. Waiving everything left can
 * close the loan.
 */
export async function waiveLoan(tx: Tx, actor: Actor, input: WaiveInput) {
  const { loan, installments, transactions, today } = await openLoanForCommand(tx, actor, input.loanId);
  // The input first: a bad amount is a 400 whatever the loan's state.
  let requested: bigint | null =
    input.amount === undefined || input.amount === null ? null : positiveAmount(input.amount, loan.currency).minor;
  const context = loanContextOf(installments, transactions);
  const action = input.kind === 'interest' ? 'waiveInterest' : 'waiveCharges';
  transitionLoan(loan.status, action, context);
  const date = commandDate(input.date, today, lastTransactionDate(transactions) ?? loan.disbursed_on);
  const out = loanOutstanding(installments);
  let amounts: { interest: bigint; fees: bigint; penalties: bigint };
  if (input.kind === 'interest') {
    amounts = { interest: requested ?? out.interest, fees: 0n, penalties: 0n };
  } else {
    // Charges: penalties first, then fees (the costlier, discretionary part is forgiven first).
    requested ??= out.fees + out.penalties;
    const penalties = requested < out.penalties ? requested : out.penalties;
    amounts = { interest: 0n, fees: requested - penalties, penalties };
  }
  const before = auditSnapshot(loan, installments);
  const applied = applyWaiver(installments, amounts, date);
  const status = transitionLoan(loan.status, action, {
    ...context,
    outstandingAfter: totalOf(loanOutstanding(installments)),
    creditBalanceAfter: loan.credit_balance,
  });
  const total = applied.interest + applied.fees + applied.penalties;
  const transaction = await insertTransaction(tx, actor, loan, {
    type: input.kind === 'interest' ? 'WAIVE_INTEREST' : 'WAIVE_CHARGES',
    date,
    amount: total,
    interest: applied.interest,
    fees: applied.fees,
    penalties: applied.penalties,
    note: input.note,
  });
  await saveInstallments(tx, installments);
  await postJournalEntry(tx, {
    tenantId: actor.tenantId,
    date,
    currency: loan.currency,
    loanId: loan.id,
    transactionId: transaction.id,
    postedBy: actor.userId,
    description: `Waiver of ${input.kind} on loan ${loan.account_no}`,
    lines: [
      { account: 'INTEREST_INCOME', debit: applied.interest },
      { account: 'INTEREST_RECEIVABLE', credit: applied.interest },
      { account: 'FEE_INCOME', debit: applied.fees },
      { account: 'FEE_RECEIVABLE', credit: applied.fees },
      { account: 'PENALTY_INCOME', debit: applied.penalties },
      { account: 'PENALTY_RECEIVABLE', credit: applied.penalties },
    ],
  });
  const updated = await updateLoan(tx, loan, { status, closed_on: closedOnFor(status, loan.closed_on, date) });
  await auditSuccess(tx, actor, `loan.waive_${input.kind}`, 'loan', loan.id, before, {
    ...auditSnapshot(updated, installments),
    transactionId: transaction.id,
  });
  return { transaction, loan: updated };
}
