/**
 * "Apply to existing loans": brings the future due dates of active loans in line with today's days
 * off, through the schedule engine, on request, after a preview.
 *
 * For each ACTIVE loan, the engine's own due-date generator (`dueDateSequence`, the one
 * `generateSchedule` uses, with the loan's stored terms and its branch's calendar: tenant-wide days
 * off + the branch's, and the tenant's rule) gives the date each installment should have. An
 * installment moves when that date differs from its stored one and both are after the business date:
 * history (due dates on or before today, payments made against them, delinquency already counted) is
 * never rewritten, and every transaction stays dated before every moved due date, so allocation and
 * replay see the same order as before. A move that would land on or before the business date is
 * skipped and listed (e.g. "previous working day" from tomorrow to today).
 *
 * Amounts do not change, as in Fineract: its "Apply Holidays To Loans" job
 * (ApplyHolidaysToLoansTasklet → applyHolidayToRepaymentScheduleDates) only updates the installments'
 * due dates (and the next installment's from date); it does not recompute interest for the period. So
 * the ledger (which recognised the scheduled interest at disbursement) is untouched, and the loans'
 * summary columns (maturity date, oldest unpaid due date) follow through the 0370 trigger.
 *
 * One transaction, under the days-off lock and the affected loans' row locks; audited per loan
 * (`loan.move_due_dates`, which publishes a domain event) and once for the run (`days_off.apply`).
 * Idempotent by construction: a second run computes the same dates and changes nothing. The run also
 * marks every holiday as applied (Fineract's "processed").
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { need } from '../auth/permissions.ts';
import type { Tx } from '../db/index.ts';
import type { LoanInstallmentsRow, LoansRow } from '../db/schema.generated.ts';
import { AppError } from '../errors/app-error.ts';
import { defineCommand } from '../http/command.ts';
import type { Actor } from '../lending/actor.ts';
import { auditSuccess } from '../lending/commands/common.ts';
import { dueDateSequence } from '../schedule/due-dates.ts';
import { parseTerms } from '../schedule/terms.ts';
import type { WorkingCalendar, WorkingDayRule } from '../schedule/types.ts';
import { businessDate } from '../tenancy/tenant.ts';
import { calendarFor, loadRule } from './calendar.ts';
import { lockDaysOff, tFor } from './commands.ts';

export type DueDateMove = {
  loanId: string;
  customerId: string;
  accountNo: string;
  branchCode: string | null;
  installmentId: string;
  number: number;
  oldDueDate: string;
  newDueDate: string;
  /** The installment's total due (minor units), unchanged by the move. */
  totalDue: bigint;
  currency: string;
};

export type SkipReason = 'beforeBusinessDate' | 'order' | 'terms';

export type SkippedMove = {
  loanId: string;
  customerId: string;
  accountNo: string;
  number: number | null;
  oldDueDate: string | null;
  wouldBe: string | null;
  reason: SkipReason;
};

export type ApplyPlan = {
  businessDate: string;
  rule: WorkingDayRule;
  loansChecked: number;
  loansAffected: number;
  moves: DueDateMove[];
  skipped: SkippedMove[];
  /** A digest of the moves: "apply" with the preview's fingerprint refuses (409) if anything changed since. */
  fingerprint: string;
};

type LoanPick = Pick<LoansRow, 'id' | 'customer_id' | 'account_no' | 'customer_branch_id' | 'terms' | 'currency'> & {
  branch_code: string | null;
};
type InstallmentPick = Pick<
  LoanInstallmentsRow,
  'id' | 'loan_id' | 'number' | 'from_date' | 'due_date' | 'is_down_payment'
> & { total_due: bigint };

