import { AppError } from '#lib/errors/app-error.ts';
import type { Tx } from '#lib/db/index.ts';
import type { LoanRescheduleRequestsRow } from '#lib/db/schema.generated.ts';
import { assertInScope } from '#lib/auth/data-permissions.ts';
import { currencyCode, fromMinor, toDecimalString } from '#lib/money/money.ts';
import { parseTerms, scheduleToJson } from '#lib/schedule/index.ts';
import {
  type CurrentInstallment,
  type RescheduleRefusal,
  type RescheduleRequest,
  rescheduleSchedule,
} from '#lib/schedule/reschedule.ts';
import type { Schedule, ScheduleJson, ScheduleTerms } from '#lib/schedule/types.ts';
import type { Actor } from '../actor.ts';
import { loanOutstanding, type InstallmentRow } from '../installments.ts';
import { transitionLoan } from '../lifecycle/loan.ts';
import { transitionReschedule, type RescheduleStatus } from '../lifecycle/reschedule.ts';
import { loanContextOf, type LoanRow, type TransactionRow } from '../loans.ts';
import { loadCalendar } from '../products.ts';
import { replaceLoanSchedule, scheduleRowOf } from '../schedule-sync.ts';
import { refusal, wordedTransition } from '../refusal.ts';
import { auditSnapshot, auditSuccess, openLoanForCommand } from './common.ts';
import { assertNoStandingReshape } from './reage-loan.ts';

/**
 * Loan reschedule requests, maker-checker (Fineract's reschedule request): one user submits a change
 * of rate, due date, term or grace for an active loan; another approves it, which replaces the loan's
 * schedule with the engine's result (src/lib/schedule/reschedule.ts) through the schedule sync (the
 * live transactions are replayed, the change in scheduled interest is posted as income, balanced), or
 * rejects it, which leaves the loan as it was. The submitter cannot approve; anyone allowed to decide
 * may reject, the submitter included.
 */

export type RescheduleRequestRow = Omit<LoanRescheduleRequestsRow, 'status'> & { status: RescheduleStatus };

export type RescheduleInput = {
  rescheduleFromDate: string;
  newInterestRate?: string | null;
  adjustedDueDate?: string | null;
  extraTerms?: number | null;
  graceOnPrincipal?: number | null;
  graceOnInterest?: number | null;
  reason?: string | null;
};

/** The request as the API answers it (dates as YYYY-MM-DD, the interest change as a decimal string). */
export type RescheduleRequestJson = {
  id: string;
  loanId: string;
  status: RescheduleStatus;
  rescheduleFromDate: string;
  newInterestRate: string | null;
  adjustedDueDate: string | null;
  extraTerms: number;
  graceOnPrincipal: number;
  graceOnInterest: number;
  reason: string | null;
  submittedOn: string;
  submittedBy: string;
  submittedAt: string;
  decidedBy: string | null;
  decidedOn: string | null;
  decidedAt: string | null;
  decisionNote: string | null;
  interestChange: string | null;
};

function trimRate(rate: string | null): string | null {
  if (rate === null) return null;
  return rate.includes('.') ? rate.replace(/0+$/, '').replace(/\.$/, '') : rate;
}

export function rescheduleRequestJson(row: RescheduleRequestRow, currency: string): RescheduleRequestJson {
  const iso = (d: Date | string | null) => (d === null ? null : d instanceof Date ? d.toISOString() : String(d));
  return {
    id: row.id,
    loanId: row.loan_id,
    status: row.status,
    rescheduleFromDate: row.reschedule_from_date,
    newInterestRate: trimRate(row.new_interest_rate),
    adjustedDueDate: row.adjusted_due_date,
    extraTerms: row.extra_terms,
    graceOnPrincipal: row.grace_on_principal,
    graceOnInterest: row.grace_on_interest,
    reason: row.reason,
    submittedOn: row.submitted_on,
    submittedBy: row.submitted_by,
    submittedAt: iso(row.submitted_at) ?? '',
    decidedBy: row.decided_by,
    decidedOn: row.decided_on,
    decidedAt: iso(row.decided_at),
    decisionNote: row.decision_note,
    interestChange: row.interest_change === null ? null : toDecimalString(fromMinor(row.interest_change, currency)),
  };
}

