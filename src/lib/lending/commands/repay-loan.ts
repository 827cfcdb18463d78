import type { Tx } from '#lib/db/index.ts';
import { validationError } from '#lib/errors/messages.ts';
import { fromMinor, toDecimalString } from '#lib/money/money.ts';
import type { ProductRow } from '../products.ts';
import type { Actor } from '../actor.ts';
import { applyRepayment } from '../apply.ts';
import { loanOutstanding, saveInstallments, totalOf } from '../installments.ts';
import { transitionLoan } from '../lifecycle/loan.ts';
import { loanContextOf } from '../loans.ts';
import { recalculateAfter } from '../recalculation.ts';
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

export type RepayInput = {
  loanId: string;
  /** Decimal string ("10.00") or minor units. */
  amount: string | bigint;
  /** Defaults to the business date; not after it, not before the loan's last transaction. */
  date?: string;
  note?: string | null;
  /**
   * The caller saw that the amount is above what the loan owes and accepts the credit balance it
   * leaves (only for products that allow overpayment; without it such a repayment is a 409).
   */
  confirmOverpayment?: boolean;
};

/**
 * Records a repayment: allocated over the installments by the product's strategy (the schedule
 * engine's allocatePayment); a repayment that settles everything closes the loan (CLOSED_OBLIGATIONS_MET).
 * Money beyond everything owed (the total outstanding of every installment: principal, interest,
 * fees and penalties) is refused (422) unless the product allows overpayment; then it needs the
 * caller's `confirmOverpayment` (else 409 with the credit balance it would create) and becomes a
 * credit balance, the loan OVERPAID. Runs under the loan's
 * row lock, so concurrent repayments apply one after the other and never drive a balance negative.
 */
export async function repayLoan(tx: Tx, actor: Actor, input: RepayInput) {
  const state = await openLoanForCommand(tx, actor, input.loanId);
  const { loan, product, installments, transactions, today } = state;
  const { minor: amount } = positiveAmount(input.amount, loan.currency);
  const context = loanContextOf(installments, transactions);
  transitionLoan(loan.status, 'repay', context); // refuses early when the loan cannot take money
  const date = commandDate(input.date, today, lastTransactionDate(transactions) ?? loan.disbursed_on);
  const before = auditSnapshot(loan, installments);
  assertOverpaymentAllowed(product, totalOf(loanOutstanding(installments)), amount, input.confirmOverpayment === true);
  const applied = applyRepayment(installments, amount, date, product.allocation_strategy);
  const creditBalance = loan.credit_balance + applied.overpayment;
  const status = transitionLoan(loan.status, 'repay', {
    ...context,
    outstandingAfter: totalOf(loanOutstanding(installments)),
    creditBalanceAfter: creditBalance,
  });

  const transaction = await insertTransaction(tx, actor, loan, {
    type: 'REPAYMENT',
    date,
    amount,
    principal: applied.principal,
    interest: applied.interest,
    fees: applied.fees,
    penalties: applied.penalties,
    overpayment: applied.overpayment,
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
    description: `Repayment on loan ${loan.account_no}`,
    lines: [
      { account: 'FUND_SOURCE', debit: amount },
      { account: 'LOAN_PORTFOLIO', credit: applied.principal },
      { account: 'INTEREST_RECEIVABLE', credit: applied.interest },
      { account: 'FEE_RECEIVABLE', credit: applied.fees },
      { account: 'PENALTY_RECEIVABLE', credit: applied.penalties },
      { account: 'OVERPAYMENT_LIABILITY', credit: applied.overpayment },
    ],
  });
  const recorded = await updateLoan(tx, loan, {
    status,
    credit_balance: creditBalance,
    closed_on: closedOnFor(status, loan.closed_on, date),
  });
  // Interest recalculation (1120): the engine recomputes the dues after this repayment.
  const { loan: updated, installments: after } = await recalculateAfter(tx, actor, {
    loan: recorded,
    previousStatus: loan.status,
    product,
    installments,
    action: 'repay',
    context,
    date,
    today,
    transactionId: transaction.id,
  });
  await auditSuccess(tx, actor, 'loan.repay', 'loan', loan.id, before, {
    ...auditSnapshot(updated, after),
    transactionId: transaction.id,
    amount,
  });
  return { transaction, loan: updated };
}

/**
 * A repayment above what is owed: refused for products without overpayment (422, stored with the
 * idempotency key: the same request always gets it); for the others it needs confirmation (409, not
 * stored, so the same key may come back with `confirmOverpayment: true`). Both name the amount field
 * and carry what is owed and the credit balance the repayment would leave.
 */
function assertOverpaymentAllowed(product: ProductRow, owed: bigint, amount: bigint, isConfirmed: boolean): void {
  if (amount <= owed) return;
  const params = {
    owed: toDecimalString(fromMinor(owed, product.currency)),
    credit: toDecimalString(fromMinor(amount - owed, product.currency)),
    currency: product.currency,
  };
  const details = { reason: 'overpayment', owed: params.owed, creditBalance: params.credit };
  if (!product.allow_overpayment)
    throw validationError('amount', 'money.exceedsOwed', params, 'UNPROCESSABLE', details);
  if (!isConfirmed)
    throw validationError('amount', 'money.confirmOverpayment', params, 'CONFLICT', {
      ...details,
      reason: 'overpayment_unconfirmed',
    });
}