/** What "apply" would do now (reads only). */
export async function planApply(tx: Tx, tenantId: string): Promise<ApplyPlan> {
  const today = await businessDate(tx, tenantId);
  const rule = await loadRule(tx);
  const loans = await tx.query<LoanPick>(
    `select l.id, l.customer_id, l.account_no, l.customer_branch_id, l.terms, l.currency, b.code as branch_code
       from loans l left join hierarchy_nodes b on b.tenant_id = l.tenant_id and b.id = l.customer_branch_id
      where l.status = 'ACTIVE' and l.maturity_date > $1
      order by l.account_no`,
    [today],
  );
  const installments = loans.length
    ? await tx.query<InstallmentPick>(
        `select id, loan_id, number, from_date::text as from_date, due_date::text as due_date, is_down_payment,
                (principal_due + interest_due + fee_due + penalty_due)::int8 as total_due
           from loan_installments where loan_id = any($1::uuid[]) order by loan_id, number`,
        [loans.map((l) => l.id)],
      )
    : [];
  const byLoan = new Map<string, InstallmentPick[]>();
  for (const i of installments) {
    const list = byLoan.get(i.loan_id) ?? [];
    list.push(i);
    byLoan.set(i.loan_id, list);
  }
  const calendars = new Map<string | null, WorkingCalendar>();
  const moves: DueDateMove[] = [];
  const skipped: SkippedMove[] = [];
  let loansAffected = 0;
  for (const loan of loans) {
    const branch = loan.customer_branch_id;
    if (!calendars.has(branch)) calendars.set(branch, await calendarFor(tx, branch));
    const result = planLoan(loan, byLoan.get(loan.id) ?? [], calendars.get(branch)!, today);
    if ('skip' in result) {
      skipped.push(...result.skip);
      continue;
    }
    skipped.push(...result.skipped);
    if (result.moves.length) loansAffected++;
    moves.push(...result.moves);
  }
  return {
    businessDate: today,
    rule,
    loansChecked: loans.length,
    loansAffected,
    moves,
    skipped,
    fingerprint: fingerprintOf(today, moves),
  };
}

function fingerprintOf(today: string, moves: DueDateMove[]): string {
  const hash = createHash('sha256').update(today);
  for (const m of moves) hash.update(`|${m.installmentId}:${m.oldDueDate}>${m.newDueDate}`);
  return hash.digest('hex').slice(0, 32);
}

function planLoan(
  loan: LoanPick,
  rows: InstallmentPick[],
  calendar: WorkingCalendar,
  today: string,
): { moves: DueDateMove[]; skipped: SkippedMove[] } | { skip: SkippedMove[] } {
  const whole = (reason: SkipReason): { skip: SkippedMove[] } => ({
    skip: [
      {
        loanId: loan.id,
        customerId: loan.customer_id,
        accountNo: loan.account_no,
        number: null,
        oldDueDate: null,
        wouldBe: null,
        reason,
      },
    ],
  });
  let dueAt: (index: number) => string;
  let offset: number;
  try {
    const terms = parseTerms(loan.terms);
    offset = terms.downPaymentPercent !== null ? 1 : 0;
    if (rows.filter((r) => !r.is_down_payment).length !== terms.numberOfRepayments) return whole('terms');
    // The engine's own due dates for these terms and this calendar (generateSchedule uses the same).
    dueAt = dueDateSequence(
      terms.expectedDisbursementDate,
      terms.firstRepaymentDate,
      terms.repaymentFrequency,
      terms.repaymentEvery,
      calendar,
      terms.disbursementDate,
    );
  } catch {
    return whole('terms');
  }
  const moves: DueDateMove[] = [];
  const skipped: SkippedMove[] = [];
  const finalDue: string[] = [];
  for (const row of rows) {
    let due = row.due_date;
    if (!row.is_down_payment && row.due_date > today) {
      const target = dueAt(row.number - 1 - offset);
      if (target !== row.due_date) {
        if (target <= today) {
          skipped.push({
            loanId: loan.id,
            customerId: loan.customer_id,
            accountNo: loan.account_no,
            number: row.number,
            oldDueDate: row.due_date,
            wouldBe: target,
            reason: 'beforeBusinessDate',
          });
        } else {
          due = target;
          moves.push({
            loanId: loan.id,
            customerId: loan.customer_id,
            accountNo: loan.account_no,
            branchCode: loan.branch_code,
            installmentId: row.id,
            number: row.number,
            oldDueDate: row.due_date,
            newDueDate: target,
            totalDue: row.total_due,
            currency: loan.currency,
          });
        }
      }
    }
    finalDue.push(due);
  }
  // Due dates stay in installment order (a down payment shares the disbursement date with nothing).
  for (let k = 1; k < finalDue.length; k++) if (finalDue[k] <= finalDue[k - 1] && moves.length) return whole('order');
  return { moves, skipped };
}

export type ApplyResult = ApplyPlan & { applied: boolean };

