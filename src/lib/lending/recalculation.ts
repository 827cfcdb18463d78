import { AppError } from '#lib/errors/app-error.ts';
import type { Tx } from '#lib/db/index.ts';
import { validationError } from '#lib/errors/messages.ts';
import { parseDateInput } from '#lib/dates/parse-date.ts';
import {
  generateSchedule,
  isInterestFirstStrategy,
  parseRecalculationTerms,
  parseTerms,
  recalculateSchedule,
  type LoanTransactionInput,
  type PreClosure,
  type RecalculatedSchedule,
} from '#lib/schedule/index.ts';
import type { Actor } from './actor.ts';
import { loanOutstanding, totalOf, type InstallmentRow } from './installments.ts';
import { transitionLoan, type LoanContext } from './lifecycle/loan.ts';
import { assertUuid, findLoan, loadTransactions, type LoanRow, type TransactionRow } from './loans.ts';
import { loadInstallments } from './installments.ts';
import { businessDate } from '#lib/tenancy/tenant.ts';
import { currencyDigits, formatMinor } from '#lib/money/money.ts';
import type { LoanStatus } from './lifecycle/loan.ts';
import { closedOnFor, updateLoan } from './commands/common.ts';
import { productOf, termsFor, type ProductRow } from './products.ts';
import { replaceLoanSchedule, type ReplaceScheduleResult, type ScheduleRowInput } from './schedule-sync.ts';
import { refusal } from './refusal.ts';
import { reapplyReshapes, scheduleBeforeReshapes, standingReshapesOf } from './commands/reage-loan.ts';
import { auditSnapshot, auditSuccess } from './commands/common.ts';

/**
 * Interest recalculation on loans (issue 17): for a product with `interest_recalculation`, the
 * schedule engine (src/lib/schedule/recalculation.ts) recomputes the installments from the loan's
 * live repayments, and `replaceLoanSchedule` writes them back (income adjustment and reallocation as
 * balanced entries). The installments' dates stand: only their principal and interest change.
 */

type LoanState = { loan: LoanRow; product: ProductRow; installments: InstallmentRow[]; transactions: TransactionRow[] };

export function recalculates(product: ProductRow): boolean {
  return product.interest_recalculation === true;
}

/** The engine's view of the loan's live repayments (reversed ones and reversals left out). */
function repaymentsOf(transactions: TransactionRow[]): LoanTransactionInput[] {
  return transactions
    .filter((t) => t.type === 'REPAYMENT' && !t.is_reversed)
    .map((t) => ({ type: 'REPAYMENT' as const, date: t.transaction_date, amount: t.amount }));
}

/**
 * The tranches a multi-disbursement loan has paid out (its live DISBURSEMENT transactions), in the
 * engine's `disbursements` shape; null for a loan of another product.
 */
function tranchesOf(state: LoanState): { date: string; minor: bigint }[] | null {
  if (state.product.multi_disbursement !== true) return null;
  const paidOut = state.transactions
    .filter((t) => t.type === 'DISBURSEMENT' && !t.is_reversed)
    .map((t) => ({ date: t.transaction_date, minor: t.principal_portion }))
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  return paidOut.length > 0 ? paidOut : null;
}

/** The periods a schedule is recomputed on: an installment's dates and whether it is a down payment. */
type Period = Pick<ScheduleRowInput, 'fromDate' | 'dueDate' | 'isDownPayment'>;

const periodsOf = (rows: InstallmentRow[]): Period[] =>
  rows.map((r) => ({ fromDate: r.from_date, dueDate: r.due_date, isDownPayment: r.is_down_payment }));

/**
 * The installments of a cumulative loan that an interest-first repayment split off a period (the engine
 * dates them on the repayment's day): those whose due date is not on the loan's plain chain of due dates.
 */
function splitOffCount(product: ProductRow, loanTerms: Parameters<typeof termsFor>[1], regular: Period[]): number {
  if (!isInterestFirstStrategy(product.allocation_strategy) || regular.length === 0) return 0;
  const plain = generateSchedule(parseTerms(termsFor(product, loanTerms)));
  const dueDates = new Set(plain.installments.map((i) => i.dueDate));
  return regular.filter((p) => !dueDates.has(p.dueDate)).length;
}

/**
 * The loan's schedule as the engine recomputes it after its live repayments, as of `asOf`, on the
 * loan's periods (`periods`: those before a standing re-age, see `recalculatedRowsOf`).
 */
