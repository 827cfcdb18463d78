import { AppError } from '#lib/errors/app-error.ts';
import { validationError } from '#lib/errors/messages.ts';
import { parseDateInput } from '#lib/dates/parse-date.ts';
import type { Tx } from '#lib/db/index.ts';
import type { LoanScheduleChangesRow } from '#lib/db/schema.generated.ts';
import {
  reAgeInstallments,
  reAmortizeInstallments,
  RE_AGE_FREQUENCIES,
  type ReAgeFrequency,
  type ReshapeInstallment,
  type ReshapeMoney,
  type ReshapeResult,
} from '#lib/schedule/reage.ts';
import type { Actor } from '../actor.ts';
import { fromMinor, toDecimalString } from '#lib/money/money.ts';
import { loadInstallments, type InstallmentRow } from '../installments.ts';
import { transitionLoan } from '../lifecycle/loan.ts';
import { loadTransactions, loanContextOf, type LoanRow, type TransactionRow } from '../loans.ts';
import { productOf, type ProductRow } from '../products.ts';
import { reattachCharges, replaceLoanSchedule, scheduleRowOf, type ScheduleRowInput } from '../schedule-sync.ts';
import { replay } from '../apply.ts';
import { refusal, wordedTransition } from '../refusal.ts';
import type { AllocationStrategyCode } from '#lib/schedule/types.ts';
import { auditSnapshot, auditSuccess, insertTransaction, openLoanForCommand, type LoanCommandState } from './common.ts';

/**
 * Re-age and re-amortisation of an active loan (Fineract LoanReAgingServiceImpl /
 * LoanReAmortizationServiceImpl and their validators), and their undo.
 *
 * The new installments come from the pure engine (src/lib/schedule/reage.ts); the loan's
 * installments are rewritten with replaceLoanSchedule, which replays the live transactions onto them.
 * No money moves and the principal owed is unchanged, so nothing is posted unless the replay moves
 * money between components. The request and the dues the change replaced are kept in
 * loan_schedule_changes: the undo puts those dues back (a REVERSAL row names the undone transaction).
 */
export type ReAgeInput = {
  loanId: string;
  /** Due date of the first new installment; not before the loan's maturity date. */
  startDate: string;
  frequencyType: ReAgeFrequency;
  frequencyNumber: number;
  numberOfInstallments: number;
  note?: string | null;
};
export type ReAmortizeInput = { loanId: string; note?: string | null };
export type UndoScheduleChangeInput = { loanId: string; note?: string | null };

type Kind = 'REAGE' | 'REAMORTIZE';
const ADVANCED = 'advanced-payment-allocation-strategy';

/** The money rules the engine splits with: the product's digits, rounding and installment multiple. */
export function reshapeMoneyOf(product: ProductRow): ReshapeMoney {
  return {
    digits: product.digits_after_decimal,
    roundingMode: product.rounding_mode as ReshapeMoney['roundingMode'],
    installmentAmountInMultiplesOf: product.installment_amount_in_multiples_of || null,
  };
}

/** Charges applied after disbursement, per installment number (replaceLoanSchedule re-attaches them itself). */
function appliedCharges(transactions: TransactionRow[]): Map<number, { fees: bigint; penalties: bigint }> {
  const byNumber = new Map<number, { fees: bigint; penalties: bigint }>();
  for (const t of transactions) {
    if (t.is_reversed || (t.type !== 'FEE_APPLIED' && t.type !== 'PENALTY_APPLIED')) continue;
    const entry = byNumber.get(t.installment_number ?? -1) ?? { fees: 0n, penalties: 0n };
    if (t.type === 'FEE_APPLIED') entry.fees += t.amount;
    else entry.penalties += t.amount;
    byNumber.set(t.installment_number ?? -1, entry);
  }
  return byNumber;
}