/** Per installment number, the charges applied after disbursement (the schedule sync carries them itself). */
function appliedCharges(transactions: TransactionRow[]): Map<number, { fees: bigint; penalties: bigint }> {
  const out = new Map<number, { fees: bigint; penalties: bigint }>();
  for (const t of transactions) {
    if (t.is_reversed || (t.type !== 'FEE_APPLIED' && t.type !== 'PENALTY_APPLIED')) continue;
    const n = t.installment_number ?? -1;
    const c = out.get(n) ?? { fees: 0n, penalties: 0n };
    if (t.type === 'FEE_APPLIED') c.fees += t.amount;
    else c.penalties += t.amount;
    out.set(n, c);
  }
  return out;
}

/** The loan's installments as the engine reads them: scheduled dues, applied charges left out. */
export function currentInstallmentsOf(rows: InstallmentRow[], transactions: TransactionRow[]): CurrentInstallment[] {
  const applied = appliedCharges(transactions);
  return rows.map((r) => {
    const a = applied.get(r.number) ?? { fees: 0n, penalties: 0n };
    const o = loanOutstanding([r]);
    return {
      number: r.number,
      fromDate: r.from_date,
      dueDate: r.due_date,
      principal: r.principal_due,
      interest: r.interest_due,
      fees: r.fee_due > a.fees ? r.fee_due - a.fees : 0n,
      penalties: r.penalty_due > a.penalties ? r.penalty_due - a.penalties : 0n,
      isDownPayment: r.is_down_payment,
      obligationsMet: o.principal + o.interest + o.fees + o.penalties === 0n,
    };
  });
}

/** The schedule as it stands, in the contract JSON (dues including applied charges). */
function currentScheduleJson(rows: InstallmentRow[], currency: string, digits: number): ScheduleJson {
  let balance = rows.reduce((s, r) => s + r.principal_due, 0n);
  const installments = rows.map((r) => {
    balance -= r.principal_due;
    return {
      number: r.number,
      fromDate: r.from_date,
      dueDate: r.due_date,
      principal: r.principal_due,
      interest: r.interest_due,
      fees: r.fee_due,
      penalties: r.penalty_due,
      total: r.principal_due + r.interest_due + r.fee_due + r.penalty_due,
      balance,
      isDownPayment: r.is_down_payment,
    };
  });
  const totals = { principal: 0n, interest: 0n, fees: 0n, penalties: 0n, total: 0n };
  for (const i of installments) {
    totals.principal += i.principal;
    totals.interest += i.interest;
    totals.fees += i.fees;
    totals.penalties += i.penalties;
    totals.total += i.total;
  }
  const schedule: Schedule = { currency, digits, installments, totals };
  return scheduleToJson(schedule);
}

/**
 * The loan's terms for a reschedule: the terms it was disbursed with, at the rate of the last
 * approved reschedule that changed it (a later request keeps that rate unless it sets its own).
 */
async function loanTerms(tx: Tx, loan: LoanRow): Promise<ScheduleTerms> {
  const terms = parseTerms(loan.terms);
  const [last] = await tx.query<{ new_interest_rate: string }>(
    `select new_interest_rate from loan_reschedule_requests
     where loan_id = $1 and status = 'approved' and new_interest_rate is not null
     order by decided_at desc limit 1`,
    [loan.id],
  );
  return last ? { ...terms, annualInterestRate: trimRate(last.new_interest_rate) ?? terms.annualInterestRate } : terms;
}

function engineRequest(input: RescheduleInput, submittedOn: string): RescheduleRequest {
  return {
    rescheduleFromDate: input.rescheduleFromDate,
    newInterestRate: input.newInterestRate ?? null,
    adjustedDueDate: input.adjustedDueDate ?? null,
    extraTerms: input.extraTerms ?? null,
    graceOnPrincipal: input.graceOnPrincipal ?? null,
    graceOnInterest: input.graceOnInterest ?? null,
    submittedOn,
  };
}

/** The schedule engine's refusals of a reschedule, each worded as a lending refusal (`refusal.<key>`). */
const ENGINE_REFUSALS: Record<RescheduleRefusal, string> = {
  RESCHEDULE_NOTHING_TO_CHANGE: 'reschedule_nothing_to_change',
  RESCHEDULE_FROM_DATE_NOT_A_DUE_DATE: 'reschedule_from_date_not_a_due_date',
  RESCHEDULE_INSTALLMENT_PAID: 'reschedule_installment_paid',
  RESCHEDULE_ADJUSTED_DATE_BEFORE_FROM_DATE: 'reschedule_adjusted_date_before_from_date',
  RESCHEDULE_SUBMITTED_BEFORE_DISBURSEMENT: 'reschedule_submitted_before_disbursement',
  RESCHEDULE_PROGRESSIVE_NOT_SUPPORTED: 'reschedule_progressive_not_supported',
};

