import { AppError } from '#lib/errors/app-error.ts';
import { validationError } from '#lib/errors/messages.ts';
import type { Tx } from '#lib/db/index.ts';
import type { LoanTranchesRow } from '#lib/db/schema.generated.ts';
import { parseDateInput } from '#lib/dates/parse-date.ts';
import { formatMinor } from '#lib/money/money.ts';
import { generateSchedule, parseTerms } from '#lib/schedule/index.ts';
import type { Actor } from '../actor.ts';
import { loadCalendar, type ProductRow } from '../products.ts';
import { postJournalEntry } from '../ledger/post-entry.ts';
import type { LoanRow } from '../loans.ts';
import { refusal } from '../refusal.ts';
import { replaceLoanSchedule } from '../schedule-sync.ts';
import { loadTransactions } from '../loans.ts';
import { recalculates, syncRecalculatedSchedule } from '../recalculation.ts';
import { assertNoStandingReshape } from './reage-loan.ts';
import {
  auditSuccess,
  commandDate,
  insertTransaction,
  lastTransactionDate,
  openLoanForCommand,
  positiveAmount,
  updateLoan,
} from './common.ts';

/**
 * Multi-disbursement loans (Fineract "tranches"): the expected tranches of a loan, recorded before it
 * is disbursed; the loan's disbursement pays out the first one; `disburseNextTranche` pays out the next
 * one on an ACTIVE loan. Each tranche recomputes the schedule with every tranche paid out so far (the
 * engine's `disbursements` terms, src/lib/schedule/tranches.ts), records a DISBURSEMENT with its
 * principal (Dr LOAN_PORTFOLIO / Cr FUND_SOURCE) and rewrites the installments through
 * `replaceLoanSchedule`, which recognises the extra interest (Dr INTEREST_RECEIVABLE / Cr
 * INTEREST_INCOME) and replays the repayments already made. The principal outstanding never exceeds
 * the approved amount (`maxOutstandingBalance` in the terms).
 *
 * Unlike Fineract, the installments carry only the tranches already paid out: a tranche still
 * expected is not owed yet, so it is neither a receivable nor part of the schedule until it is
 * disbursed (Fineract shows expected tranches in the schedule with their future balance).
 */

export type LoanTranche = Pick<
  LoanTranchesRow,
  'number' | 'expected_date' | 'amount' | 'disbursed_on' | 'transaction_id'
>;

export type TrancheInput = { date: string; amount: string | bigint };

export function isMultiDisbursement(product: Pick<ProductRow, 'multi_disbursement'>): boolean {
  return product.multi_disbursement === true;
}

export async function loadTranches(tx: Tx, loanId: string): Promise<LoanTranche[]> {
  return tx.query<LoanTranche>(
    `select number, expected_date, amount, disbursed_on, transaction_id from loan_tranches where loan_id = $1 order by number`,
    [loanId],
  );
}

/**
 * Records (or replaces) the expected tranches of a multi-disbursement loan that is not disbursed yet:
 * dates in order, amounts adding up to the approved principal, at most the product's `max_tranches`.
 */
export async function setLoanTranches(
  tx: Tx,
  actor: Actor,
  input: { loanId: string; tranches: TrancheInput[] },
): Promise<{ loan: LoanRow; tranches: LoanTranche[] }> {
  const { loan, product, today } = await openLoanForCommand(tx, actor, input.loanId);
  if (!isMultiDisbursement(product)) {
    throw refusal('not_multi_disbursement', { field: 'tranches' });
  }
  if (loan.status !== 'SUBMITTED_AND_PENDING_APPROVAL' && loan.status !== 'APPROVED') {
    throw refusal('tranches_after_disbursement', {
      field: 'tranches',
      reason: 'wrong_state',
      details: { status: loan.status },
    });
  }
  const max = product.max_tranches ?? 100;
  if (!Array.isArray(input.tranches) || input.tranches.length < 1) throw validationError('tranches', 'required');
  if (input.tranches.length > max) throw validationError('tranches', 'number.max', { max });
  const rows = input.tranches.map((t, i) => {
    const parsed = parseDateInput(t.date);
    if (!parsed.ok) throw validationError(`tranches.${i}.date`, parsed.problem.key, parsed.problem.params);
    return {
      number: i + 1,
      date: parsed.date,
      amount: positiveAmount(t.amount, loan.currency, `tranches.${i}.amount`).minor,
    };
  });
  for (let i = 1; i < rows.length; i++) {
    if (rows[i].date < rows[i - 1].date)
      throw validationError(`tranches.${i}.date`, 'date.notBefore', { min: rows[i - 1].date });
  }
  if (rows[0].date < today && loan.status === 'SUBMITTED_AND_PENDING_APPROVAL') {
    // A pending loan's first tranche is its expected disbursement: not in the past.
    throw validationError('tranches.0.date', 'date.notBeforeBusinessDate', { min: today });
  }
  const total = rows.reduce((s, r) => s + r.amount, 0n);
  if (total !== loan.principal) {
    throw validationError('tranches', 'money.tranchesTotal', {
      total: formatMinor(loan.principal, product.digits_after_decimal),
    });
  }
  const before = await loadTranches(tx, loan.id);
  await tx.query(`delete from loan_tranches where loan_id = $1`, [loan.id]);
  for (const r of rows) {
    await tx.query(
      `insert into loan_tranches (tenant_id, loan_id, number, expected_date, amount, created_by) values ($1, $2, $3, $4, $5, $6)`,
      [actor.tenantId, loan.id, r.number, r.date, r.amount, actor.userId],
    );
  }
  const tranches = await loadTranches(tx, loan.id);
  await auditSuccess(
    tx,
    actor,
    'loan.tranches.set',
    'loan',
    loan.id,
    { tranches: before.map(auditRow) },
    { tranches: tranches.map(auditRow) },
  );
  return { loan, tranches };
}

