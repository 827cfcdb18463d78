import { validationError } from '#lib/errors/messages.ts';
import type { Tx } from '#lib/db/index.ts';
import type { Actor } from '../actor.ts';
import { transitionLoan } from '../lifecycle/loan.ts';
import { loanContextOf } from '../loans.ts';
import { postJournalEntry } from '../ledger/post-entry.ts';
import { fromMinor, toDecimalString } from '#lib/money/money.ts';
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

export type RefundCreditInput = {
  loanId: string;
  amount?: string | bigint | null;
  date?: string;
  note?: string | null;
};

/**
 * Pays an overpaid loan's credit balance (all of it by default) back to the borrower: Dr
 * OVERPAYMENT_LIABILITY / Cr FUND_SOURCE. With nothing left the loan closes (CLOSED_OBLIGATIONS_MET).
 */
export async function refundCreditBalance(tx: Tx, actor: Actor, input: RefundCreditInput) {
  const { loan, installments, transactions, today } = await openLoanForCommand(tx, actor, input.loanId);
  const context = { ...loanContextOf(installments, transactions), creditBalance: loan.credit_balance };
  const requested =
    input.amount === undefined || input.amount === null ? null : positiveAmount(input.amount, loan.currency).minor; // a bad amount is a 400 in any state
  transitionLoan(loan.status, 'refundCredit', context);
  const amount = requested ?? loan.credit_balance;
  if (amount > loan.credit_balance)
    throw validationError('amount', 'money.exceedsCredit', {
      max: toDecimalString(fromMinor(loan.credit_balance, loan.currency)),
    });
  const date = commandDate(input.date, today, lastTransactionDate(transactions) ?? loan.disbursed_on);
  const creditBalance = loan.credit_balance - amount;
  const status = transitionLoan(loan.status, 'refundCredit', {
    ...context,
    outstandingAfter: context.outstanding,
    creditBalanceAfter: creditBalance,
  });
  const before = auditSnapshot(loan, installments);
  const transaction = await insertTransaction(tx, actor, loan, {
    type: 'CREDIT_BALANCE_REFUND',
    date,
    amount,
    overpayment: amount,
    note: input.note,
  });
  await postJournalEntry(tx, {
    tenantId: actor.tenantId,
    date,
    currency: loan.currency,
    loanId: loan.id,
    transactionId: transaction.id,
    postedBy: actor.userId,
    description: `Credit balance refund on loan ${loan.account_no}`,
    lines: [
      { account: 'OVERPAYMENT_LIABILITY', debit: amount },
      { account: 'FUND_SOURCE', credit: amount },
    ],
  });
  const updated = await updateLoan(tx, loan, {
    status,
    credit_balance: creditBalance,
    closed_on: closedOnFor(status, loan.closed_on, date),
  });
  await auditSuccess(tx, actor, 'loan.refund_credit', 'loan', loan.id, before, {
    ...auditSnapshot(updated, installments),
    transactionId: transaction.id,
  });
  return { transaction, loan: updated };
}