/** The installments as the engine sees them; `reAged` are the due dates earlier live re-ages created. */
export function reshapeInstallmentsOf(rows: InstallmentRow[], reAged: ReadonlySet<string>): ReshapeInstallment[] {
  return rows.map((r) => ({
    number: r.number,
    fromDate: r.from_date,
    dueDate: r.due_date,
    isDownPayment: r.is_down_payment,
    isReAged: reAged.has(r.due_date),
    isAdditional: r.is_additional,
    principal: r.principal_due,
    principalPaid: r.principal_paid + r.principal_written_off,
    interest: r.interest_due,
    interestPaid: r.interest_paid + r.interest_waived + r.interest_written_off,
    fees: r.fee_due,
    feesPaid: r.fee_paid + r.fee_waived + r.fee_written_off,
    penalties: r.penalty_due,
    penaltiesPaid: r.penalty_paid + r.penalty_waived + r.penalty_written_off,
  }));
}

/** Engine installments → the rows replaceLoanSchedule writes (applied charges left out: it re-attaches them). */
function scheduleRowsOf(
  installments: readonly ReshapeInstallment[],
  charges: Map<number, { fees: bigint; penalties: bigint }>,
): ScheduleRowInput[] {
  return installments.map((i) => {
    const applied = charges.get(i.number) ?? { fees: 0n, penalties: 0n };
    return {
      number: i.number,
      fromDate: i.fromDate,
      dueDate: i.dueDate,
      isDownPayment: i.isDownPayment ?? false,
      isAdditional: i.isAdditional ?? false,
      principal: i.principal,
      interest: i.interest,
      fees: i.fees - applied.fees,
      penalties: i.penalties - applied.penalties,
    };
  });
}

type StoredRow = Omit<ScheduleRowInput, 'principal' | 'interest' | 'fees' | 'penalties'> &
  Record<'principal' | 'interest' | 'fees' | 'penalties', string>;

const toStored = (rows: ScheduleRowInput[]): StoredRow[] =>
  rows.map((r) => ({
    ...r,
    principal: String(r.principal),
    interest: String(r.interest),
    fees: String(r.fees),
    penalties: String(r.penalties),
  }));
const fromStored = (rows: StoredRow[]): ScheduleRowInput[] =>
  rows.map((r) => ({
    ...r,
    principal: BigInt(r.principal),
    interest: BigInt(r.interest),
    fees: BigInt(r.fees),
    penalties: BigInt(r.penalties),
  }));

async function loadChanges(tx: Tx, loanId: string): Promise<LoanScheduleChangesRow[]> {
  return tx.query<LoanScheduleChangesRow>(`select * from loan_schedule_changes where loan_id = $1`, [loanId]);
}

/** Due dates of the installments the loan's live re-ages created. */
function reAgedDueDates(changes: LoanScheduleChangesRow[], transactions: TransactionRow[]): Set<string> {
  const live = new Set(transactions.filter((t) => t.type === 'REAGE' && !t.is_reversed).map((t) => t.id));
  return new Set(changes.filter((c) => live.has(c.id)).flatMap((c) => c.created_due_dates as string[]));
}

/** The loan's maturity: the last installment's due date. */
// Fineract's maturity leaves the N+1 installment (charges after maturity) out (determineExpectedMaturityDate).
const maturityOf = (rows: InstallmentRow[]) =>
  rows.reduce((m, r) => (!r.is_additional && r.due_date > m ? r.due_date : m), '');

/**
 * Fineract's business rules for both commands: an active progressive loan with the advanced payment
 * allocation, without interest, something still owed, and at most one such transaction a day.
 */
function assertEligible(state: LoanCommandState, kind: Kind): void {
  const { loan, product, installments, transactions, today } = state;
  wordedTransition(() =>
    transitionLoan(loan.status, kind === 'REAGE' ? 'reAge' : 'reAmortize', loanContextOf(installments, transactions)),
  );
  if (product.schedule_type !== 'PROGRESSIVE' || product.allocation_strategy !== ADVANCED) {
    throw refusal(kind === 'REAGE' ? 'reage_not_supported' : 'reamortize_not_supported', {
      reason: 'reshape_not_supported',
    });
  }
  const rate = Number(loan.terms.annualInterestRate ?? product.annual_interest_rate);
  if (rate > 0)
    throw refusal(kind === 'REAGE' ? 'reage_interest_bearing' : 'reamortize_interest_bearing', {
      reason: 'reshape_interest_bearing',
    });
  if (transactions.some((t) => t.type === kind && t.transaction_date === today)) {
    throw refusal(kind === 'REAGE' ? 'reage_once_a_day' : 'reamortize_once_a_day', { reason: 'reshape_once_a_day' });
  }
}

