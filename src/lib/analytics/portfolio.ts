/**
 * Portfolio and risk figures (src/lib/analytics/README.md, "Portfolio and risk"): the Overview, the
 * risk boards by product and by branch and `GET /v1/analytics/portfolio|overview|risk/*`.
 *  - At the business date, from the loans themselves (principal outstanding and the oldest unpaid
 *    due date kept on the row by the database, migrations 0370/0901) in one statement: every part a
 *    range read of an index.
 *  - At a month end, and every trend, from the month-end rollup `analytics_month_facts` (0900).
 * Scope: the viewer's node set (data permissions ∩ `scope`) on the loans' scope columns, the same
 * test as the loans list, so a figure and the list its link opens count the same loans.
 * Money: one currency at a time (the tenant's by default); never added across currencies.
 */
import type { Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { boardHref, LOAN_SCOPE_COLUMNS, scopeCondition } from '../boards/overview.ts';
import { noJit } from '../lists/query.ts';
import { addDays, addMonths, isValidDate } from '../schedule/dates.ts';
import { fromMinor, toDecimalString } from '../money/money.ts';
import { tenantMoneyDay } from '../tenancy/tenant.ts';
import { formatScope, parseScope, resolveScopeNodes, type Scope, type ScopeSubject } from '../tenancy/scope.ts';
import { annualisedYield, PAR_DAYS, parMinBand, parRate, parThreshold, type ParDays } from './portfolio-math.ts';

export type Grouping = 'all' | 'product' | 'branch';

export type ParFigure = { loans: number; amount: bigint; rate: number | null };

/** The measures of a portfolio (or of one product's or branch's part of it) at one date. */
export type Figures = {
  activeLoans: number;
  outstandingPrincipal: bigint;
  outstandingTotal: bigint;
  par: Record<ParDays, ParFigure>;
  /** In the month of the date: from its 1st to the date (the whole month at a month end). */
  disbursed: { count: number; amount: bigint };
  writtenOff: { count: number; principal: bigint };
  /** Repayments received in the month (their amounts, reversed ones excluded). */
  collected: bigint;
  /** Interest, fees and penalties collected in the month: month ends only (null at the business date). */
  income: bigint | null;
};

/** A month of a trend: the figures at its month end (and in the month). */
export type MonthFigures = Figures & { monthEnd: string; month: string };

/** What the date parameter names: the business date (current figures) or a closed month end (the facts). */
export type PortfolioDate = { date: string; isMonthEnd: boolean };

export const FACT_SCOPE_COLUMNS = ['f.customer_branch_id', 'f.customer_officer_id', 'f.officer_id'] as const;

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;
/** The longest trend a board draws (months). */
export const MAX_TREND_MONTHS = 60;
/** The yield's window: the 12 month ends up to the date's (or the last before the business date). */
export const YIELD_MONTHS = 12;

export function monthEndOf(month: string): string {
  return addDays(addMonths(`${month}-01`, 1), -1);
}
function isMonthEnd(date: string): boolean {
  return monthEndOf(date.slice(0, 7)) === date;
}

/**
 * The rule of `date`: absent → the business date; else the business date itself, or a month end
 * before it that the daily close has snapshotted. Anything else is a 400 naming `date`.
 */
export async function resolvePortfolioDate(tx: Tx, raw: string | null, businessDate: string): Promise<PortfolioDate> {
  if (raw === null || raw === '' || raw === businessDate) return { date: businessDate, isMonthEnd: false };
  const rule = `date must be the business date (${businessDate}) or a month end before it that has month-end snapshots (YYYY-MM-DD, the last day of a closed month)`;
  if (!isValidDate(raw) || !isMonthEnd(raw) || raw >= businessDate)
    throw new AppError('BAD_REQUEST', rule, { field: 'date' });
  const [row] = await tx.query<{ ok: boolean }>(
    `select exists (select 1 from loan_month_end_snapshots where month_end = $1::date) as ok`,
    [raw],
  );
  if (!row?.ok) throw new AppError('BAD_REQUEST', rule, { field: 'date' });
  return { date: raw, isMonthEnd: true };
}

/** The trend's months: `from`/`to` as YYYY-MM (to defaults to the last closed month, from to 11 months before). */
export function resolveMonths(
  rawFrom: string | null,
  rawTo: string | null,
  at: PortfolioDate,
): { from: string; to: string; months: string[] } {
  const lastClosed = at.isMonthEnd ? at.date.slice(0, 7) : addMonths(`${at.date.slice(0, 7)}-01`, -1).slice(0, 7);
  for (const [field, v] of [
    ['from', rawFrom],
    ['to', rawTo],
  ] as const) {
    if (v && !MONTH.test(v)) throw new AppError('BAD_REQUEST', `${field} must be a month YYYY-MM`, { field });
  }
  const to = rawTo || lastClosed;
  const from = rawFrom || addMonths(`${to}-01`, -11).slice(0, 7);
  if (from > to) throw new AppError('BAD_REQUEST', 'from must not be after to', { field: 'from' });
  const months: string[] = [];
  for (let m = from; m <= to; m = addMonths(`${m}-01`, 1).slice(0, 7)) {
    months.push(m);
    if (months.length > MAX_TREND_MONTHS)
      throw new AppError('BAD_REQUEST', `from and to may span at most ${MAX_TREND_MONTHS} months`, { field: 'from' });
  }
  return { from, to, months };
}

/** One row of either source, by group key. */
type FigureRow = {
  key: string;
  month_end?: string;
  active: number;
  principal: bigint;
  total: bigint;
  par1_n: number;
  par1: bigint;
  par30_n: number;
  par30: bigint;
  par60_n: number;
  par60: bigint;
  par90_n: number;
  par90: bigint;
  disbursed_n: number;
  disbursed: bigint;
  written_off_n: number;
  written_off: bigint;
  collected: bigint;
  income: bigint | null;
};

const ZERO_ROW: Omit<FigureRow, 'key'> = {
  active: 0,
  principal: 0n,
  total: 0n,
  par1_n: 0,
  par1: 0n,
  par30_n: 0,
  par30: 0n,
  par60_n: 0,
  par60: 0n,
  par90_n: 0,
  par90: 0n,
  disbursed_n: 0,
  disbursed: 0n,
  written_off_n: 0,
  written_off: 0n,
  collected: 0n,
  income: null,
};

function figuresOf(row: Omit<FigureRow, 'key'>): Figures {
  const principal = BigInt(row.principal);
  const par = (n: number, amount: bigint): ParFigure => ({
    loans: n,
    amount: BigInt(amount),
    rate: parRate(BigInt(amount), principal),
  });
  return {
    activeLoans: row.active,
    outstandingPrincipal: principal,
    outstandingTotal: BigInt(row.total),
    par: {
      1: par(row.par1_n, row.par1),
      30: par(row.par30_n, row.par30),
      60: par(row.par60_n, row.par60),
      90: par(row.par90_n, row.par90),
    },
    disbursed: { count: row.disbursed_n, amount: BigInt(row.disbursed) },
    writtenOff: { count: row.written_off_n, principal: BigInt(row.written_off) },
    collected: BigInt(row.collected),
    income: row.income === null ? null : BigInt(row.income),
  };
}

export function emptyFigures(): Figures {
  return figuresOf(ZERO_ROW);
}

/** Adds figures of groups (for a table's total line); rates recomputed from the sums. */
export function addFigures(list: readonly Figures[]): Figures {
  const row = { ...ZERO_ROW, income: list.some((f) => f.income !== null) ? 0n : null };
  for (const f of list) {
    row.active += f.activeLoans;
    row.principal += f.outstandingPrincipal;
    row.total += f.outstandingTotal;
    row.par1_n += f.par[1].loans;
    row.par1 += f.par[1].amount;
    row.par30_n += f.par[30].loans;
    row.par30 += f.par[30].amount;
    row.par60_n += f.par[60].loans;
    row.par60 += f.par[60].amount;
    row.par90_n += f.par[90].loans;
    row.par90 += f.par[90].amount;
    row.disbursed_n += f.disbursed.count;
    row.disbursed += f.disbursed.amount;
    row.written_off_n += f.writtenOff.count;
    row.written_off += f.writtenOff.principal;
    row.collected += f.collected;
    if (row.income !== null && f.income !== null) row.income += f.income;
  }
  return figuresOf(row);
}

function loanKey(group: Grouping): string {
  return group === 'product'
    ? 'l.product_id::text'
    : group === 'branch'
      ? `coalesce(l.customer_branch_id::text, '')`
      : `''`;
}
function factKey(group: Grouping): string {
  return group === 'product'
    ? 'f.product_id::text'
    : group === 'branch'
      ? `coalesce(f.customer_branch_id::text, '')`
      : `''`;
}

/**
 * The figures at the business date, per group, in one statement. Days past due = business date −
 * oldest unpaid due date (what the loans list shows and filters); PARn adds the principal outstanding
 * of active loans more than n days past due.
 */
async function currentRows(
  tx: Tx,
  nodes: string[] | null,
  date: string,
  currency: string,
  group: Grouping,
): Promise<FigureRow[]> {
  const scope = scopeCondition(LOAN_SCOPE_COLUMNS, nodes, '$4');
  const key = loanKey(group);
  // PARn: more than n days past due (PAR1: more than 0), as the bands of the facts. Each active loan
  // is put in its band once (one test per loan, three sums), then PARn adds the bands from n's up.
  const late = (days: ParDays) => `l.oldest_unpaid_due_date < $1::date - ${parThreshold(days)}`;
  const band = `case ${[...PAR_DAYS]
    .reverse()
    .map((d) => `when ${late(d)} then ${parMinBand(d)}`)
    .join(' ')} else 0 end`;
  const parCols = PAR_DAYS.map(
    (d) => `coalesce(sum(b.n) filter (where b.band >= ${parMinBand(d)}), 0)::int as par${d}_n,
            coalesce(sum(b.p) filter (where b.band >= ${parMinBand(d)}), 0)::int8 as par${d}`,
  ).join(',\n');
  // Repayments of the month, not reversed, read from their covering index alone (migration 0905): the
  // reversals are looked up once in a hash (NOT IN over non-null ids is NOT EXISTS), not once per
  // repayment. A repayment's currency is its loan's (copied when written), so the whole portfolio of
  // an unrestricted viewer needs no loan at all; grouped or scoped, the repayments are added up per
  // loan first and each loan's columns read once by id (0905's covering index).
  const repayments = `select t.tenant_id, t.loan_id, sum(t.amount) as amount from loan_transactions t
        where t.type = 'REPAYMENT' and t.transaction_date between $2::date and $1::date and t.currency = $3
          and t.id not in (select r.reverses_id from loan_transactions r where r.reverses_id is not null)
        group by t.tenant_id, t.loan_id`;
  const collected =
    group === 'all' && nodes === null
      ? `select ''::text as key, coalesce(sum(t.amount), 0)::int8 as collected from loan_transactions t
          where t.type = 'REPAYMENT' and t.transaction_date between $2::date and $1::date and t.currency = $3
            and t.id not in (select r.reverses_id from loan_transactions r where r.reverses_id is not null)
            and ${scope} having count(*) > 0`
      : `select ${key} as key, coalesce(sum(t.amount), 0)::int8 as collected
           from (${repayments}) t join loans l on l.tenant_id = t.tenant_id and l.id = t.loan_id
          where ${scope}
          group by 1`;
  // $1 date, $2 month start, $3 currency, $4 scope nodes.
  return tx.query<FigureRow>(
    `with a as (
       select b.key, sum(b.n)::int as active, sum(b.p)::int8 as principal, sum(b.o)::int8 as total, ${parCols}
         from (select ${key} as key, ${band} as band, count(*) as n, sum(l.principal_outstanding) as p,
                      sum(l.outstanding) as o
                 from loans l where l.status = 'ACTIVE' and l.currency = $3 and ${scope} group by 1, 2) b
        group by b.key
     ), d as (
       select ${key} as key, count(*)::int as disbursed_n, sum(l.principal)::int8 as disbursed
         from loans l where l.disbursed_on between $2::date and $1::date and l.currency = $3 and ${scope} group by 1
     ), w as (
       select ${key} as key, count(*)::int as written_off_n, coalesce(sum(x.p), 0)::int8 as written_off
         from loans l
         left join lateral (select sum(t.principal_portion) as p from loan_transactions t
                             where t.tenant_id = l.tenant_id and t.loan_id = l.id and t.type = 'WRITE_OFF'
                               and not exists (select 1 from loan_transactions r where r.tenant_id = t.tenant_id and r.reverses_id = t.id)) x on true
        where l.status = 'CLOSED_WRITTEN_OFF' and l.written_off_on between $2::date and $1::date and l.currency = $3 and ${scope}
        group by 1
     ), c as (${collected}
     ), k as (select key from a union select key from d union select key from w union select key from c)
     select k.key, coalesce(a.active, 0) as active, coalesce(a.principal, 0)::int8 as principal, coalesce(a.total, 0)::int8 as total,
            ${PAR_DAYS.map((d) => `coalesce(a.par${d}_n, 0) as par${d}_n, coalesce(a.par${d}, 0)::int8 as par${d}`).join(', ')},
            coalesce(d.disbursed_n, 0) as disbursed_n, coalesce(d.disbursed, 0)::int8 as disbursed,
            coalesce(w.written_off_n, 0) as written_off_n, coalesce(w.written_off, 0)::int8 as written_off,
            coalesce(c.collected, 0)::int8 as collected, null::int8 as income
       from k left join a on a.key = k.key left join d on d.key = k.key left join w on w.key = k.key left join c on c.key = k.key`,
    [date, `${date.slice(0, 8)}01`, currency, nodes ?? []],
  );
}

/** The month-end facts between two month ends, per month end and group. */
async function factRows(
  tx: Tx,
  nodes: string[] | null,
  fromMonthEnd: string,
  toMonthEnd: string,
  currency: string,
  group: Grouping,
): Promise<FigureRow[]> {
  const parCols = PAR_DAYS.map(
    (d) => `coalesce(sum(f.active_loans) filter (where f.dpd_band >= ${parMinBand(d)}), 0)::int as par${d}_n,
            coalesce(sum(f.principal_outstanding) filter (where f.dpd_band >= ${parMinBand(d)}), 0)::int8 as par${d}`,
  ).join(',\n');
  return tx.query<FigureRow>(
    `select to_char(f.month_end, 'YYYY-MM-DD') as month_end, ${factKey(group)} as key,
            sum(f.active_loans)::int as active, sum(f.principal_outstanding)::int8 as principal,
            sum(f.total_outstanding)::int8 as total, ${parCols},
            sum(f.disbursed_count)::int as disbursed_n, sum(f.disbursed_amount)::int8 as disbursed,
            sum(f.written_off_count)::int as written_off_n, sum(f.written_off_principal)::int8 as written_off,
            sum(f.collected_total)::int8 as collected,
            sum(f.collected_interest + f.collected_fees + f.collected_penalties)::int8 as income
       from analytics_month_facts f
      where f.month_end between $1::date and $2::date and f.currency = $3 and ${scopeCondition(FACT_SCOPE_COLUMNS, nodes, '$4')}
      group by 1, 2
      order by 1, 2`,
    [fromMonthEnd, toMonthEnd, currency, nodes ?? []],
  );
}

/** A product or branch the figures are grouped by ('' = the whole portfolio, or loans of no branch). */
export type Group = { key: string; name: string | null };

async function groupNames(tx: Tx, group: Grouping, keys: string[]): Promise<Map<string, string>> {
  const ids = keys.filter((k) => k !== '');
  if (group === 'all' || ids.length === 0) return new Map();
  const rows = await tx.query<{ id: string; name: string }>(
    group === 'product'
      ? `select id::text as id, name from loan_products where id = any($1::uuid[])`
      : `select id::text as id, name from hierarchy_nodes where id = any($1::uuid[])`,
    [ids],
  );
  return new Map(rows.map((r) => [r.id, r.name]));
}

export type PortfolioPart = Group & {
  /** Figures at the date. */
  figures: Figures;
  /** Annualised yield over the YIELD_MONTHS month ends up to the date's (see portfolio-math.ts). */
  yield: number | null;
  /** Month by month over the trend's months (a month without facts has zero figures). */
  months: MonthFigures[];
};

export type PortfolioBoard = {
  date: string;
  isMonthEnd: boolean;
  currency: string;
  from: string;
  to: string;
  months: string[];
  /** The yield's window (month ends). */
  yieldFrom: string;
  yieldTo: string;
  /** The whole scope (group 'all'), and the parts when grouped (sorted by outstanding, largest first). */
  total: PortfolioPart;
  parts: PortfolioPart[];
};

/**
 * Everything a portfolio board shows: the figures at the date (total and per group), the yield and
 * the month-by-month trend. Three statements whatever the number of groups.
 */
export async function loadPortfolioBoard(
  tx: Tx,
  subject: ScopeSubject,
  scope: Scope | null,
  options: { at: PortfolioDate; currency: string; group: Grouping; from?: string | null; to?: string | null },
): Promise<PortfolioBoard> {
  await noJit(tx);
  const { at, currency, group } = options;
  const nodes = await resolveScopeNodes(tx, subject, scope);
  const { from, to, months } = resolveMonths(options.from ?? null, options.to ?? null, at);
  const yieldTo = at.isMonthEnd ? at.date : addDays(`${at.date.slice(0, 8)}01`, -1);
  const yieldFrom = monthEndOf(addMonths(`${yieldTo.slice(0, 7)}-01`, -(YIELD_MONTHS - 1)).slice(0, 7));
  const factsFrom = monthEndOf(from) < yieldFrom ? monthEndOf(from) : yieldFrom;
  const factsTo = monthEndOf(to) > yieldTo ? monthEndOf(to) : yieldTo;

  const facts = await factRows(tx, nodes, factsFrom, factsTo, currency, group);
  const atRows = at.isMonthEnd
    ? facts.filter((r) => r.month_end === at.date)
    : await currentRows(tx, nodes, at.date, currency, group);

  const keys = new Set<string>([...atRows.map((r) => r.key), ...facts.map((r) => r.key)]);
  const names = await groupNames(tx, group, [...keys]);
  const factIndex = new Map(facts.map((r) => [`${r.month_end}|${r.key}`, r]));
  const monthEnds = months.map(monthEndOf);
  const yieldMonthEnds = [...new Set(facts.map((r) => r.month_end!))].filter((m) => m >= yieldFrom && m <= yieldTo);

  const partOf = (key: string): PortfolioPart => {
    const atRow = atRows.find((r) => r.key === key);
    const monthly = monthEnds.map((monthEnd, i) => {
      const row = factIndex.get(`${monthEnd}|${key}`);
      return { ...figuresOf(row ?? { ...ZERO_ROW, income: 0n }), monthEnd, month: months[i] };
    });
    const window = yieldMonthEnds.map((m) => factIndex.get(`${m}|${key}`));
    const income = window.reduce((s, r) => s + (r?.income ? BigInt(r.income) : 0n), 0n);
    return {
      key,
      name: key === '' ? null : (names.get(key) ?? null),
      figures: atRow ? figuresOf(atRow) : emptyFigures(),
      yield: annualisedYield(
        income,
        window.map((r) => (r ? BigInt(r.principal) : 0n)),
      ),
      months: monthly,
    };
  };

  let total: PortfolioPart;
  let parts: PortfolioPart[] = [];
  if (group === 'all') total = partOf('');
  else {
    parts = [...keys]
      .map(partOf)
      .sort((a, b) =>
        a.figures.outstandingPrincipal === b.figures.outstandingPrincipal
          ? (a.name ?? '').localeCompare(b.name ?? '')
          : a.figures.outstandingPrincipal > b.figures.outstandingPrincipal
            ? -1
            : 1,
      );
    total = totalPart(parts, monthEnds, months, facts, yieldMonthEnds);
  }
  return { date: at.date, isMonthEnd: at.isMonthEnd, currency, from, to, months, yieldFrom, yieldTo, total, parts };
}

/** The sum of the parts (the scope's total); its yield from the whole's income and month-end balances. */
function totalPart(
  parts: PortfolioPart[],
  monthEnds: string[],
  months: string[],
  facts: FigureRow[],
  yieldMonthEnds: string[],
): PortfolioPart {
  const figures = parts.length ? addFigures(parts.map((p) => p.figures)) : emptyFigures();
  const monthly = monthEnds.map((monthEnd, i) => ({
    ...(parts.length ? addFigures(parts.map((p) => p.months[i])) : { ...emptyFigures(), income: 0n }),
    monthEnd,
    month: months[i],
  }));
  let income = 0n;
  const balances = new Map<string, bigint>(yieldMonthEnds.map((m) => [m, 0n]));
  for (const r of facts) {
    const balance = balances.get(r.month_end!);
    if (balance === undefined) continue;
    income += r.income === null ? 0n : BigInt(r.income);
    balances.set(r.month_end!, balance + BigInt(r.principal));
  }
  return { key: '', name: null, figures, yield: annualisedYield(income, [...balances.values()]), months: monthly };
}

/** Drill-down links of the figures: the loans list (same scope, same rule) behind each one. */
export function figureLinks(scope: Scope | null, extra: Record<string, string> = {}) {
  const loans = (params: Record<string, string>) => boardHref('/loans/loans', { ...params, ...extra }, scope);
  return {
    active: loans({ tab: 'all_outstanding' }),
    par: {
      1: loans({ tab: 'overdue' }),
      30: loans({ tab: 'all_outstanding', 'f.days_past_due': '31..' }),
      60: loans({ tab: 'all_outstanding', 'f.days_past_due': '61..' }),
      90: loans({ tab: 'all_outstanding', 'f.days_past_due': '91..' }),
    } as Record<ParDays, string>,
    disbursed: loans({ tab: 'disbursed_this_month' }),
    writtenOff: loans({ tab: 'closed_this_month', 'f.status': 'CLOSED_WRITTEN_OFF' }),
    collected: boardHref('/loans/performance', {}, scope),
    delinquency: boardHref('/analytics/risk/delinquency', {}, scope),
    revenue: boardHref('/analytics/performance/monthly-revenue', {}, scope),
  };
}

/** The JSON of figures: money as decimal strings in the board's currency, rates as fractions. */
export function figuresJson(f: Figures, currency: string) {
  const money = (minor: bigint) => toDecimalString(fromMinor(minor, currency));
  return {
    activeLoans: f.activeLoans,
    outstandingPrincipal: money(f.outstandingPrincipal),
    outstandingTotal: money(f.outstandingTotal),
    ...Object.fromEntries(
      PAR_DAYS.flatMap((d) => [
        [`par${d}`, f.par[d].rate],
        [`par${d}Amount`, money(f.par[d].amount)],
        [`par${d}Loans`, f.par[d].loans],
      ]),
    ),
    disbursedCount: f.disbursed.count,
    disbursedAmount: money(f.disbursed.amount),
    writeOffCount: f.writtenOff.count,
    writeOffPrincipal: money(f.writtenOff.principal),
    collected: money(f.collected),
    income: f.income === null ? null : money(f.income),
  };
}

function monthsJson(months: MonthFigures[], currency: string) {
  return months.map((m) => ({ month: m.month, monthEnd: m.monthEnd, ...figuresJson(m, currency) }));
}

/** GET /v1/analytics/portfolio: the figures at the date. */
export function portfolioJson(board: PortfolioBoard, scope: Scope | null) {
  return {
    date: board.date,
    isMonthEnd: board.isMonthEnd,
    currency: board.currency,
    scope: scope ? formatScope(scope) : null,
    ...figuresJson(board.total.figures, board.currency),
    yield: board.total.yield,
    yieldFrom: board.yieldFrom,
    yieldTo: board.yieldTo,
  };
}

/** GET /v1/analytics/overview: the figures at the date and the trend by month. */
export function overviewJson(board: PortfolioBoard, scope: Scope | null) {
  return {
    ...portfolioJson(board, scope),
    from: board.from,
    to: board.to,
    months: monthsJson(board.total.months, board.currency),
  };
}

/** GET /v1/analytics/risk/product|branch: per product or branch, the figures at the date and by month. */
export function riskJson(board: PortfolioBoard, scope: Scope | null) {
  return {
    date: board.date,
    isMonthEnd: board.isMonthEnd,
    currency: board.currency,
    scope: scope ? formatScope(scope) : null,
    from: board.from,
    to: board.to,
    yieldFrom: board.yieldFrom,
    yieldTo: board.yieldTo,
    total: { ...figuresJson(board.total.figures, board.currency), yield: board.total.yield },
    groups: board.parts.map((p) => ({
      id: p.key === '' ? null : p.key,
      name: p.name,
      ...figuresJson(p.figures, board.currency),
      yield: p.yield,
      months: monthsJson(p.months, board.currency),
    })),
  };
}

/**
 * One call for the pages and the endpoints: reads `date`, `scope`, `from`, `to`, `currency` from the
 * URL (each a 400 naming it when malformed) and loads the board for the viewer.
 */
export async function portfolioBoardFromUrl(
  tx: Tx,
  subject: ScopeSubject,
  params: URLSearchParams,
  context: { businessDate: string; currency: string; group: Grouping },
): Promise<{ board: PortfolioBoard; scope: Scope | null }> {
  const scope = parseScope(params.get('scope'));
  const currency = params.get('currency') || context.currency;
  if (!/^[A-Z]{3}$/.test(currency))
    throw new AppError('BAD_REQUEST', 'currency must be a three-letter code', { field: 'currency' });
  const at = await resolvePortfolioDate(tx, params.get('date'), context.businessDate);
  const board = await loadPortfolioBoard(tx, subject, scope, {
    at,
    currency,
    group: context.group,
    from: params.get('from'),
    to: params.get('to'),
  });
  return { board, scope };
}

/** The endpoints' answer for a board kind (GET /v1/analytics/portfolio|overview|risk/product|risk/branch). */
export async function portfolioEndpointBody(
  tx: Tx,
  subject: ScopeSubject & { tenantId: string },
  url: URL,
  kind: 'portfolio' | 'overview' | 'product' | 'branch',
): Promise<unknown> {
  const { currency, businessDate } = await tenantMoneyDay(tx, subject.tenantId);
  const group: Grouping = kind === 'product' || kind === 'branch' ? kind : 'all';
  const { board, scope } = await portfolioBoardFromUrl(tx, subject, url.searchParams, {
    businessDate,
    currency,
    group,
  });
  if (kind === 'portfolio') return portfolioJson(board, scope);
  if (kind === 'overview') return overviewJson(board, scope);
  return riskJson(board, scope);
}