function auditRow(t: LoanTranche) {
  return { number: t.number, date: t.expected_date, amount: t.amount };
}

/**
 * For disburseLoan: the first tranche of a multi-disbursement loan (what its disbursement pays out)
 * and the terms additions, or null for a single-disbursement loan.
 */
export async function firstTrancheDisbursement(
  tx: Tx,
  loan: LoanRow,
  product: ProductRow,
  date: string,
): Promise<{ amount: bigint; terms: (terms: Record<string, unknown>) => Record<string, unknown> } | null> {
  if (!isMultiDisbursement(product)) return null;
  const tranches = await loadTranches(tx, loan.id);
  if (tranches.length === 0) return null;
  const first = tranches[0];
  const digits = product.digits_after_decimal;
  return {
    amount: first.amount,
    terms: (terms) => ({
      ...terms,
      principal: formatMinor(first.amount, digits),
      // The schedule of a tranche loan starts on its first disbursement.
      expectedDisbursementDate: date,
      disbursements: [{ date, amount: formatMinor(first.amount, digits) }],
      maxOutstandingBalance: formatMinor(loan.principal, digits),
    }),
  };
}

/** Marks a tranche paid out by a DISBURSEMENT transaction. */
export async function markTrancheDisbursed(
  tx: Tx,
  loanId: string,
  number: number,
  date: string,
  transactionId: string,
): Promise<void> {
  await tx.query(`update loan_tranches set disbursed_on = $3, transaction_id = $4 where loan_id = $1 and number = $2`, [
    loanId,
    number,
    date,
    transactionId,
  ]);
}

export type DisburseTrancheInput = {
  loanId: string;
  /** Defaults to the business date; not before the last transaction, before the maturity date. */
  date?: string;
  note?: string | null;
};

/**
 * Pays out the next expected tranche of an ACTIVE multi-disbursement loan: the schedule is recomputed
 * with every tranche paid out so far, the DISBURSEMENT is recorded and posted, the installments are
 * replaced (interest adjustment and replay of the repayments in replaceLoanSchedule), audited.
 */