async function record(
  tx: Tx,
  actor: Actor,
  state: LoanCommandState,
  kind: Kind,
  result: ReshapeResult,
  request: Omit<ReAgeInput, 'loanId' | 'note'> | null,
  note: string | null | undefined,
) {
  const { loan, product, installments, transactions, today } = state;
  const before = auditSnapshot(loan, installments);
  const charges = appliedCharges(transactions);
  const previous = scheduleRowsOf(reshapeInstallmentsOf(installments, new Set()), charges);
  const next = scheduleRowsOf(result.installments, charges);
  const transaction = await insertTransaction(tx, actor, loan, {
    type: kind,
    date: today,
    amount: result.principal,
    principal: result.principal,
    note,
  });
  await tx.query(
    `insert into loan_schedule_changes (tenant_id, id, loan_id, frequency_type, frequency_number, start_date,
       number_of_installments, previous_schedule, created_due_dates)
     values ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9::jsonb)`,
    [
      actor.tenantId,
      transaction.id,
      loan.id,
      request?.frequencyType ?? null,
      request?.frequencyNumber ?? null,
      request?.startDate ?? null,
      request?.numberOfInstallments ?? null,
      JSON.stringify(toStored(previous)),
      JSON.stringify(result.installments.filter((i) => i.isReAged && kind === 'REAGE').map((i) => i.dueDate)),
    ],
  );
  const replaced = await replaceLoanSchedule(tx, actor, { loan, product }, next, {
    date: today,
    transactionId: transaction.id,
    description: `${kind === 'REAGE' ? 'Re-age' : 'Re-amortisation'} of loan ${loan.account_no}`,
  });
  await auditSuccess(tx, actor, kind === 'REAGE' ? 'loan.reage' : 'loan.reamortize', 'loan', loan.id, before, {
    ...auditSnapshot(replaced.loan, replaced.installments),
    transactionId: transaction.id,
    principal: result.principal,
    ...(request ?? {}),
  });
  return { transaction, loan: replaced.loan, installments: replaced.installments };
}

function parseReAgeRequest(input: ReAgeInput, maturity: string): Omit<ReAgeInput, 'loanId' | 'note'> {
  const start = parseDateInput(input.startDate, { min: maturity });
  if (!start.ok) throw validationError('startDate', start.problem.key, start.problem.params);
  if (!RE_AGE_FREQUENCIES.includes(input.frequencyType))
    throw validationError('frequencyType', 'choice', { options: RE_AGE_FREQUENCIES.join(', ') });
  for (const field of ['frequencyNumber', 'numberOfInstallments'] as const) {
    const value = input[field];
    if (!Number.isInteger(value)) throw validationError(field, 'number.whole');
    if (value < 1) throw validationError(field, 'number.min', { min: 1 });
    if (value > 1200) throw validationError(field, 'number.max', { max: 1200 });
  }
  return {
    startDate: start.date,
    frequencyType: input.frequencyType,
    frequencyNumber: input.frequencyNumber,
    numberOfInstallments: input.numberOfInstallments,
  };
}

/** What a re-age would make of the loan's installments, without writing anything (the form's preview). */
export function planReAge(state: LoanCommandState, changes: LoanScheduleChangesRow[], input: ReAgeInput) {
  const maturity = maturityOf(state.installments);
  const request = parseReAgeRequest(input, maturity);
  const view = reshapeInstallmentsOf(state.installments, reAgedDueDates(changes, state.transactions));
  return {
    request,
    result: reAgeInstallments(view, { ...request, transactionDate: state.today }, reshapeMoneyOf(state.product)),
  };
}