async function computeReschedule(
  tx: Tx,
  loan: LoanRow,
  installments: InstallmentRow[],
  transactions: TransactionRow[],
  request: RescheduleRequest,
) {
  // The new installments are laid out from the loan's terms: a standing re-age would be lost.
  assertNoStandingReshape(transactions);
  const terms = await loanTerms(tx, loan);
  const calendar = await loadCalendar(tx, loan.customer_branch_id);
  const current = currentInstallmentsOf(installments, transactions);
  try {
    return { terms, result: rescheduleSchedule(terms, current, request, calendar) };
  } catch (error) {
    const reason = error instanceof AppError ? (error.details?.reason as RescheduleRefusal | undefined) : undefined;
    const key = reason && ENGINE_REFUSALS[reason];
    if (!key || !(error instanceof AppError)) throw error;
    throw refusal(key, { status: error.code, field: error.field, reason });
  }
}

/**
 * What the loan's schedule would become (nothing is written): the schedule now and after, in the
 * contract JSON. Refused like a submission (lifecycle, then the engine's checks).
 */
export async function previewLoanReschedule(tx: Tx, actor: Actor, loanId: string, input: RescheduleInput) {
  const { loan, installments, transactions, today } = await openLoanForCommand(tx, actor, loanId);
  wordedTransition(() => transitionLoan(loan.status, 'reschedule', loanContextOf(installments, transactions)));
  const { terms, result } = await computeReschedule(tx, loan, installments, transactions, engineRequest(input, today));
  const after = scheduleToJson(result.schedule);
  const before = currentScheduleJson(installments, loan.currency, terms.digits);
  // The new schedule carries the charges applied after disbursement as the approval will place them.
  return { before, after, kept: result.kept };
}

async function pendingOf(tx: Tx, loanId: string): Promise<RescheduleRequestRow | null> {
  const rows = await tx.query<RescheduleRequestRow>(
    `select * from loan_reschedule_requests where loan_id = $1 and status = 'submitted'`,
    [loanId],
  );
  return rows[0] ?? null;
}

/** Submits a reschedule request for an active loan (the maker). */
export async function submitRescheduleRequest(tx: Tx, actor: Actor, loanId: string, input: RescheduleInput) {
  const { loan, installments, transactions, today } = await openLoanForCommand(tx, actor, loanId);
  wordedTransition(() => transitionLoan(loan.status, 'reschedule', loanContextOf(installments, transactions)));
  if (await pendingOf(tx, loan.id)) {
    throw refusal('reschedule_pending');
  }
  // The engine's checks (a due date to start from, something to change…) refuse now, not at approval.
  await computeReschedule(tx, loan, installments, transactions, engineRequest(input, today));
  const [row] = await tx.query<RescheduleRequestRow>(
    `insert into loan_reschedule_requests (tenant_id, loan_id, reschedule_from_date, new_interest_rate, adjusted_due_date,
       extra_terms, grace_on_principal, grace_on_interest, submitted_on, reason, submitted_by)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) returning *`,
    [
      actor.tenantId,
      loan.id,
      input.rescheduleFromDate,
      input.newInterestRate ?? null,
      input.adjustedDueDate || null,
      input.extraTerms ?? 0,
      input.graceOnPrincipal ?? 0,
      input.graceOnInterest ?? 0,
      today,
      input.reason?.trim() || null,
      actor.userId,
    ],
  );
  const json = rescheduleRequestJson(row, loan.currency);
  await auditSuccess(tx, actor, 'loan.reschedule.submit', 'loan', loan.id, null, { request: json });
  return json;
}

/** Reads and row-locks a request of the loan (another loan's request is not found). */
async function lockRequest(tx: Tx, actor: Actor, loanId: string, requestId: string): Promise<RescheduleRequestRow> {
  await assertInScope(tx, actor, 'loan', loanId);
  const rows = /^[0-9a-f-]{36}$/i.test(requestId)
    ? await tx.query<RescheduleRequestRow>(
        `select * from loan_reschedule_requests where id = $1 and loan_id = $2 for update`,
        [requestId, loanId],
      )
    : [];
  if (!rows[0]) throw new AppError('NOT_FOUND', 'Reschedule request not found', { field: 'requestId' });
  return rows[0];
}

