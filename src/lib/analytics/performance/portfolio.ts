/**
 * Portfolio analysis (/analytics/performance/portfolio-analysis): the composition of the outstanding
 * principal (and number of loans) at each month end by one dimension — product, customer branch,
 * customer segment, customer risk class (at the month end, from customer_risk_class_history when it
 * has a change on or before it; else the customer's current class), term band (number of repayments)
 * or size band (the loan's principal) — and its evolution over a period of months.
 * Closed month ends come from the rollup analytics_portfolio_months (PORTFOLIO_WRITER, written from
 * loan_month_end_snapshots at each month end); the business date's month, when not closed yet, from
 * the loans directly (active loans, principal still owed on unpaid installments). Scope: the loan's
 * scope columns (copied into the rollup).
 */
import type { Tx } from '../../db/index.ts';
import { noJit } from '../../lists/query.ts';
import { currencyDigits } from '../../money/money.ts';
import { resolveScopeNodes, type Scope, type ScopeSubject } from '../../tenancy/scope.ts';
import { scopeCondition } from '../../boards/overview.ts';
import type { MonthEndWriter } from '../month-end.ts';
import { monthEndOf, monthOf, monthsBetween } from './period.ts';
import { lastClosedMonthEnd, ROLLUP_SCOPE_COLUMNS } from './revenue.ts';

export const PORTFOLIO_DIMENSIONS = ['product', 'branch', 'segment', 'risk_class', 'term_band', 'size_band'] as const;
export type PortfolioDimension = (typeof PORTFOLIO_DIMENSIONS)[number];

/** Term bands: lower bounds of the number of repayments (1 = bullet; 2–6; 7–12; 13–24; 25 and more). */
export const TERM_BANDS = [1, 2, 7, 13, 25] as const;
/** Size bands: lower bounds of the loan's principal in major units of the currency. */
export const SIZE_BANDS = [0, 500, 2_000, 5_000, 20_000] as const;

/** The band key (its lower bound, as text) of a value, as a SQL CASE over trusted constants. */
function bandSql(value: string, bounds: readonly (number | bigint)[]): string {
  const cases = [...bounds]
    .reverse()
    .map((b) => `when ${value} >= ${b} then '${b}'`)
    .join(' ');
  return `(case ${cases} else null end)`;
}

/** The per-loan SELECT → the rollup's groups: one row per dimension × key × scope columns. */
function groupsSql(base: string): string {
  return `select b.currency, d.dimension, d.key, b.customer_branch_id, b.customer_officer_id, b.officer_id,
                 count(*)::int as loans, sum(b.principal_outstanding)::int8 as principal_outstanding
            from (${base}) b
            cross join lateral (values ('product', b.product_id::text), ('branch', b.customer_branch_id::text),
                                       ('segment', b.segment), ('risk_class', b.risk_class),
                                       ('term_band', b.term_band), ('size_band', b.size_band)) as d(dimension, key)
           group by 1, 2, 3, 4, 5, 6`;
}

function bandColumns(currency: string): string {
  return `${liveKeySql('term_band', currency)} as term_band, ${liveKeySql('size_band', currency)} as size_band`;
}

/** The loan's scope columns (the loans list's). */
const LOAN_SCOPE_COLUMNS = ['l.customer_branch_id', 'l.customer_officer_id', 'l.officer_id'] as const;

/** The live month's key of one dimension over loans `l` (and customers `c` for segment and risk class). */
function liveKeySql(dimension: PortfolioDimension, currency: string): string {
  switch (dimension) {
    case 'product':
      return 'l.product_id::text';
    case 'branch':
      return 'l.customer_branch_id::text';
    case 'segment':
      return 'c.segment';
    case 'risk_class':
      return 'c.risk_class';
    case 'term_band':
      return bandSql('l.number_of_repayments', TERM_BANDS);
    case 'size_band':
      return bandSql(
        'l.principal',
        SIZE_BANDS.map((b) => BigInt(b) * 10n ** BigInt(currencyDigits(currency))),
      );
  }
}