/**
 * Re-ages an overdue loan (Fineract REAGE): on or after its maturity, the unpaid principal of every
 * installment moves into `numberOfInstallments` new ones from `startDate`.
 */
export async function reAgeLoan(tx: Tx, actor: Actor, input: ReAgeInput) {
  const state = await openLoanForCommand(tx, actor, input.loanId);
  assertEligible(state, 'REAGE');
  const maturity = maturityOf(state.installments);
  if (state.today < maturity) {
    throw refusal('reage_before_maturity', { params: { maturity } });
  }
  const { request, result } = planReAge(state, await loadChanges(tx, state.loan.id), input);
  return record(tx, actor, state, 'REAGE', result, request, input.note);
}

/**
 * Re-amortises a loan (Fineract REAMORTIZE): until its maturity, the unpaid principal of the
 * installments due so far is spread over the installments still to come.
 */
export async function reAmortizeLoan(tx: Tx, actor: Actor, input: ReAmortizeInput) {
  const state = await openLoanForCommand(tx, actor, input.loanId);
  assertEligible(state, 'REAMORTIZE');
  const maturity = maturityOf(state.installments);
  if (state.today > maturity) {
    throw refusal('reamortize_after_maturity', { params: { maturity } });
  }
  const view = reshapeInstallmentsOf(
    state.installments,
    reAgedDueDates(await loadChanges(tx, state.loan.id), state.transactions),
  );
  if (!view.some((i) => i.dueDate > state.today && !i.isDownPayment && !i.isReAged)) {
    throw refusal('no_future_installment');
  }
  const result = reAmortizeInstallments(view, state.today, reshapeMoneyOf(state.product));
  return record(tx, actor, state, 'REAMORTIZE', result, null, input.note);
}

/**
 * Undoes the latest live re-age or re-amortisation (Fineract undoReAge / undoReAmortize): refused when
 * a repayment came after it, or when a later re-age / re-amortisation stands (undo that one first).
 * The dues it replaced come back and the live transactions are replayed onto them.
 */
async function undo(tx: Tx, actor: Actor, input: UndoScheduleChangeInput, kind: Kind) {
  const state = await openLoanForCommand(tx, actor, input.loanId);
  const { loan, product, installments, transactions, today } = state;
  const what = kind === 'REAGE' ? 're-age' : 're-amortisation';
  const index = transactions.findLastIndex((t) => t.type === kind && !t.is_reversed);
  if (index < 0) throw refusal(kind === 'REAGE' ? 'no_reage' : 'no_reamortization');
  const target = transactions[index];
  const later = transactions.slice(index + 1).filter((t) => !t.is_reversed && t.type !== 'REVERSAL');
  if (later.some((t) => t.type === 'REPAYMENT')) {
    throw refusal(kind === 'REAGE' ? 'repayment_after_reage' : 'repayment_after_reamortization', {
      reason: 'repayment_after_reshape',
    });
  }
  if (later.some((t) => t.type === 'REAGE' || t.type === 'REAMORTIZE')) {
    throw refusal('undo_later_reshape_first');
  }
  const [change] = await tx.query<LoanScheduleChangesRow>(`select * from loan_schedule_changes where id = $1`, [
    target.id,
  ]);
  if (!change) throw new AppError('INTERNAL', `The ${what} has no stored schedule`, { internal: target.id });
  const before = auditSnapshot(loan, installments);
  const reversal = await insertTransaction(tx, actor, loan, {
    type: 'REVERSAL',
    date: today,
    amount: target.amount,
    principal: target.principal_portion,
    reversesId: target.id,
    note: input.note,
  });
  const replaced = await replaceLoanSchedule(
    tx,
    actor,
    { loan, product },
    fromStored(change.previous_schedule as StoredRow[]),
    {
      date: today,
      transactionId: reversal.id,
      description: `Undo of the ${what} ${target.id} on loan ${loan.account_no}`,
    },
  );
  await auditSuccess(
    tx,
    actor,
    kind === 'REAGE' ? 'loan.undo_reage' : 'loan.undo_reamortize',
    'loan',
    loan.id,
    before,
    { ...auditSnapshot(replaced.loan, replaced.installments), undoneTransactionId: target.id, reversalId: reversal.id },
  );
  return { transaction: reversal, loan: replaced.loan, installments: replaced.installments };
}

