import type { Db, Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { logger } from '../observability/log.ts';
import { addDays } from '../schedule/dates.ts';
import { loanDelinquency } from '../schedule/delinquency.ts';
import type { DelinquencyInstallment, DelinquencyRange, LoanDelinquency } from '../schedule/types.ts';
import { expireOffers } from '../lending/offers.ts';
import { originate } from '../strategies/origination.ts';
import { applyOverduePenalties } from './penalties.ts';
import { recalculateOverdueInterest } from './recalculate-interest.ts';
import { tasksAfterClose } from '../tasks/after-close.ts';
import { collectionCloseStep, type CollectionCloseStats } from '../collection/close-step.ts';
import { INSTALLMENT_OUTSTANDING_SQL } from './sql.ts';
import { writeAnalyticsMonthEnd } from '../analytics/month-end.ts';
import type {
  CloseRunsRow,
  DelinquencyRangesRow,
  LoanDelinquencyRow,
  LoanProductsRow,
  LoansRow,
  TenantsRow,
} from '../db/schema.generated.ts';

/**
 * Close of business for one tenant (Fineract's COB). Closing business date D:
 *  1. charges the products' overdue penalties on installments that became overdue (past their
 *     penalty grace) by the start of D+1, posting through the lending engine so the ledger balances;
 *  1b. recomputes, as of D+1, the schedule of every active loan of a recalculating product with
 *     principal overdue (interest on overdue principal, src/lib/close/recalculate-interest.ts);
 *  2. computes, at the new business date D+1, every active loan's days past due, delinquent days,
 *     overdue amount and its product's delinquency range with arrears grace (the schedule engine's pure
 *     loanDelinquency — the same numbers Fineract shows after its COB for D), marks loans whose last
 *     due date has passed as matured, stores that state in loan_delinquency and appends a
 *     loan_delinquency_history row for every change of bucket;
 *  2b. the collection step (src/lib/collection/close-step.ts): collection cases and bucket moves,
 *     promises to pay settled, collection workflow steps and bullet loans' maturity reminders;
 *  3. expires the offers still open to their customer whose expiry date is before D+1;
 *  4. when D is a month's last day, writes a month-end snapshot per loan (outstanding by component,
 *     days past due, bucket, amounts paid in the month);
 *  5. records the run in close_runs and moves the tenant's business date to D+1.
 * All in ONE transaction holding the tenant row lock, so a close is all-or-nothing and a re-run for
 * the same date (a retried job, a second server) finds the business date already moved and does
 * nothing. Reads and writes are set-based (a few statements per close, not per loan) so the close
 * scales to hundreds of thousands of loans.
 */

export type CloseStats = {
  activeLoans: number;
  overdueLoans: number;
  delinquentLoans: number;
  bucketChanges: number;
  penaltiesApplied: number;
  /** Recalculating loans whose schedule the close rewrote for interest on overdue principal. */
  interestRecalculated: number;
  maturedLoans: number;
  /** Offers still open to the customer whose expiry date had passed. */
  offersExpired: number;
  snapshots: number;
  /** Rows written by each analytics month-end writer (src/lib/analytics/month-end.ts), on month ends. */
  analytics?: Record<string, number>;
  ms: number;
} & CollectionCloseStats;

export type CloseResult = {
  tenantId: string;
  /**
   * Origination at the new business date (every live strategy), run after the close committed;
   * absent when the date was already closed or origination was not asked for; `error` when it failed
   * (the close itself stands: its work is committed, and tomorrow's origination catches up).
   */
  origination?: { created: number; refused: number; skipped: number; forced: number } | { error: string };
  /** The day that was closed. */
  businessDate: string;
  newBusinessDate: string;
  /** True when this date had already been closed: nothing changed. */
  wasAlreadyClosed: boolean;
  stats: CloseStats;
};

export type CloseOptions = {
  /**
   * The business date the caller means to close (jobs pass the date they were scheduled for).
   * If the tenant is already past it, the close answers wasAlreadyClosed; if the tenant is behind
   * it, nothing is skipped: the close refuses.
   */
  businessDate?: string;
  /** Actor recorded on penalty transactions. Default 'system:close'. */
  actor?: string;
  /**
   * After the close, the live strategies originate their offers at the new business date (default
   * true). The portfolio simulator turns it off: its replayed days are history, not offer days.
   */
  originate?: boolean;
};

/** A `loan_delinquency` row as the close reads it back (every column but the tenant and the date). */
type StateRow = Omit<LoanDelinquencyRow, 'tenant_id' | 'as_of'>;

/** The month-end check: D is the last day of its month when D+1 is a 1st. */
export function isMonthEnd(date: string): boolean {
  return addDays(date, 1).endsWith('-01');
}

export async function runDailyClose(db: Db, tenantId: string, options: CloseOptions = {}): Promise<CloseResult> {
  const started = Date.now();
  const result: CloseResult = await db.tenant(tenantId, async (tx): Promise<CloseResult> => {
    const [tenant] = await tx.query<Pick<TenantsRow, 'business_date'>>(
      'select business_date from tenants where id = $1 for update',
      [tenantId],
    );
    if (!tenant) throw new AppError('NOT_FOUND', 'Unknown tenant', { field: 'tenantId' });
    const day = tenant.business_date;
    if (options.businessDate && options.businessDate !== day) {
      if (options.businessDate < day) {
        const [run] = await tx.query<Pick<CloseRunsRow, 'new_business_date'> & { stats: CloseStats }>(
          'select new_business_date, stats from close_runs where business_date = $1',
          [options.businessDate],
        );
        return {
          tenantId,
          businessDate: options.businessDate,
          newBusinessDate: run?.new_business_date ?? addDays(options.businessDate, 1),
          wasAlreadyClosed: true,
          stats: run?.stats ?? emptyStats(),
        };
      }
      throw new AppError(
        'CONFLICT',
        `The business date is ${day}; ${options.businessDate} cannot be closed before it.`,
        { field: 'businessDate' },
      );
    }
    const next = addDays(day, 1);
    const startedAt = new Date();
    const stats = emptyStats();

    stats.penaltiesApplied = await applyOverduePenalties(tx, tenantId, next, options.actor ?? 'system:close');
    stats.interestRecalculated = await recalculateOverdueInterest(tx, tenantId, next, options.actor ?? 'system:close');
    await classifyLoans(tx, tenantId, next, stats);
    Object.assign(stats, await collectionCloseStep(tx, tenantId, next, options.actor ?? 'system:close'));
    stats.offersExpired = await expireOffers(tx, tenantId, next, options.actor ?? 'system:close');
    if (isMonthEnd(day)) {
      stats.snapshots = await writeMonthEndSnapshots(tx, tenantId, day);
      stats.analytics = await writeAnalyticsMonthEnd(tx, tenantId, day);
    }

    stats.ms = Date.now() - started;
    await tx.query(
      `insert into close_runs (tenant_id, business_date, new_business_date, started_at, stats) values ($1, $2, $3, $4, $5::jsonb)`,
      [tenantId, day, next, startedAt, JSON.stringify(stats)],
    );
    await tx.query('update tenants set business_date = $2 where id = $1', [tenantId, next]);
    return { tenantId, businessDate: day, newBusinessDate: next, wasAlreadyClosed: false, stats };
  });
  if (!result.wasAlreadyClosed)
    logger.debug('daily close', { tenant: tenantId, date: result.businessDate, ...result.stats });
  if (!result.wasAlreadyClosed && options.originate !== false)
    result.origination = await originateAfterClose(db, tenantId, result.newBusinessDate, options.actor);
  if (!result.wasAlreadyClosed) await tasksAfterClose(db, tenantId, result.newBusinessDate); // logs, never throws
  return result;
}

/**
 * 6. After the close's transaction committed: origination of every live strategy at the new business
 * date, audited as the system, page by page (src/lib/strategies/origination.ts). A failure is logged
 * and answered, never thrown: the close is done and stays done. Re-running is harmless (once per
 * customer, strategy and date).
 */
export async function originateAfterClose(
  db: Db,
  tenantId: string,
  businessDate: string,
  actorId = 'system:close',
): Promise<NonNullable<CloseResult['origination']>> {
  try {
    const { created, refused, skipped, forced } = await originate(
      db,
      { tenantId, userId: actorId, isAdmin: true, kind: 'system' },
      { businessDate },
    );
    return { created, refused, skipped, forced };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    logger.error('origination after the close failed', { tenant: tenantId, date: businessDate, error: message });
    return { error: message };
  }
}

/** Closes day after day until the business date reaches `until` (exclusive of further days). */
export async function closeUntil(
  db: Db,
  tenantId: string,
  until: string,
  options: CloseOptions = {},
): Promise<CloseResult[]> {
  const results: CloseResult[] = [];
  for (;;) {
    const [{ business_date: day }] = await db.system((tx) =>
      tx.query<Pick<TenantsRow, 'business_date'>>('select business_date from tenants where id = $1', [tenantId]),
    );
    if (day >= until) return results;
    results.push(await runDailyClose(db, tenantId, { ...options, businessDate: day }));
  }
}

function emptyStats(): CloseStats {
  return {
    activeLoans: 0,
    overdueLoans: 0,
    delinquentLoans: 0,
    bucketChanges: 0,
    penaltiesApplied: 0,
    interestRecalculated: 0,
    maturedLoans: 0,
    offersExpired: 0,
    snapshots: 0,
    ms: 0,
    collectionCases: 0,
    bucketMoves: 0,
    promisesKept: 0,
    promisesBroken: 0,
    workflowSteps: 0,
    reminders: 0,
  };
}

async function classifyLoans(tx: Tx, tenantId: string, asOf: string, stats: CloseStats): Promise<void> {
  // Ranges of every bucket set, and each product version's set and arrears grace (a loan follows the
  // version it was made with, migration 0610).
  const rangeRows = await tx.query<
    Pick<DelinquencyRangesRow, 'bucket_set_id' | 'classification' | 'min_age_days' | 'max_age_days'>
  >(
    'select bucket_set_id, classification, min_age_days, max_age_days from delinquency_ranges order by bucket_set_id, min_age_days',
  );
  const rangesBySet = new Map<string, DelinquencyRange[]>();
  for (const r of rangeRows) {
    const list = rangesBySet.get(r.bucket_set_id) ?? [];
    list.push({ name: r.classification, minimumAgeDays: r.min_age_days, maximumAgeDays: r.max_age_days });
    rangesBySet.set(r.bucket_set_id, list);
  }
  const products = new Map(
    (
      await tx.query<Pick<LoanProductsRow, 'id' | 'delinquency_bucket_set_id' | 'grace_on_arrears_ageing'>>(
        `select product_id::text || ':' || version as id, (snapshot->>'delinquency_bucket_set_id')::uuid as delinquency_bucket_set_id,
                coalesce((snapshot->>'grace_on_arrears_ageing')::int, 0) as grace_on_arrears_ageing from loan_product_versions`,
      )
    ).map((p) => [p.id, p]),
  );

  const [{ n: activeLoans }] = await tx.query<{ n: number }>(
    `select count(*)::int as n from loans where status = 'ACTIVE'`,
  );
  stats.activeLoans = activeLoans;

  // Every unpaid installment of an active loan that is due before the new business date: the only
  // rows delinquency depends on (the partial index loan_installments_due serves this).
  const overdueRows = await tx.query<{
    loan_id: string;
    product_id: string;
    number: number;
    due_date: string;
    outstanding: bigint;
  }>(
    `select i.loan_id, l.product_id::text || ':' || l.product_version as product_id, i.number, i.due_date, ${INSTALLMENT_OUTSTANDING_SQL} as outstanding
       from loan_installments i join loans l on l.tenant_id = i.tenant_id and l.id = i.loan_id
      where i.obligations_met_on is null and i.due_date < $1 and l.status = 'ACTIVE'
        and ${INSTALLMENT_OUTSTANDING_SQL} > 0
      order by i.loan_id, i.number`,
    [asOf],
  );
  const byLoan = new Map<string, { productId: string; installments: DelinquencyInstallment[] }>();
  for (const r of overdueRows) {
    const entry = byLoan.get(r.loan_id) ?? { productId: r.product_id, installments: [] };
    entry.installments.push({ number: r.number, dueDate: r.due_date, outstanding: r.outstanding });
    byLoan.set(r.loan_id, entry);
  }
  stats.overdueLoans = byLoan.size;

  // Maturity only concerns loans with something overdue: an active loan with nothing unpaid is closed.
  const overdueIds = [...byLoan.keys()];
  const lastDue = new Map<string, string>();
  if (overdueIds.length) {
    for (const r of await tx.query<{ loan_id: string; last_due: string }>(
      `select loan_id, max(due_date) as last_due from loan_installments where loan_id = any($1::uuid[]) group by loan_id`,
      [overdueIds],
    ))
      lastDue.set(r.loan_id, r.last_due);
  }

  // Previous state of loans that had anything to show.
  const previous = new Map(
    (
      await tx.query<StateRow>(
        `select loan_id, past_due_days, delinquent_days, delinquent_date, delinquent_amount, overdue_installments, classification,
              classified_since, is_matured, matured_on, installment_level
         from loan_delinquency where past_due_days > 0 or classification is not null or is_matured or overdue_installments > 0`,
      )
    ).map((r) => [r.loan_id, r]),
  );

  const upserts: StateRow[] = [];
  const history: { loanId: string; from: string | null; to: string | null; reason: string; d: LoanDelinquency }[] = [];

  for (const [loanId, { productId, installments }] of byLoan) {
    const product = products.get(productId);
    const ranges = (product?.delinquency_bucket_set_id && rangesBySet.get(product.delinquency_bucket_set_id)) || [];
    const d = loanDelinquency({
      installments,
      businessDate: asOf,
      graceOnArrearsAgeing: product?.grace_on_arrears_ageing ?? 0,
      ranges,
    });
    const prev = previous.get(loanId);
    previous.delete(loanId);
    const last = lastDue.get(loanId);
    const isMatured = last !== undefined && last < asOf;
    if (d.classification) stats.delinquentLoans++;
    if (isMatured && !prev?.is_matured) stats.maturedLoans++;
    const prevClass = prev?.classification ?? null;
    if (prevClass !== d.classification) {
      history.push({
        loanId,
        from: prevClass,
        to: d.classification,
        reason: d.classification ? 'classified' : 'cured',
        d,
      });
    }
    upserts.push({
      loan_id: loanId,
      past_due_days: d.pastDueDays,
      delinquent_days: d.delinquentDays,
      delinquent_date: d.delinquentDate,
      delinquent_amount: d.delinquentAmount,
      overdue_installments: installments.length,
      classification: d.classification,
      classified_since:
        prevClass === d.classification ? (prev?.classified_since ?? null) : d.classification ? asOf : null,
      is_matured: isMatured,
      matured_on: isMatured ? (prev?.matured_on ?? asOf) : null,
      installment_level: d.installmentLevel.map((x) => ({ range: x.range, amount: x.amount.toString() })),
    });
  }

  // Loans that had overdue amounts before and have none now: cured, repaid in full, or written off.
  if (previous.size) {
    const statuses = new Map(
      (
        await tx.query<Pick<LoansRow, 'id' | 'status'>>('select id, status from loans where id = any($1::uuid[])', [
          [...previous.keys()],
        ])
      ).map((r) => [r.id, r.status]),
    );
    for (const [loanId, prev] of previous) {
      const status = statuses.get(loanId);
      if (prev.classification) {
        const reason = status === 'CLOSED_WRITTEN_OFF' ? 'written_off' : status === 'ACTIVE' ? 'cured' : 'closed';
        history.push({
          loanId,
          from: prev.classification,
          to: null,
          reason,
          d: {
            pastDueDays: 0,
            delinquentDays: 0,
            delinquentDate: null,
            delinquentAmount: 0n,
            classification: null,
            installmentLevel: [],
          },
        });
      }
      upserts.push({
        loan_id: loanId,
        past_due_days: 0,
        delinquent_days: 0,
        delinquent_date: null,
        delinquent_amount: 0n,
        overdue_installments: 0,
        classification: null,
        classified_since: null,
        is_matured: false,
        matured_on: null,
        installment_level: [],
      });
    }
  }

  if (upserts.length) {
    await tx.query(
      `insert into loan_delinquency (tenant_id, loan_id, as_of, past_due_days, delinquent_days, delinquent_date, delinquent_amount,
         overdue_installments, classification, classified_since, installment_level, is_matured, matured_on)
       select $1, u.loan_id, $2, u.pdd, u.dd, u.ddate, u.amount, u.n, u.class, u.since, u.level, u.matured, u.matured_on
         from unnest($3::uuid[], $4::int[], $5::int[], $6::date[], $7::int8[], $8::int[], $9::text[], $10::date[], $11::jsonb[], $12::bool[], $13::date[])
           as u(loan_id, pdd, dd, ddate, amount, n, class, since, level, matured, matured_on)
       on conflict (tenant_id, loan_id) do update set as_of = excluded.as_of, past_due_days = excluded.past_due_days,
         delinquent_days = excluded.delinquent_days, delinquent_date = excluded.delinquent_date,
         delinquent_amount = excluded.delinquent_amount, overdue_installments = excluded.overdue_installments,
         classification = excluded.classification, classified_since = excluded.classified_since,
         installment_level = excluded.installment_level, is_matured = excluded.is_matured, matured_on = excluded.matured_on`,
      [
        tenantId,
        asOf,
        upserts.map((u) => u.loan_id),
        upserts.map((u) => u.past_due_days),
        upserts.map((u) => u.delinquent_days),
        upserts.map((u) => u.delinquent_date),
        upserts.map((u) => u.delinquent_amount.toString()),
        upserts.map((u) => u.overdue_installments),
        upserts.map((u) => u.classification),
        upserts.map((u) => u.classified_since),
        upserts.map((u) => JSON.stringify(u.installment_level)),
        upserts.map((u) => u.is_matured),
        upserts.map((u) => u.matured_on),
      ],
    );
  }
  if (history.length) {
    await tx.query(
      `insert into loan_delinquency_history (tenant_id, loan_id, business_date, from_classification, to_classification, reason,
         past_due_days, delinquent_days, delinquent_amount)
       select $1, h.loan_id, $2, h.from_c, h.to_c, h.reason, h.pdd, h.dd, h.amount
         from unnest($3::uuid[], $4::text[], $5::text[], $6::text[], $7::int[], $8::int[], $9::int8[]) as h(loan_id, from_c, to_c, reason, pdd, dd, amount)`,
      [
        tenantId,
        asOf,
        history.map((h) => h.loanId),
        history.map((h) => h.from),
        history.map((h) => h.to),
        history.map((h) => h.reason),
        history.map((h) => h.d.pastDueDays),
        history.map((h) => h.d.delinquentDays),
        history.map((h) => h.d.delinquentAmount.toString()),
      ],
    );
  }
  stats.bucketChanges = history.length;
}

/**
 * Month-end snapshot of every loan open at some point of the month ending `monthEnd`: active and
 * overpaid loans, and loans closed or written off during that month. One set-based statement.
 */
async function writeMonthEndSnapshots(tx: Tx, tenantId: string, monthEnd: string): Promise<number> {
  const monthStart = `${monthEnd.slice(0, 8)}01`;
  const rows = await tx.query(
    `with scope as (
       select l.id, l.status, l.currency, l.credit_balance from loans l
        where l.disbursed_on is not null and l.disbursed_on <= $3
          and (l.status in ('ACTIVE', 'OVERPAID')
               or (l.status = 'CLOSED_OBLIGATIONS_MET' and l.closed_on >= $2)
               or (l.status = 'CLOSED_WRITTEN_OFF' and l.written_off_on >= $2))
     ), outstanding as (
       select i.loan_id,
              sum(i.principal_due - i.principal_paid - i.principal_written_off)::int8 as p,
              sum(i.interest_due - i.interest_paid - i.interest_waived - i.interest_written_off)::int8 as i,
              sum(i.fee_due - i.fee_paid - i.fee_waived - i.fee_written_off)::int8 as f,
              sum(i.penalty_due - i.penalty_paid - i.penalty_waived - i.penalty_written_off)::int8 as pen
         from loan_installments i join scope s on s.id = i.loan_id
        group by i.loan_id
     ), paid as (
       select t.loan_id,
              sum(t.principal_portion)::int8 as p, sum(t.interest_portion)::int8 as i,
              sum(t.fee_portion)::int8 as f, sum(t.penalty_portion)::int8 as pen, sum(t.amount)::int8 as total
         from loan_transactions t join scope s on s.id = t.loan_id
        where t.type = 'REPAYMENT' and t.transaction_date between $2 and $3
          and not exists (select 1 from loan_transactions r where r.tenant_id = t.tenant_id and r.reverses_id = t.id)
        group by t.loan_id
     )
     insert into loan_month_end_snapshots (tenant_id, loan_id, month_end, status, currency, principal_outstanding,
       interest_outstanding, fee_outstanding, penalty_outstanding, total_outstanding, credit_balance, past_due_days,
       delinquent_days, classification, principal_paid_in_month, interest_paid_in_month, fee_paid_in_month,
       penalty_paid_in_month, total_paid_in_month)
     select $1, s.id, $3, s.status, s.currency,
            coalesce(o.p, 0), coalesce(o.i, 0), coalesce(o.f, 0), coalesce(o.pen, 0),
            coalesce(o.p, 0) + coalesce(o.i, 0) + coalesce(o.f, 0) + coalesce(o.pen, 0), s.credit_balance,
            coalesce(d.past_due_days, 0), coalesce(d.delinquent_days, 0), d.classification,
            coalesce(pd.p, 0), coalesce(pd.i, 0), coalesce(pd.f, 0), coalesce(pd.pen, 0), coalesce(pd.total, 0)
       from scope s
       left join outstanding o on o.loan_id = s.id
       left join paid pd on pd.loan_id = s.id
       left join loan_delinquency d on d.tenant_id = $1 and d.loan_id = s.id
     on conflict (tenant_id, loan_id, month_end) do nothing
     returning loan_id`,
    [tenantId, monthStart, monthEnd],
  );
  return rows.length;
}