/** Applies the plan: moves the dates, keeps from dates chained, audits; nothing when nothing moves. */
export async function applyDaysOff(
  tx: Tx,
  actor: Actor,
  options: { expectedFingerprint?: string | null; language?: 'en' | 'fr' } = {},
): Promise<ApplyResult> {
  await lockDaysOff(tx, actor.tenantId);
  const plan = await planApply(tx, actor.tenantId);
  if (options.expectedFingerprint && options.expectedFingerprint !== plan.fingerprint) {
    const t = await tFor(options.language);
    throw new AppError('CONFLICT', t('daysoff:errors.stalePreview'), { field: 'fingerprint' });
  }
  const loanIds = [...new Set(plan.moves.map((m) => m.loanId))].sort();
  if (loanIds.length) {
    // The loans' row locks, in one order, so a repayment on one of them waits for this run (or the other way).
    await tx.query(`select id from loans where id = any($1::uuid[]) order by id for update`, [loanIds]);
    const moved = new Map(plan.moves.map((m) => [m.installmentId, m.newDueDate]));
    const rows = await tx.query<Pick<LoanInstallmentsRow, 'id' | 'loan_id' | 'number' | 'from_date' | 'due_date'>>(
      `select id, loan_id, number, from_date::text as from_date, due_date::text as due_date
         from loan_installments where loan_id = any($1::uuid[]) order by loan_id, number`,
      [loanIds],
    );
    const ids: string[] = [];
    const dues: string[] = [];
    const froms: string[] = [];
    let previous: { loanId: string; due: string; moved: boolean } | null = null;
    for (const row of rows) {
      const newDue = moved.get(row.id) ?? row.due_date;
      // The next installment's period starts on the moved due date (Fineract updates its from date too).
      const newFrom =
        previous && previous.loanId === row.loan_id && previous.moved && row.from_date !== previous.due
          ? previous.due
          : row.from_date;
      if (newDue !== row.due_date || newFrom !== row.from_date) {
        ids.push(row.id);
        dues.push(newDue);
        froms.push(newFrom);
      }
      previous = { loanId: row.loan_id, due: newDue, moved: newDue !== row.due_date };
    }
    // One statement: the 0370 trigger refreshes the loans' summary columns once, in this transaction.
    await tx.query(
      `update loan_installments i set due_date = v.due::date, from_date = v.from_date::date
         from (select unnest($1::uuid[]) as id, unnest($2::text[]) as due, unnest($3::text[]) as from_date) v
        where i.id = v.id`,
      [ids, dues, froms],
    );
    await tx.query(`update loans set version = version + 1, updated_at = now() where id = any($1::uuid[])`, [loanIds]);
    for (const loanId of loanIds) {
      const mine = plan.moves.filter((m) => m.loanId === loanId);
      await auditSuccess(
        tx,
        actor,
        'loan.move_due_dates',
        'loan',
        loanId,
        { dueDates: mine.map((m) => ({ number: m.number, dueDate: m.oldDueDate })) },
        {
          dueDates: mine.map((m) => ({ number: m.number, dueDate: m.newDueDate })),
          reason: 'days_off',
          rule: plan.rule,
        },
      );
    }
  }
  await tx.query(
    `update days_off set applied_at = now(), revision = revision + 1 where kind = 'holiday' and applied_at is null`,
  );
  await auditSuccess(tx, actor, 'days_off.apply', 'days_off', 'apply', null, {
    businessDate: plan.businessDate,
    rule: plan.rule,
    loansChecked: plan.loansChecked,
    loansAffected: plan.loansAffected,
    installmentsMoved: plan.moves.length,
    skipped: plan.skipped.length,
    fingerprint: plan.fingerprint,
  });
  return { ...plan, applied: true };
}

/** The JSON of a plan; at most `limit` moves and skips listed (the counts are always whole). */
export function planJson(plan: ApplyPlan | ApplyResult, limit = 1000) {
  return {
    dryRun: !('applied' in plan),
    businessDate: plan.businessDate,
    rule: plan.rule,
    loansChecked: plan.loansChecked,
    loansAffected: plan.loansAffected,
    installmentsMoved: plan.moves.length,
    fingerprint: plan.fingerprint,
    moves: plan.moves.slice(0, limit).map((m) => ({
      loanId: m.loanId,
      customerId: m.customerId,
      accountNo: m.accountNo,
      branchCode: m.branchCode,
      installment: m.number,
      oldDueDate: m.oldDueDate,
      newDueDate: m.newDueDate,
      totalDue: m.totalDue.toString(),
      currency: m.currency,
    })),
    skipped: plan.skipped.slice(0, limit),
    truncated: plan.moves.length > limit || plan.skipped.length > limit,
  };
}

export const applyDaysOffCommand = defineCommand({
  action: 'days_off.apply',
  objectType: 'days_off',
  permission: need('admin.days_off.edit'),
  input: z
    .object({
      dryRun: z.union([z.boolean(), z.enum(['true', 'false', '1', '0'])]).optional(),
      fingerprint: z.string().max(64).nullish(),
    })
    .strict(),
  run: async (tx, actor, input, request): Promise<ApplyPlan | ApplyResult> => {
    const dryRun = input.dryRun === true || input.dryRun === 'true' || input.dryRun === '1';
    if (dryRun) return planApply(tx, actor.tenantId);
    return applyDaysOff(tx, actor, { expectedFingerprint: input.fingerprint, language: request.language });
  },
});
