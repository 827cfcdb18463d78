/**
 * Vintage analysis (/analytics/risk/vintage-analysis): cohorts by disbursement month; for each cohort
 * and months on book k (k = 0 at the end of the disbursement month), the share of the cohort's
 * principal disbursed held by loans that had EVER been more than 30 / 60 / 90 days past due (the
 * PAR30/60/90 thresholds and the default collection buckets' first days 31 / 61 / 91) or written off
 * by the month end k, from the month-end snapshots' days past due and status.
 *
 * Rollups (migration 0920), kept by `vintageWriter` at each month end:
 *  - analytics_loan_vintage: per loan its cohort, principal lent (the loan's approved principal: what
 *    it disbursed, or for a tranche loan the sum of its tranches, later ones included) and the first
 *    month end it reached each measure;
 *  - analytics_vintages: per month end × cohort × product × scope copy, loans, disbursed and the
 *    principal disbursed of the loans that had reached each measure by that month end.
 * Both writes are idempotent per month end (first-reached dates take the earliest month end; the
 * aggregate is deleted then inserted), so a rebuild replays the month ends oldest first.
 */
import type { Tx } from '../db/index.ts';
import type { MonthEndWriter } from './month-end.ts';
import { scopeCondition } from '../boards/overview.ts';
import { resolveScopeNodes, type Scope, type ScopeSubject } from '../tenancy/scope.ts';

export const VINTAGE_MEASURES = ['ever30', 'ever60', 'ever90', 'written_off'] as const;
export type VintageMeasure = (typeof VINTAGE_MEASURES)[number];

export const vintageWriter: MonthEndWriter = {
  name: 'vintages',
  async write(tx, tenantId, monthEnd) {
    // The first month end of the history starts the per-loan state over (a rebuild replays from here).
    const [{ earlier }] = await tx.query<{ earlier: boolean }>(
      'select exists (select 1 from loan_month_end_snapshots where month_end < $1) as earlier',
      [monthEnd],
    );
    if (!earlier) await tx.query('delete from analytics_loan_vintage');
    // New loans of the month end's snapshot: cohort, product, principal lent. The approved principal, not
    // the disbursements so far: a tranche paid out later belongs to the cohort from its first month end
    // on, so a cohort's amount never changes (shares cannot fall) and a rebuild writes what the close wrote.
    await tx.query(
      `insert into analytics_loan_vintage (tenant_id, loan_id, cohort, product_id, currency, customer_branch_id,
         customer_officer_id, officer_id, disbursed)
       select $1, l.id, date_trunc('month', l.disbursed_on)::date, l.product_id, l.currency, l.customer_branch_id,
              l.customer_officer_id, l.officer_id,
              l.principal
         from loan_month_end_snapshots s join loans l on l.tenant_id = s.tenant_id and l.id = s.loan_id
        where s.month_end = $2 and l.disbursed_on is not null
          and not exists (select 1 from analytics_loan_vintage v where v.tenant_id = s.tenant_id and v.loan_id = s.loan_id)`,
      [tenantId, monthEnd],
    );
    // First month end each measure was reached (the earliest, so a replay changes nothing); scope copies follow the loan.
    await tx.query(
      `update analytics_loan_vintage v set
         reached30_on = case when s.past_due_days > 30 then least(coalesce(v.reached30_on, s.month_end), s.month_end) else v.reached30_on end,
         reached60_on = case when s.past_due_days > 60 then least(coalesce(v.reached60_on, s.month_end), s.month_end) else v.reached60_on end,
         reached90_on = case when s.past_due_days > 90 then least(coalesce(v.reached90_on, s.month_end), s.month_end) else v.reached90_on end,
         written_off_on = case when s.status = 'CLOSED_WRITTEN_OFF' then least(coalesce(v.written_off_on, s.month_end), s.month_end) else v.written_off_on end,
         customer_branch_id = l.customer_branch_id, customer_officer_id = l.customer_officer_id, officer_id = l.officer_id
        from loan_month_end_snapshots s, loans l
       where s.month_end = $1 and s.tenant_id = v.tenant_id and s.loan_id = v.loan_id
         and l.tenant_id = s.tenant_id and l.id = s.loan_id`,
      [monthEnd],
    );
    await tx.query('delete from analytics_vintages where month_end = $1', [monthEnd]);
    const rows = await tx.query(
      `insert into analytics_vintages (tenant_id, month_end, cohort, product_id, currency, customer_branch_id,
         customer_officer_id, officer_id, loans, disbursed, ever30, ever60, ever90, written_off)
       select $1, $2::date, v.cohort, v.product_id, v.currency, v.customer_branch_id, v.customer_officer_id, v.officer_id,
              count(*)::int, sum(v.disbursed)::int8,
              coalesce(sum(v.disbursed) filter (where v.reached30_on <= $2::date), 0)::int8,
              coalesce(sum(v.disbursed) filter (where v.reached60_on <= $2::date), 0)::int8,
              coalesce(sum(v.disbursed) filter (where v.reached90_on <= $2::date), 0)::int8,
              coalesce(sum(v.disbursed) filter (where v.written_off_on <= $2::date), 0)::int8
         from analytics_loan_vintage v
        where v.cohort <= $2::date
        group by v.cohort, v.product_id, v.currency, v.customer_branch_id, v.customer_officer_id, v.officer_id
       returning 1`,
      [tenantId, monthEnd],
    );
    return rows.length;
  },
};