export const undoReAgeLoan = (tx: Tx, actor: Actor, input: UndoScheduleChangeInput) => undo(tx, actor, input, 'REAGE');
export const undoReAmortizeLoan = (tx: Tx, actor: Actor, input: UndoScheduleChangeInput) =>
  undo(tx, actor, input, 'REAMORTIZE');

/** One installment as the re-age / re-amortisation forms preview it (decimal strings). */
export type ReshapeInstallmentView = {
  number: number;
  fromDate: string;
  dueDate: string;
  isDownPayment: boolean;
  isReAged: boolean;
  principal: string;
  principalPaid: string;
};

/**
 * What the loan page needs to offer re-age / re-amortisation: whether the loan qualifies (product and
 * interest), its maturity, the money rules and installments the form's preview runs the engine with,
 * and whether a re-age / re-amortisation stands to be undone. Read-only.
 */
export async function reshapeInfoOf(tx: Tx, loanId: string) {
  const [loan] = await tx.query<LoanRow>(`select * from loans where id = $1`, [loanId]);
  if (!loan) throw new AppError('NOT_FOUND', 'Loan not found', { field: 'loanId' });
  const product = await productOf(tx, loan);
  const installments = await loadInstallments(tx, loanId);
  const transactions = await loadTransactions(tx, loanId);
  const reAged = reAgedDueDates(await loadChanges(tx, loanId), transactions);
  const rate = Number(loan.terms.annualInterestRate ?? product.annual_interest_rate);
  const digits = product.digits_after_decimal;
  const decimal = (minor: bigint) => toDecimalString(fromMinor(minor, loan.currency));
  const live = (kind: Kind) => transactions.some((t) => t.type === kind && !t.is_reversed);
  return {
    eligible:
      loan.status === 'ACTIVE' &&
      product.schedule_type === 'PROGRESSIVE' &&
      product.allocation_strategy === ADVANCED &&
      !(rate > 0),
    maturity: maturityOf(installments),
    money: { ...reshapeMoneyOf(product), digits },
    installments: reshapeInstallmentsOf(installments, reAged).map((i): ReshapeInstallmentView => ({
      number: i.number,
      fromDate: i.fromDate,
      dueDate: i.dueDate,
      isDownPayment: i.isDownPayment ?? false,
      isReAged: i.isReAged ?? false,
      principal: decimal(i.principal),
      principalPaid: decimal(i.principalPaid),
    })),
    undoable: { reAge: live('REAGE'), reAmortize: live('REAMORTIZE') },
  };
}
export type ReshapeInfo = Awaited<ReturnType<typeof reshapeInfoOf>>;

/** A live re-age or re-amortisation of a loan with the request it was made with. */
export type StandingReshape = { transaction: TransactionRow; change: LoanScheduleChangesRow };

/** The loan's live re-ages and re-amortisations, oldest first (no query when it has none). */
export async function standingReshapesOf(
  tx: Tx,
  loanId: string,
  transactions: TransactionRow[],
): Promise<StandingReshape[]> {
  const live = transactions.filter((t) => (t.type === 'REAGE' || t.type === 'REAMORTIZE') && !t.is_reversed);
  if (live.length === 0) return [];
  const changes = new Map((await loadChanges(tx, loanId)).map((c) => [c.id, c]));
  return live.map((transaction) => {
    const change = changes.get(transaction.id);
    if (!change) throw new AppError('INTERNAL', 'A re-age has no stored request', { internal: transaction.id });
    return { transaction, change };
  });
}

/** The schedule before the first standing change: the periods a regeneration from the terms starts from. */
export function scheduleBeforeReshapes(standing: readonly StandingReshape[]): ScheduleRowInput[] | null {
  return standing.length ? fromStored(standing[0].change.previous_schedule as StoredRow[]) : null;
}

