/**
 * Monthly revenue (/analytics/performance/monthly-revenue): interest, fees and penalties EARNED by
 * month, from the ledger: credits − debits on INTEREST_INCOME / FEE_INCOME / PENALTY_INCOME of the
 * journal entries dated in the month (a reversal or a waiver is an opposite entry, so it nets out
 * in the month it is dated). Grouped by the loan's product or the customer's branch (the loan's scope
 * copy), restricted to the viewer's scope on the loan's scope columns.
 * Months up to the last month end the rollup analytics_revenue_months holds (written by
 * REVENUE_WRITER at each month end) come from it; later months (the current one) from the ledger directly. Both
 * run the same SELECT (revenueGroupsSql), so a month reads the same either way.
 */
import type { Tx } from '../../db/index.ts';
import { noJit } from '../../lists/query.ts';
import { resolveScopeNodes, type Scope, type ScopeSubject } from '../../tenancy/scope.ts';
import { scopeCondition } from '../../boards/overview.ts';
import type { MonthEndWriter } from '../month-end.ts';
import { addDays } from '../../schedule/dates.ts';
import { monthEndOf, monthsBetween } from './period.ts';

export const REVENUE_DIMENSIONS = ['product', 'branch'] as const;
export type RevenueDimension = (typeof REVENUE_DIMENSIONS)[number];
export const INCOME_TYPES = ['interest', 'fees', 'penalties'] as const;
export type IncomeType = (typeof INCOME_TYPES)[number];

/** The rollup's scope columns (copies of the loan's, as the loans list filters on). */
export const ROLLUP_SCOPE_COLUMNS = ['r.customer_branch_id', 'r.customer_officer_id', 'r.officer_id'] as const;

/**
 * Income per (month YYYY-MM, currency, product, scope columns) of the journal entries dated [$from, $to];
 * `tenant` and the date parameters are SQL placeholders of the caller. The lines are summed per loan
 * first, so each loan's product and scope columns are read once (index-only, 0915).
 */
export function revenueGroupsSql(tenant: string, from: string, to: string): string {
  return `select x.month, x.currency, l.product_id, l.customer_branch_id, l.customer_officer_id, l.officer_id,
                 sum(x.interest)::int8 as interest, sum(x.fees)::int8 as fees, sum(x.penalties)::int8 as penalties
            from (select to_char(e.entry_date, 'YYYY-MM') as month, jl.currency, coalesce(jl.loan_id, e.loan_id) as loan_id,
                         coalesce(sum(jl.credit - jl.debit) filter (where jl.account_code = 'INTEREST_INCOME'), 0) as interest,
                         coalesce(sum(jl.credit - jl.debit) filter (where jl.account_code = 'FEE_INCOME'), 0) as fees,
                         coalesce(sum(jl.credit - jl.debit) filter (where jl.account_code = 'PENALTY_INCOME'), 0) as penalties
                    from journal_entries e
                    join journal_lines jl on jl.tenant_id = e.tenant_id and jl.entry_id = e.id
                         and jl.account_code in ('INTEREST_INCOME', 'FEE_INCOME', 'PENALTY_INCOME')
                   where e.tenant_id = ${tenant} and e.entry_date between ${from}::date and ${to}::date
                   group by 1, 2, 3) x
            left join loans l on l.tenant_id = ${tenant} and l.id = x.loan_id
           group by 1, 2, 3, 4, 5, 6`;
}

/** The month-end writer of analytics_revenue_months: the month's income from the ledger. */
export const REVENUE_WRITER: MonthEndWriter = {
  name: 'revenue_months',
  async write(tx, tenantId, monthEnd) {
    await tx.query(`delete from analytics_revenue_months where tenant_id = $1 and month_end = $2::date`, [
      tenantId,
      monthEnd,
    ]);
    const rows = await tx.query<{ n: number }>(
      `with ins as (
         insert into analytics_revenue_months
           (tenant_id, month_end, currency, product_id, customer_branch_id, customer_officer_id, officer_id, interest, fees, penalties)
         select $1, $2::date, g.currency, g.product_id, g.customer_branch_id, g.customer_officer_id, g.officer_id,
                g.interest, g.fees, g.penalties
           from (${revenueGroupsSql('$1', `date_trunc('month', $2::date)::date`, '$2')}) g
         returning 1)
       select count(*)::int as n from ins`,
      [tenantId, monthEnd],
    );
    return rows[0]?.n ?? 0;
  },
};

export type RevenueCell = Record<IncomeType, bigint>;
export type RevenueGroup = { key: string | null; name: string | null; months: RevenueCell[]; total: RevenueCell };
export type Revenue = {
  currency: string;
  dimension: RevenueDimension;
  /** YYYY-MM, oldest first. */
  months: string[];
  /** The months read from the ledger directly (after the last closed month end). */
  liveMonths: string[];
  /** All groups per month and over the period. */
  totals: RevenueCell[];
  total: RevenueCell;
  groups: RevenueGroup[];
};