/**
 * Approves a submitted request (the checker, never the submitter): the loan's schedule becomes the
 * engine's, computed on the installments as they are now; the interest difference is posted.
 */
export async function approveRescheduleRequest(
  tx: Tx,
  actor: Actor,
  loanId: string,
  requestId: string,
  note?: string | null,
) {
  const request = await lockRequest(tx, actor, loanId, requestId);
  const next = wordedTransition(() =>
    transitionReschedule(request.status, 'approve', { actorId: actor.userId, submittedBy: request.submitted_by }),
  );
  const state = await openLoanForCommand(tx, actor, loanId);
  const { loan, product, installments, transactions, today } = state;
  wordedTransition(() => transitionLoan(loan.status, 'reschedule', loanContextOf(installments, transactions)));
  const { result } = await computeReschedule(tx, loan, installments, transactions, {
    rescheduleFromDate: request.reschedule_from_date,
    newInterestRate: trimRate(request.new_interest_rate),
    adjustedDueDate: request.adjusted_due_date,
    extraTerms: request.extra_terms,
    graceOnPrincipal: request.grace_on_principal,
    graceOnInterest: request.grace_on_interest,
    submittedOn: request.submitted_on,
  });
  const before = auditSnapshot(loan, installments);
  const replaced = await replaceLoanSchedule(
    tx,
    actor,
    { loan, product },
    result.schedule.installments.map(scheduleRowOf),
    { date: today, description: `Reschedule of loan ${loan.account_no}` },
  );
  const [row] = await tx.query<RescheduleRequestRow>(
    `update loan_reschedule_requests set status = $2, decided_by = $3, decided_at = now(), decided_on = $4,
       decision_note = $5, interest_change = $6, version = version + 1
     where id = $1 returning *`,
    [request.id, next, actor.userId, today, note?.trim() || null, replaced.dueDelta.interest],
  );
  const json = rescheduleRequestJson(row, loan.currency);
  await auditSuccess(tx, actor, 'loan.reschedule.approve', 'loan', loan.id, before, {
    ...auditSnapshot(replaced.loan, replaced.installments),
    request: json,
    installments: replaced.installments.length,
  });
  return { request: json, loan: replaced.loan, installments: replaced.installments };
}

/** Rejects a submitted request: the loan is left exactly as it is. */
export async function rejectRescheduleRequest(
  tx: Tx,
  actor: Actor,
  loanId: string,
  requestId: string,
  note?: string | null,
) {
  const request = await lockRequest(tx, actor, loanId, requestId);
  const next = wordedTransition(() =>
    transitionReschedule(request.status, 'reject', { actorId: actor.userId, submittedBy: request.submitted_by }),
  );
  const { loan, today } = await openLoanForCommand(tx, actor, loanId);
  const [row] = await tx.query<RescheduleRequestRow>(
    `update loan_reschedule_requests set status = $2, decided_by = $3, decided_at = now(), decided_on = $4,
       decision_note = $5, version = version + 1
     where id = $1 returning *`,
    [request.id, next, actor.userId, today, note?.trim() || null],
  );
  const json = rescheduleRequestJson(row, loan.currency);
  await auditSuccess(
    tx,
    actor,
    'loan.reschedule.reject',
    'loan',
    loan.id,
    { request: { status: request.status } },
    {
      request: json,
    },
  );
  return json;
}

/** A loan's reschedule requests, newest first. */
export async function listRescheduleRequests(tx: Tx, actor: Parameters<typeof assertInScope>[1], loanId: string) {
  await assertInScope(tx, actor, 'loan', loanId);
  const loans = await tx.query<Pick<LoanRow, 'currency'>>(`select currency from loans where id = $1`, [loanId]);
  if (!loans[0]) throw new AppError('NOT_FOUND', 'Loan not found', { field: 'loanId' });
  const rows = await tx.query<RescheduleRequestRow>(
    `select * from loan_reschedule_requests where loan_id = $1 order by submitted_at desc, id`,
    [loanId],
  );
  return rows.map((r) => rescheduleRequestJson(r, currencyCode(loans[0].currency)));
}