export type VintageFilters = {
  /** First cohort and last cohort (first days of months). */
  from: string;
  to: string;
  productId: string | null;
  branchId: string | null;
  currency: string;
  measure: VintageMeasure;
};

export type Cohort = {
  cohort: string;
  loans: number;
  disbursed: bigint;
  /** Share (fraction) at months on book 0, 1, 2 … up to the latest month end. */
  shares: number[];
  /** The measure's principal at each months on book. */
  amounts: bigint[];
};

/** Whole months from the cohort's month to the month end's month. */
export function monthsOnBook(cohort: string, monthEnd: string): number {
  const [cy, cm] = cohort.split('-').map(Number) as [number, number];
  const [y, m] = monthEnd.split('-').map(Number) as [number, number];
  return (y - cy) * 12 + (m - cm);
}

/** The cohorts of the period with their curves, for the viewer's scope. */
export async function loadVintages(
  tx: Tx,
  subject: ScopeSubject,
  scope: Scope | null,
  f: VintageFilters,
): Promise<Cohort[]> {
  const nodes = await resolveScopeNodes(tx, subject, scope);
  const rows = await tx.query<{ cohort: string; month_end: string; loans: number; disbursed: bigint; reached: bigint }>(
    `select to_char(r.cohort, 'YYYY-MM-DD') as cohort, to_char(r.month_end, 'YYYY-MM-DD') as month_end,
            sum(r.loans)::int as loans, sum(r.disbursed)::int8 as disbursed, sum(r.${f.measure})::int8 as reached
       from analytics_vintages r
      where r.cohort between $2 and $3
        and ${scopeCondition(['r.customer_branch_id', 'r.customer_officer_id', 'r.officer_id'], nodes, '$1')}
        and ($4::uuid is null or r.product_id = $4) and ($5::uuid is null or r.customer_branch_id = $5)
        and r.currency = $6
      group by 1, 2 order by 1, 2`,
    [nodes ?? [], f.from, f.to, f.productId, f.branchId, f.currency],
  );
  const cohorts = new Map<string, Cohort>();
  for (const r of rows) {
    const c = cohorts.get(r.cohort) ?? { cohort: r.cohort, loans: 0, disbursed: 0n, shares: [], amounts: [] };
    const k = monthsOnBook(r.cohort, r.month_end);
    const disbursed = BigInt(r.disbursed);
    const reached = BigInt(r.reached);
    // The cohort's loans and amount: as of its latest month end (rows are in month order).
    c.loans = r.loans;
    c.disbursed = disbursed;
    c.amounts[k] = reached;
    c.shares[k] = disbursed ? Number((reached * 1_000_000n) / disbursed) / 1_000_000 : 0;
    cohorts.set(r.cohort, c);
  }
  return [...cohorts.values()];
}