async function tenantCurrency(tx: Tx, tenantId: string): Promise<string> {
  const rows = await tx.query<{ currency: string }>(`select currency from tenants where id = $1`, [tenantId]);
  return rows[0]?.currency ?? 'EUR';
}

/** The month-end writer of analytics_portfolio_months: the month's snapshots with outstanding principal. */
export const PORTFOLIO_WRITER: MonthEndWriter = {
  name: 'portfolio_months',
  async write(tx, tenantId, monthEnd) {
    await tx.query(`delete from analytics_portfolio_months where tenant_id = $1 and month_end = $2::date`, [
      tenantId,
      monthEnd,
    ]);
    const currency = await tenantCurrency(tx, tenantId);
    const base = `select s.currency, l.product_id, l.customer_branch_id, l.customer_officer_id, l.officer_id,
                         c.segment, coalesce(h.risk_class, c.risk_class) as risk_class, ${bandColumns(currency)},
                         s.principal_outstanding
                    from loan_month_end_snapshots s
                    join loans l on l.tenant_id = s.tenant_id and l.id = s.loan_id
                    join customers c on c.tenant_id = l.tenant_id and c.id = l.customer_id
                    left join lateral (
                      select x.risk_class from customer_risk_class_history x
                       where x.tenant_id = c.tenant_id and x.customer_id = c.id and x.changed_at < ($2::date + 1)
                       order by x.changed_at desc limit 1) h on true
                   where s.tenant_id = $1 and s.month_end = $2::date and s.principal_outstanding > 0`;
    const rows = await tx.query<{ n: number }>(
      `with ins as (
         insert into analytics_portfolio_months (tenant_id, month_end, currency, dimension, key,
           customer_branch_id, customer_officer_id, officer_id, loans, principal_outstanding)
         select $1, $2::date, g.* from (${groupsSql(base)}) g
         returning 1)
       select count(*)::int as n from ins`,
      [tenantId, monthEnd],
    );
    return rows[0]?.n ?? 0;
  },
};

export type PortfolioCell = { loans: number; principal: bigint };
export type PortfolioGroup = { key: string | null; name: string | null; months: PortfolioCell[] };
export type Portfolio = {
  currency: string;
  dimension: PortfolioDimension;
  /** YYYY-MM, oldest first; each is its month end, or the business date for the live month. */
  months: string[];
  /** The date each column stands for (month end, or the business date for the month not closed yet). */
  asOf: string[];
  /** Whether the column was read from the loans directly (the business date's month). */
  live: boolean[];
  totals: PortfolioCell[];
  groups: PortfolioGroup[];
};

type Raw = { month_end: string; key: string | null; name: string | null; loans: number; principal: string };