/** Installment rows held in memory only, nothing settled yet (the replay fills in what was paid). */
function unsettledRows(loan: LoanRow, rows: readonly ScheduleRowInput[]): InstallmentRow[] {
  return rows.map((r) => ({
    tenant_id: loan.tenant_id,
    id: '',
    loan_id: loan.id,
    number: r.number,
    from_date: r.fromDate,
    due_date: r.dueDate,
    is_down_payment: r.isDownPayment ?? false,
    is_additional: r.isAdditional ?? false,
    principal_due: r.principal,
    interest_due: r.interest,
    fee_due: r.fees,
    penalty_due: r.penalties,
    principal_paid: 0n,
    interest_paid: 0n,
    fee_paid: 0n,
    penalty_paid: 0n,
    interest_waived: 0n,
    fee_waived: 0n,
    penalty_waived: 0n,
    principal_written_off: 0n,
    interest_written_off: 0n,
    fee_written_off: 0n,
    penalty_written_off: 0n,
    obligations_met_on: null,
  }));
}

/**
 * Puts the loan's standing re-ages and re-amortisations back on a schedule regenerated from its terms
 * (interest recalculation after a repayment, a reversal or the daily close). Fineract keeps a REAGE /
 * REAMORTIZE as a transaction its processor replays whenever the schedule is rebuilt (LoanReAging.feature,
 * "reverse-replay scenario 1", lines 213-252): each change is applied again, oldest first, with the
 * request it was made with, on the installments as the transactions before it had settled them, so a
 * repayment made since does not undo the re-age. `regenerated` must have the periods the loan had before
 * its first change (`scheduleBeforeReshapes`). Without a standing change it answers `regenerated`.
 */
export function reapplyReshapes(
  state: Pick<LoanCommandState, 'loan' | 'product' | 'installments' | 'transactions'>,
  regenerated: readonly ScheduleRowInput[],
  standing: readonly StandingReshape[],
): ScheduleRowInput[] {
  const { loan, product, installments, transactions } = state;
  let rows = [...regenerated];
  const reAged = new Set<string>();
  for (const { transaction, change } of standing) {
    const before = transactions
      .slice(0, transactions.indexOf(transaction))
      .filter((t) => !t.is_reversed && t.type !== 'REVERSAL');
    // What the earlier transactions had settled, applied charges included (they take money first).
    const settled = unsettledRows(loan, rows);
    reattachCharges(installments, settled, before, transaction.transaction_date);
    replay(
      settled,
      before.filter((t) => t.type !== 'FEE_APPLIED' && t.type !== 'PENALTY_APPLIED'),
      product.allocation_strategy as AllocationStrategyCode,
    );
    // The engine moves principal only; dues of the other components are the regenerated ones.
    const view = reshapeInstallmentsOf(settled, reAged).map((v, k) => ({
      ...v,
      fees: rows[k].fees,
      feesPaid: 0n,
      penalties: rows[k].penalties,
      penaltiesPaid: 0n,
    }));
    const money = reshapeMoneyOf(product);
    const result =
      transaction.type === 'REAGE'
        ? reAgeInstallments(
            view,
            {
              transactionDate: transaction.transaction_date,
              startDate: change.start_date as string,
              frequencyType: change.frequency_type as ReAgeFrequency,
              frequencyNumber: change.frequency_number as number,
              numberOfInstallments: change.number_of_installments as number,
            },
            money,
          )
        : reAmortizeInstallments(view, transaction.transaction_date, money);
    rows = result.installments.map(scheduleRowOf);
    for (const date of change.created_due_dates as string[]) reAged.add(date);
  }
  return rows;
}

/**
 * Actions that lay the schedule out again from the loan's terms in a way the re-age cannot be put back
 * on (a reschedule, a tranche): refused while a re-age or re-amortisation stands, 409 naming it.
 */
export function assertNoStandingReshape(transactions: readonly TransactionRow[]): void {
  const live = transactions.findLast((t) => (t.type === 'REAGE' || t.type === 'REAMORTIZE') && !t.is_reversed);
  if (!live) return;
  throw refusal(live.type === 'REAGE' ? 'undo_reage_first' : 'undo_reamortization_first');
}