export function recalculatedScheduleOf(
  state: LoanState,
  asOf: string,
  periods: Period[] = periodsOf(state.installments),
): RecalculatedSchedule {
  const { loan, product } = state;
  if (!loan.disbursed_on) throw refusal('not_disbursed');
  const regular = periods.filter((i) => !i.isDownPayment);
  const tranches = tranchesOf(state);
  // Every tranche paid out counts on its date (the engine's `disbursements`). A progressive loan keeps
  // the approved amount as its principal; a cumulative one is scheduled on what was paid out, as its
  // plain tranche schedule is (disburseNextTranche), so its EMI is the annuity of that sum.
  const progressiveTranches = tranches !== null && product.schedule_type === 'PROGRESSIVE';
  const paidOut = tranches ? tranches.reduce((s, t) => s + t.minor, 0n) : loan.principal;
  const loanTerms = {
    principal: progressiveTranches || !tranches ? loan.principal : paidOut,
    numberOfRepayments: regular.length,
    annualInterestRate: loan.annual_interest_rate,
    disbursementDate: loan.disbursed_on,
    expectedDisbursementDate: regular[0]?.fromDate ?? loan.expected_disbursement_date,
  };
  // A cumulative loan that reduced its number of installments keeps its original annuity term, and
  // installments an interest-first repayment split off are not periods of it.
  if (product.schedule_type === 'CUMULATIVE')
    loanTerms.numberOfRepayments = Math.max(
      regular.length - splitOffCount(product, loanTerms, regular),
      loan.number_of_repayments,
    );
  const terms = termsFor(product, loanTerms);
  if (tranches && (progressiveTranches || tranches.length > 1))
    terms.disbursements = tranches.map((t) => ({
      date: t.date,
      amount: formatMinor(t.minor, product.digits_after_decimal),
    }));
  const input = parseRecalculationTerms({ ...terms, asOf });
  input.transactions = repaymentsOf(state.transactions);
  return recalculateSchedule(input, undefined, {
    periods: regular.map((i) => ({ from: i.fromDate, due: i.dueDate })),
  });
}

/**
 * The installments a recalculating loan has as of `asOf`: the engine's recomputed schedule, with the
 * loan's standing re-ages and re-amortisations put back on top (the recomputation starts from the
 * periods the loan had before the first of them; see `reapplyReshapes`).
 */
export async function recalculatedRowsOf(tx: Tx, state: LoanState, asOf: string): Promise<ScheduleRowInput[]> {
  const standing = await standingReshapesOf(tx, state.loan.id, state.transactions);
  const before = scheduleBeforeReshapes(standing);
  const schedule = recalculatedScheduleOf(state, asOf, before ?? undefined);
  const rows = schedule.installments.map((i) => ({
    number: i.number,
    fromDate: i.fromDate,
    dueDate: i.dueDate,
    principal: i.principal,
    interest: i.interest,
    // The product's installment fees as the engine schedules them (cumulative; none on progressive).
    fees: i.fees,
    penalties: i.penalties,
  }));
  return reapplyReshapes(state, rows, standing);
}

/**
 * Rewrites a recalculating loan's installments after a repayment or a reversal on `date` (the
 * business date `today` is the "as of": overdue principal keeps bearing interest until then).
 */
export async function syncRecalculatedSchedule(
  tx: Tx,
  actor: Actor,
  state: LoanState,
  options: { date: string; today: string; transactionId: string | null; cause?: string },
): Promise<ReplaceScheduleResult> {
  const rows = await recalculatedRowsOf(tx, state, options.today);
  return replaceLoanSchedule(tx, actor, { loan: state.loan, product: state.product }, rows, {
    date: options.date,
    transactionId: options.transactionId,
    description: `Interest recalculation of loan ${state.loan.account_no}${options.cause ? ` (${options.cause})` : ''}`,
  });
}

/** Whether the installments already are `rows` (dates, principal and interest; applied charges aside). */
function isScheduleOf(installments: InstallmentRow[], rows: ScheduleRowInput[]): boolean {
  return (
    installments.length === rows.length &&
    installments.every((r, k) => {
      const row = rows[k];
      return (
        r.number === row.number &&
        r.from_date === row.fromDate &&
        r.due_date === row.dueDate &&
        r.is_down_payment === (row.isDownPayment ?? false) &&
        r.principal_due === row.principal &&
        r.interest_due === row.interest
      );
    })
  );
}

/**
 * The daily close's interest recalculation for one recalculating loan (Fineract's COB step
 * LOAN_INTEREST_RECALCULATION): the schedule as of the new business date `asOf`, so interest on
 * overdue principal grows day by day (DAILY rest) or period by period (SAME_AS_REPAYMENT_PERIOD)
 * without waiting for a repayment. Written through `replaceLoanSchedule` (entries dated `date`, the
 * day closed) and audited `loan.interest_recalculate` only when it changed: a second run for the same
 * date finds the schedule already there and writes nothing. Answers whether it wrote.
 */