type Raw = {
  month: string;
  key: string | null;
  name: string | null;
  interest: string;
  fees: string;
  penalties: string;
};

const zero = (): RevenueCell => ({ interest: 0n, fees: 0n, penalties: 0n });
const addTo = (a: RevenueCell, b: RevenueCell) => {
  for (const k of INCOME_TYPES) a[k] += b[k];
};

/** The last month end the close has written (snapshots, hence rollups), or null. */
export async function lastClosedMonthEnd(tx: Tx, tenantId: string): Promise<string | null> {
  const rows = await tx.query<{ m: string | null }>(
    `select to_char(max(month_end), 'YYYY-MM-DD') as m from loan_month_end_snapshots where tenant_id = $1`,
    [tenantId],
  );
  return rows[0]?.m ?? null;
}

/** The last month end analytics_revenue_months holds, or null. */
async function lastRevenueMonthEnd(tx: Tx, tenantId: string): Promise<string | null> {
  const rows = await tx.query<{ m: string | null }>(
    `select to_char(max(month_end), 'YYYY-MM-DD') as m from analytics_revenue_months where tenant_id = $1`,
    [tenantId],
  );
  return rows[0]?.m ?? null;
}

export async function loadRevenue(
  tx: Tx,
  subject: ScopeSubject,
  scope: Scope | null,
  options: { tenantId: string; currency: string; dimension: RevenueDimension; from: string; to: string },
): Promise<Revenue> {
  await noJit(tx);
  const nodes = await resolveScopeNodes(tx, subject, scope);
  const months = monthsBetween(options.from, options.to);
  // The ledger is the source: any month after the last one the rollup holds is read live (so a
  // tenant whose history predates the rollup shows its revenue before `analytics:rebuild`).
  const closed = await lastRevenueMonthEnd(tx, options.tenantId);
  const firstDay = `${options.from}-01`;
  const lastDay = monthEndOf(options.to);
  // Rollup months: ≤ the last closed month end; live: after it (up to the period's end).
  const rollupTo = closed && closed < lastDay ? closed : lastDay;
  const liveFrom = closed ? (closed >= firstDay ? addDays(closed, 1) : firstDay) : firstDay;
  const keyCol = options.dimension === 'product' ? 'r.product_id' : 'r.customer_branch_id';
  const nameSql =
    options.dimension === 'product'
      ? `(select p.name from loan_products p where p.tenant_id = $1 and p.id = g.key)`
      : `(select h.name from hierarchy_nodes h where h.tenant_id = $1 and h.id = g.key)`;
  const scopeSql = scopeCondition(ROLLUP_SCOPE_COLUMNS, nodes, '$5');
  // $1 tenant, $2 first day, $3 rollup's last month end (or null: none), $4 live from, $5 nodes, $6 last day, $7 currency.
  const raw = await tx.query<Raw>(
    `with parts as (
       select to_char(r.month_end, 'YYYY-MM') as month, ${keyCol} as key, r.interest, r.fees, r.penalties
         from analytics_revenue_months r
        where r.tenant_id = $1 and $3::date is not null and r.month_end between $2::date and $3::date
          and r.currency = $7 and ${scopeSql}
       union all
       select r.month, ${keyCol}, r.interest, r.fees, r.penalties
         from (${revenueGroupsSql('$1', '$4', '$6')}) r
        where $4::date <= $6::date and r.currency = $7 and ${scopeSql}),
     g as (select month, key, sum(interest)::text as interest, sum(fees)::text as fees, sum(penalties)::text as penalties
             from parts group by 1, 2)
     select g.month, g.key::text as key, ${nameSql} as name, g.interest, g.fees, g.penalties from g`,
    [
      options.tenantId,
      firstDay,
      closed && closed >= firstDay ? rollupTo : null,
      liveFrom,
      nodes ?? [],
      lastDay,
      options.currency,
    ],
  );
  const index = new Map(months.map((m, i) => [m, i]));
  const groups = new Map<string, RevenueGroup>();
  const totals = months.map(zero);
  for (const r of raw) {
    const i = index.get(r.month);
    if (i === undefined) continue;
    const id = r.key ?? '';
    let group = groups.get(id);
    if (!group) {
      group = { key: r.key, name: r.name, months: months.map(zero), total: zero() };
      groups.set(id, group);
    }
    const cell = { interest: BigInt(r.interest), fees: BigInt(r.fees), penalties: BigInt(r.penalties) };
    addTo(group.months[i]!, cell);
    addTo(group.total, cell);
    addTo(totals[i]!, cell);
  }
  const total = zero();
  for (const c of totals) addTo(total, c);
  const sorted = [...groups.values()].sort(
    (a, b) => (a.name === null ? 1 : 0) - (b.name === null ? 1 : 0) || (a.name ?? '').localeCompare(b.name ?? ''),
  );
  const liveMonths = months.filter((m) => !closed || monthEndOf(m) > closed);
  return {
    currency: options.currency,
    dimension: options.dimension,
    months,
    liveMonths,
    totals,
    total,
    groups: sorted,
  };
}
