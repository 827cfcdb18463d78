import { AppError } from '#lib/errors/app-error.ts';
import type { Tx } from '#lib/db/index.ts';
import { generateSchedule, parseTerms } from '#lib/schedule/index.ts';
import type { Actor } from '../actor.ts';
import { transitionLoan } from '../lifecycle/loan.ts';
import { loadInstallments } from '../installments.ts';
import { postJournalEntry } from '../ledger/post-entry.ts';
import { loadCalendar, termsFor } from '../products.ts';
import { auditSuccess, commandDate, insertTransaction, openLoanForCommand, updateLoan } from './common.ts';
import { installmentEditsOf } from './vary-installments.ts';
import { firstTrancheDisbursement, markTrancheDisbursed } from './tranches.ts';

export type DisburseInput = {
  loanId: string;
  /** Defaults to the business date; never after it, never before the approval. */
  date?: string;
  /** First due date, when it should differ from one period after disbursement. */
  firstRepaymentDate?: string | null;
  note?: string | null;
};

/**
 * "Transfer funds": disburses an approved loan. Builds the installments from the schedule engine
 * (product conventions + the days off of the customer's branch), records the DISBURSEMENT, recognises the principal
 * and the scheduled interest and fees in the ledger, and moves the loan (and its offer) on.
 */
export async function disburseLoan(tx: Tx, actor: Actor, input: DisburseInput) {
  const state = await openLoanForCommand(tx, actor, input.loanId);
  const { loan, product, today } = state;
  const status = transitionLoan(loan.status, 'disburse', {
    outstanding: 0n,
    interestOutstanding: 0n,
    chargesOutstanding: 0n,
    hasReversibleTransactions: false,
  });
  const date = commandDate(input.date, today, loan.approved_on);
  const baseTerms = termsFor(product, {
    principal: loan.principal,
    numberOfRepayments: loan.number_of_repayments,
    annualInterestRate: loan.annual_interest_rate,
    disbursementDate: date,
    expectedDisbursementDate: loan.expected_disbursement_date,
    firstRepaymentDate: input.firstRepaymentDate ?? null,
  });
  // Installments edited before disbursement (vary-installments.ts) were laid out on the expected date.
  const edits = installmentEditsOf(loan.terms);
  if (Object.keys(edits).length > 0) {
    if (edits.variations && (date !== loan.expected_disbursement_date || input.firstRepaymentDate)) {
      throw new AppError(
        'CONFLICT',
        `The installments of this loan were edited for a disbursement on ${loan.expected_disbursement_date}; disburse on that date or clear the edits first`,
        { field: 'date' },
      );
    }
    Object.assign(baseTerms, edits);
  }
  // A multi-disbursement loan with expected tranches pays out its first tranche (commands/tranches.ts).
  const tranche = await firstTrancheDisbursement(tx, loan, product, date);
  const terms = tranche ? tranche.terms(baseTerms) : baseTerms;
  const principal = tranche ? tranche.amount : loan.principal;
  const schedule = generateSchedule(parseTerms(terms), await loadCalendar(tx, loan.customer_branch_id));
  if (schedule.totals.principal !== principal) {
    throw new AppError('INTERNAL', 'The schedule does not repay the principal', {
      internal: `${schedule.totals.principal} ≠ ${principal}`,
    });
  }
  const params: unknown[] = [];
  const values = schedule.installments.map((i, k) => {
    params.push(
      actor.tenantId,
      loan.id,
      i.number,
      i.fromDate,
      i.dueDate,
      i.isDownPayment,
      i.principal,
      i.interest,
      i.fees,
      i.penalties,
    );
    const o = k * 10;
    return `(${Array.from({ length: 10 }, (_, j) => `$${o + j + 1}`).join(', ')})`;
  });
  await tx.query(
    `insert into loan_installments (tenant_id, loan_id, number, from_date, due_date, is_down_payment, principal_due, interest_due, fee_due, penalty_due)
     values ${values.join(', ')}`,
    params,
  );
  const transaction = await insertTransaction(tx, actor, loan, {
    type: 'DISBURSEMENT',
    date,
    amount: principal,
    principal,
    note: input.note,
  });
  if (tranche) await markTrancheDisbursed(tx, loan.id, 1, date, transaction.id);
  const t = schedule.totals;
  await postJournalEntry(tx, {
    tenantId: actor.tenantId,
    date,
    currency: loan.currency,
    loanId: loan.id,
    transactionId: transaction.id,
    postedBy: actor.userId,
    description: `Disbursement of loan ${loan.account_no}`,
    lines: [
      { account: 'LOAN_PORTFOLIO', debit: principal },
      { account: 'FUND_SOURCE', credit: principal },
      // Scheduled interest and fees become receivable (and income) when the schedule is fixed.
      { account: 'INTEREST_RECEIVABLE', debit: t.interest },
      { account: 'INTEREST_INCOME', credit: t.interest },
      { account: 'FEE_RECEIVABLE', debit: t.fees },
      { account: 'FEE_INCOME', credit: t.fees },
      { account: 'PENALTY_RECEIVABLE', debit: t.penalties },
      { account: 'PENALTY_INCOME', credit: t.penalties },
    ],
  });
  const atDisbursement = schedule.disbursement?.fees ?? 0n;
  if (atDisbursement > 0n) {
    // Fees due at disbursement are collected out of the disbursed funds (Fineract's repayment at
    // disbursement): the borrower receives the principal less these fees.
    const collected = await insertTransaction(tx, actor, loan, {
      type: 'REPAYMENT_AT_DISBURSEMENT',
      date,
      amount: atDisbursement,
      fees: atDisbursement,
      note: 'Fees due at disbursement',
    });
    await postJournalEntry(tx, {
      tenantId: actor.tenantId,
      date,
      currency: loan.currency,
      loanId: loan.id,
      transactionId: collected.id,
      postedBy: actor.userId,
      description: `Fees at disbursement of loan ${loan.account_no}`,
      lines: [
        { account: 'FUND_SOURCE', debit: atDisbursement },
        { account: 'FEE_INCOME', credit: atDisbursement },
      ],
    });
  }
  const updated = await updateLoan(tx, loan, { status, disbursed_on: date, terms });
  if (loan.offer_id) {
    await tx.query(
      `update offers set status = 'disbursed', loan_id = $2, updated_at = now(), version = version + 1 where id = $1`,
      [loan.offer_id, loan.id],
    );
  }
  await auditSuccess(
    tx,
    actor,
    'loan.disburse',
    'loan',
    loan.id,
    { status: loan.status },
    {
      status,
      disbursedOn: date,
      principal,
      interest: t.interest,
      ...(t.fees > 0n || atDisbursement > 0n ? { fees: t.fees, feesAtDisbursement: atDisbursement } : {}),
    },
  );
  return { transaction, loan: updated, installments: await loadInstallments(tx, loan.id) };
}
