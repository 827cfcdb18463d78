import type { Tx } from '#lib/db/index.ts';
import type { Actor } from '../actor.ts';
import { applyWriteOff } from '../apply.ts';
import { saveInstallments } from '../installments.ts';
import { transitionLoan } from '../lifecycle/loan.ts';
import { loanContextOf } from '../loans.ts';
import { postJournalEntry } from '../ledger/post-entry.ts';
import {
  auditSnapshot,
  auditSuccess,
  commandDate,
  insertTransaction,
  lastTransactionDate,
  openLoanForCommand,
  updateLoan,
} from './common.ts';

export type WriteOffInput = { loanId: string; date?: string; note?: string | null };

/** Writes off everything still owed: receivables move to write-off expense; the loan closes as CLOSED_WRITTEN_OFF. */
export async function writeOffLoan(tx: Tx, actor: Actor, input: WriteOffInput) {
  const { loan, installments, transactions, today } = await openLoanForCommand(tx, actor, input.loanId);
  const status = transitionLoan(loan.status, 'writeOff', loanContextOf(installments, transactions));
  const date = commandDate(input.date, today, lastTransactionDate(transactions) ?? loan.disbursed_on);
  const before = auditSnapshot(loan, installments);
  const w = applyWriteOff(installments, date);
  const amount = w.principal + w.interest + w.fees + w.penalties;
  const transaction = await insertTransaction(tx, actor, loan, {
    type: 'WRITE_OFF',
    date,
    amount,
    principal: w.principal,
    interest: w.interest,
    fees: w.fees,
    penalties: w.penalties,
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
    description: `Write-off of loan ${loan.account_no}`,
    lines: [
      { account: 'WRITE_OFF_EXPENSE', debit: amount },
      { account: 'LOAN_PORTFOLIO', credit: w.principal },
      { account: 'INTEREST_RECEIVABLE', credit: w.interest },
      { account: 'FEE_RECEIVABLE', credit: w.fees },
      { account: 'PENALTY_RECEIVABLE', credit: w.penalties },
    ],
  });
  const updated = await updateLoan(tx, loan, { status, written_off_on: date, closed_on: date });
  await auditSuccess(tx, actor, 'loan.write_off', 'loan', loan.id, before, {
    ...auditSnapshot(updated, installments),
    transactionId: transaction.id,
  });
  return { transaction, loan: updated };
}