export async function loadPortfolio(
  tx: Tx,
  subject: ScopeSubject,
  scope: Scope | null,
  options: {
    tenantId: string;
    currency: string;
    businessDate: string;
    dimension: PortfolioDimension;
    from: string;
    to: string;
  },
): Promise<Portfolio> {
  await noJit(tx);
  const nodes = await resolveScopeNodes(tx, subject, scope);
  const months = monthsBetween(options.from, options.to);
  const closed = await lastClosedMonthEnd(tx, options.tenantId);
  const liveMonth = monthOf(options.businessDate);
  // The business date's month is live when its month end is not closed yet and it is in the period.
  const live = (!closed || closed < monthEndOf(liveMonth)) && months.includes(liveMonth);
  const nameSql =
    options.dimension === 'product'
      ? `(select p.name from loan_products p where p.tenant_id = $1 and p.id::text = g.key)`
      : options.dimension === 'branch'
        ? `(select h.name from hierarchy_nodes h where h.tenant_id = $1 and h.id::text = g.key)`
        : 'null::text';
  const scopeSql = scopeCondition(ROLLUP_SCOPE_COLUMNS, nodes, '$5');
  // The business date's composition from the loans' own principal outstanding (0901, kept exact by the
  // loan summary trigger: principal due − paid − written off, which a met installment no longer owes),
  // only the board's dimension, the viewer's scope applied before grouping.
  const customer = options.dimension === 'segment' || options.dimension === 'risk_class';
  const liveKey = liveKeySql(options.dimension, options.currency);
  const liveGroups = `select l.currency, ${liveKey} as key, count(*)::int as loans,
                             sum(l.principal_outstanding)::int8 as principal_outstanding
                        from loans l
                        ${customer ? 'join customers c on c.tenant_id = l.tenant_id and c.id = l.customer_id' : ''}
                       where $7::boolean and l.tenant_id = $1 and l.status = 'ACTIVE' and l.principal_outstanding > 0
                         and l.currency = $6 and ${scopeCondition(LOAN_SCOPE_COLUMNS, nodes, '$5')}
                       group by 1, 2`;
  // $1 tenant, $2 first month end, $3 last month end, $4 dimension, $5 nodes, $6 currency, $7 live?, $8 business date.
  const raw = await tx.query<Raw>(
    `with parts as (
       select to_char(r.month_end, 'YYYY-MM-DD') as month_end, r.key, r.loans, r.principal_outstanding
         from analytics_portfolio_months r
        where r.tenant_id = $1 and r.dimension = $4 and r.month_end between $2::date and $3::date
          and r.currency = $6 and ${scopeSql}
       union all
       select to_char($8::date, 'YYYY-MM-DD'), r.key, r.loans, r.principal_outstanding
         from (${liveGroups}) r),
     g as (select month_end, key, sum(loans)::int as loans, sum(principal_outstanding)::text as principal
             from parts group by 1, 2)
     select g.month_end, g.key, ${nameSql} as name, g.loans, g.principal from g`,
    [
      options.tenantId,
      monthEndOf(options.from),
      monthEndOf(options.to),
      options.dimension,
      nodes ?? [],
      options.currency,
      live,
      options.businessDate,
    ],
  );
  const index = new Map(months.map((m, i) => [m, i]));
  const zero = (): PortfolioCell => ({ loans: 0, principal: 0n });
  const groups = new Map<string, PortfolioGroup>();
  const totals = months.map(zero);
  for (const r of raw) {
    const i = index.get(monthOf(r.month_end));
    if (i === undefined) continue;
    // A closed month's rollup and the live month never share a column (live only when not closed).
    const id = r.key ?? '';
    let group = groups.get(id);
    if (!group) {
      group = { key: r.key, name: r.name, months: months.map(zero) };
      groups.set(id, group);
    }
    const principal = BigInt(r.principal);
    group.months[i]!.loans += r.loans;
    group.months[i]!.principal += principal;
    totals[i]!.loans += r.loans;
    totals[i]!.principal += principal;
  }
  const order = (g: PortfolioGroup) =>
    options.dimension === 'term_band' || options.dimension === 'size_band' ? Number(g.key ?? 1e15) : 0;
  const sorted = [...groups.values()].sort(
    (a, b) =>
      order(a) - order(b) ||
      (a.key === null ? 1 : 0) - (b.key === null ? 1 : 0) ||
      (a.name ?? a.key ?? '').localeCompare(b.name ?? b.key ?? ''),
  );
  return {
    currency: options.currency,
    dimension: options.dimension,
    months,
    asOf: months.map((m) => (live && m === liveMonth ? options.businessDate : monthEndOf(m))),
    live: months.map((m) => live && m === liveMonth),
    totals,
    groups: sorted,
  };
}

/** The label of a band key: "25+", "2–6"; size bands in major units formatted by the caller. */
export function bandRange(dimension: 'term_band' | 'size_band', key: string): { from: number; to: number | null } {
  const bounds: readonly number[] = dimension === 'term_band' ? TERM_BANDS : SIZE_BANDS;
  const i = bounds.indexOf(Number(key));
  const next = bounds[i + 1];
  return { from: Number(key), to: next === undefined ? null : dimension === 'term_band' ? next - 1 : next };
}