export async function recalculateAtClose(
  tx: Tx,
  actor: Actor,
  state: LoanState,
  options: { asOf: string; date: string },
): Promise<boolean> {
  const rows = await recalculatedRowsOf(tx, state, options.asOf);
  if (isScheduleOf(state.installments, rows)) return false;
  const before = auditSnapshot(state.loan, state.installments);
  const replaced = await replaceLoanSchedule(tx, actor, { loan: state.loan, product: state.product }, rows, {
    date: options.date,
    description: `Interest recalculation of loan ${state.loan.account_no} (close of ${options.date})`,
  });
  await auditSuccess(tx, actor, 'loan.interest_recalculate', 'loan', state.loan.id, before, {
    ...auditSnapshot(replaced.loan, replaced.installments),
    asOf: options.asOf,
    interestChange: replaced.dueDelta.interest,
  });
  return true;
}

/**
 * What closes the loan on `date` (YYYY-MM-DD, not before its last live transaction): outstanding
 * principal and interest up to then, by the product's pre-closure strategy.
 */
export function preClosureOf(
  state: LoanState,
  dateInput: string | null | undefined,
  today: string,
  periods?: Period[],
): PreClosure {
  // The date is read first: a malformed one is the caller's mistake (400 naming `date`) on any loan.
  const last = state.transactions
    .filter((t) => !t.is_reversed && t.type !== 'REVERSAL')
    .reduce((m, t) => (t.transaction_date > m ? t.transaction_date : m), state.loan.disbursed_on ?? today);
  const parsed = parseDateInput(dateInput ?? today, { min: last });
  if (!parsed.ok) throw validationError('date', parsed.problem.key, parsed.problem.params);
  if (!recalculates(state.product)) throw refusal('not_recalculating');
  return recalculatedScheduleOf(state, parsed.date, periods).preClosure as PreClosure;
}

/**
 * After a repayment or a reversal has been recorded the usual way: for a recalculating product,
 * recompute and rewrite the installments, then let the lifecycle decide the status again on the new
 * dues (a pay-off quoted by the engine closes the loan even though the old dues were higher).
 * Without recalculation it returns what it was given.
 */
export async function recalculateAfter(
  tx: Tx,
  actor: Actor,
  args: {
    loan: LoanRow;
    previousStatus: LoanStatus;
    product: ProductRow;
    installments: InstallmentRow[];
    action: 'repay' | 'reverseTransaction';
    context: LoanContext;
    date: string;
    today: string;
    transactionId: string;
  },
): Promise<{ loan: LoanRow; installments: InstallmentRow[] }> {
  if (!recalculates(args.product)) return { loan: args.loan, installments: args.installments };
  const transactions = await loadTransactions(tx, args.loan.id);
  const synced = await syncRecalculatedSchedule(
    tx,
    actor,
    { loan: args.loan, product: args.product, installments: args.installments, transactions },
    // Not tied to the transaction: reversing it mirrors only its own entry, and the recalculation that
    // follows the reversal posts its own adjustment.
    {
      date: args.date,
      today: args.today,
      transactionId: null,
      cause: `${args.action === 'repay' ? 'repayment' : 'reversal'} ${args.transactionId}`,
    },
  );
  const status = transitionLoan(args.previousStatus, args.action, {
    ...args.context,
    outstandingAfter: totalOf(loanOutstanding(synced.installments)),
    creditBalanceAfter: synced.loan.credit_balance,
  });
  const loan =
    status === synced.loan.status
      ? synced.loan
      : await updateLoan(tx, synced.loan, { status, closed_on: closedOnFor(status, synced.loan.closed_on, args.date) });
  return { loan, installments: synced.installments };
}

/**
 * GET /v1/loans/{id}/pre-closure?date=YYYY-MM-DD (default the business date): the amount that closes
 * a recalculating loan on that date, in the loan's currency.
 */
export async function loanPreClosure(tx: Tx, tenantId: string, loanId: string, date: string | null) {
  assertUuid(loanId, 'loanId');
  const loan = await findLoan(tx, loanId);
  if (!loan) throw new AppError('NOT_FOUND', 'Loan not found', { field: 'loanId' });
  if (!loan.disbursed_on) throw refusal('not_disbursed');
  const product = await productOf(tx, loan);
  const installments = await loadInstallments(tx, loan.id);
  const transactions = await loadTransactions(tx, loan.id);
  const today = await businessDate(tx, tenantId);
  // A standing re-age changed the periods: the quote is computed on those the loan had before it.
  const before = scheduleBeforeReshapes(await standingReshapesOf(tx, loan.id, transactions));
  const quote = preClosureOf({ loan, product, installments, transactions }, date, today, before ?? undefined);
  const f = (minor: bigint) => formatMinor(minor, currencyDigits(loan.currency));
  return {
    loanId: loan.id,
    currency: loan.currency,
    date: quote.date,
    principal: f(quote.principal),
    interest: f(quote.interest),
    total: f(quote.total),
    preClosureStrategy: product.pre_closure_strategy,
  };
}