export async function disburseNextTranche(tx: Tx, actor: Actor, input: DisburseTrancheInput) {
  const state = await openLoanForCommand(tx, actor, input.loanId);
  const { loan, product, today, transactions, installments } = state;
  if (!isMultiDisbursement(product)) {
    throw refusal('not_multi_disbursement');
  }
  if (loan.status !== 'ACTIVE') {
    throw refusal('tranche_loan_not_active', { reason: 'wrong_state', details: { status: loan.status } });
  }
  const tranches = await loadTranches(tx, loan.id);
  const next = tranches.find((t) => t.disbursed_on === null);
  if (!next) {
    throw refusal('no_tranche_left');
  }
  // The schedule is laid out again from the tranches: a standing re-age would be lost.
  assertNoStandingReshape(transactions);
  const date = commandDate(input.date, today, lastTransactionDate(transactions) ?? loan.disbursed_on);
  const maturity = installments.reduce((m, i) => (i.due_date > m ? i.due_date : m), '');
  if (date >= maturity) throw validationError('date', 'date.beforeMaturity', { max: maturity });

  const paidOut = tranches.filter((t) => t.disbursed_on !== null);
  const disbursedSoFar = transactions
    .filter((t) => t.type === 'DISBURSEMENT' && !t.is_reversed)
    .reduce((s, t) => s + t.principal_portion, 0n);
  const principalOutstanding = installments.reduce(
    (s, i) => s + i.principal_due - i.principal_paid - i.principal_written_off,
    0n,
  );
  if (principalOutstanding + next.amount > loan.principal) {
    throw refusal('above_approved_amount', { status: 'UNPROCESSABLE', field: 'amount' });
  }
  const digits = product.digits_after_decimal;
  const total = disbursedSoFar + next.amount;
  const terms: Record<string, unknown> = {
    ...loan.terms,
    // Fineract schedules a disbursed tranche loan on the principal paid out so far.
    principal: formatMinor(total, digits),
    disbursements: [
      ...paidOut.map((t) => ({ date: t.disbursed_on as string, amount: formatMinor(t.amount, digits) })),
      { date, amount: formatMinor(next.amount, digits) },
    ],
  };
  // The outstanding cap of the schedule is the approved amount (the schedule itself knows no repayments).
  delete terms.maxOutstandingBalance;
  const schedule = generateSchedule(parseTerms(terms), await loadCalendar(tx, loan.customer_branch_id));
  if (schedule.totals.principal !== total) {
    throw new AppError('INTERNAL', 'The schedule does not repay the disbursed principal', {
      internal: `${schedule.totals.principal} ≠ ${total}`,
    });
  }
  const transaction = await insertTransaction(tx, actor, loan, {
    type: 'DISBURSEMENT',
    date,
    amount: next.amount,
    principal: next.amount,
    note: input.note ?? `Tranche ${next.number}`,
  });
  await postJournalEntry(tx, {
    tenantId: actor.tenantId,
    date,
    currency: loan.currency,
    loanId: loan.id,
    transactionId: transaction.id,
    postedBy: actor.userId,
    description: `Tranche ${next.number} of loan ${loan.account_no}`,
    lines: [
      { account: 'LOAN_PORTFOLIO', debit: next.amount },
      { account: 'FUND_SOURCE', credit: next.amount },
    ],
  });
  // A recalculating loan: the engine replays the repayments so far with this tranche among them (its
  // interest depends on when principal was actually repaid), as of the business date.
  const replaced = recalculates(product)
    ? await syncRecalculatedSchedule(
        tx,
        actor,
        { loan, product, installments, transactions: await loadTransactions(tx, loan.id) },
        { date, today, transactionId: transaction.id, cause: `tranche ${next.number}` },
      )
    : await replaceLoanSchedule(tx, actor, { loan, product }, schedule.installments, {
        date,
        transactionId: transaction.id,
        description: `Schedule of loan ${loan.account_no} after tranche ${next.number}`,
      });
  await markTrancheDisbursed(tx, loan.id, next.number, date, transaction.id);
  const updated = await updateLoan(tx, replaced.loan, { terms });
  await auditSuccess(
    tx,
    actor,
    'loan.tranche.disburse',
    'loan',
    loan.id,
    { disbursed: disbursedSoFar, interest: installments.reduce((s, i) => s + i.interest_due, 0n) },
    {
      tranche: next.number,
      date,
      amount: next.amount,
      disbursed: total,
      interest: replaced.installments.reduce((s, i) => s + i.interest_due, 0n),
    },
  );
  return {
    transaction,
    loan: updated,
    installments: replaced.installments,
    tranches: await loadTranches(tx, loan.id),
  };
}

export type TrancheView = { number: number; expectedDate: string; amount: string; disbursedOn: string | null };

/** The tranches of a loan as the API and the loan page show them; null when its product has none. */
export async function loanTranchesView(
  tx: Tx,
  loanId: string,
  product: Pick<ProductRow, 'multi_disbursement' | 'max_tranches' | 'digits_after_decimal'>,
): Promise<{ maxTranches: number; items: TrancheView[] } | null> {
  if (!isMultiDisbursement(product)) return null;
  const rows = await loadTranches(tx, loanId);
  return {
    maxTranches: product.max_tranches ?? 100,
    items: rows.map((r) => ({
      number: r.number,
      expectedDate: r.expected_date,
      amount: formatMinor(r.amount, product.digits_after_decimal),
      disbursedOn: r.disbursed_on,
    })),
  };
}
