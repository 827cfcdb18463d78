/**
 * Delinquency transitions (/analytics/risk/delinquency): the roll-rate matrix between delinquency
 * buckets from one month end to the next, summed over the consecutive month-end pairs of a period.
 *
 * Rows: the loans open (ACTIVE or OVERPAID) at the start month end of a pair, by bucket of their
 * days past due in the snapshot: "current" (0 days) then the tenant's collection buckets
 * (collection_buckets, contiguous from day 1). Columns: the same buckets at the next month end, and
 * two exits: closed (repaid: any other end than written off) and written off (CLOSED_WRITTEN_OFF).
 * Counts are loans × pairs; amounts are the principal outstanding at the start month end. A row
 * therefore adds up to the loans in its bucket at the start month ends of the period.
 *
 * Rollup: `analytics_delinquency_transitions` (migration 0920), written by `delinquencyWriter` at each
 * month end for the pair (previous month end → this one), one row per cell × product × scope copy,
 * summed from the per-loan rows it stores first in `analytics_delinquency_moves` (migration 0925): a
 * cell's drill-down reads those, so it lists the loans the cell counted, with the scope copy of that
 * month end even after a customer moves branch. A month written with other bucket boundaries than the
 * tenant's current ones (or before 0925) is computed from the snapshots by the same statement instead,
 * for the matrix and the drill-down alike (until `npm run analytics:rebuild`).
 */
import type { Tx } from '../db/index.ts';
import type { MonthEndWriter } from './month-end.ts';
import { scopeCondition } from '../boards/overview.ts';
import { resolveScopeNodes, type Scope, type ScopeSubject } from '../tenancy/scope.ts';
import { AppError } from '../errors/app-error.ts';

export const CURRENT = 0;
export const CLOSED = -1;
export const WRITTEN_OFF = -2;

export type Bucket = { code: number; key: string; name: string | null; minDays: number; maxDays: number | null };

/** URL key of a bucket code: 'current', the bucket's first day ('31'), 'closed', 'written_off'. */
export function bucketKey(code: number): string {
  if (code === CURRENT) return 'current';
  if (code === CLOSED) return 'closed';
  if (code === WRITTEN_OFF) return 'written_off';
  return String(code);
}

/** The rows of the matrix ('current' then the collection buckets) — codes are first days, 0 for current. */
export async function loadBuckets(tx: Tx): Promise<Bucket[]> {
  const rows = await tx.query<{ name: string; min_days: number; max_days: number | null }>(
    'select name, min_days, max_days from collection_buckets order by position',
  );
  return [
    { code: CURRENT, key: 'current', name: null, minDays: 0, maxDays: 0 },
    ...rows.map((r) => ({
      code: r.min_days,
      key: String(r.min_days),
      name: r.name,
      minDays: r.min_days,
      maxDays: r.max_days,
    })),
  ];
}

/** The SQL bucket code of a days-past-due expression, against the bucket first days in `mins` (a uuid-free int[] param). */
export const bucketOf = (pdd: string, mins: string) =>
  `(case when ${pdd} <= 0 then 0 else coalesce((select max(m) from unnest(${mins}::int[]) m where m <= ${pdd}), 0) end)`;

/**
 * One row per loan × pair whose END month end is in `$ends` (date[]), with bucket first days `$mins`
 * and the loan's scope copy as of the writing. Parameters: $1 ends, $2 mins.
 */
const MOVES_SELECT = `
  select s0.tenant_id, e.month_end, s0.loan_id, s0.month_end as from_month_end,
         ${bucketOf('s0.past_due_days', '$2')} as from_bucket,
         case when coalesce(s1.status, l.status) = 'CLOSED_WRITTEN_OFF' then ${WRITTEN_OFF}
              when s1.status in ('ACTIVE', 'OVERPAID') then ${bucketOf('s1.past_due_days', '$2')}
              when s1.status is null and l.status in ('ACTIVE', 'OVERPAID') then ${bucketOf('0', '$2')}
              else ${CLOSED} end as to_bucket,
         l.product_id, s0.currency, l.customer_branch_id, l.customer_officer_id, l.officer_id, l.account_no,
         s0.principal_outstanding as principal_start, s1.principal_outstanding as principal_end,
         s0.past_due_days as pdd_start, s1.past_due_days as pdd_end, coalesce(s1.status, l.status) as status_end
    from unnest($1::date[]) as e(month_end)
    join loan_month_end_snapshots s0
      on s0.month_end = (date_trunc('month', e.month_end) - interval '1 day')::date and s0.status in ('ACTIVE', 'OVERPAID')
    join loans l on l.tenant_id = s0.tenant_id and l.id = s0.loan_id
    left join loan_month_end_snapshots s1 on s1.tenant_id = s0.tenant_id and s1.loan_id = s0.loan_id and s1.month_end = e.month_end`;

/** The matrix cells of MOVES_SELECT: one row per pair × from × to × product × scope copy. */
const TRANSITIONS_SELECT = `
  select m.month_end, m.from_month_end, m.from_bucket, m.to_bucket, m.product_id, m.currency,
         m.customer_branch_id, m.customer_officer_id, m.officer_id, count(*)::int as loans, sum(m.principal_start)::int8 as principal
    from (${MOVES_SELECT}) m
   group by 1, 2, 3, 4, 5, 6, 7, 8, 9`;

async function bucketMins(tx: Tx): Promise<number[]> {
  const rows = await tx.query<{ min_days: number }>('select min_days from collection_buckets order by position');
  return rows.map((r) => r.min_days);
}

/**
 * The month-end writer: the pair (previous month end → `monthEnd`), delete then insert — the per-loan
 * moves (analytics_delinquency_moves, the drill-down) first, then the matrix cells summed from them, so a
 * cell and its drill-down count the same loans with the same scope copy.
 */
export const delinquencyWriter: MonthEndWriter = {
  name: 'delinquency_transitions',
  async write(tx, tenantId, monthEnd) {
    const mins = await bucketMins(tx);
    await tx.query('delete from analytics_delinquency_transitions where month_end = $1', [monthEnd]);
    await tx.query('delete from analytics_delinquency_moves where month_end = $1', [monthEnd]);
    await tx.query(
      `insert into analytics_delinquency_months (tenant_id, month_end, bucket_mins, with_moves) values ($1, $2, $3::int[], true)
       on conflict (tenant_id, month_end) do update set bucket_mins = excluded.bucket_mins, with_moves = true`,
      [tenantId, monthEnd, mins],
    );
    await tx.query(
      `insert into analytics_delinquency_moves (tenant_id, month_end, loan_id, from_month_end, from_bucket, to_bucket, product_id,
         currency, customer_branch_id, customer_officer_id, officer_id, account_no, principal_start, principal_end, pdd_start,
         pdd_end, status_end)
       select m.* from (${MOVES_SELECT}) m`,
      [[monthEnd], mins],
    );
    const rows = await tx.query(
      `insert into analytics_delinquency_transitions (tenant_id, month_end, from_month_end, from_bucket, to_bucket, product_id,
         currency, customer_branch_id, customer_officer_id, officer_id, loans, principal)
       select $2, month_end, from_month_end, from_bucket, to_bucket, product_id, currency, customer_branch_id,
              customer_officer_id, officer_id, count(*)::int, sum(principal_start)::int8
         from analytics_delinquency_moves where month_end = $1
        group by month_end, from_month_end, from_bucket, to_bucket, product_id, currency, customer_branch_id,
                 customer_officer_id, officer_id
       returning 1`,
      [monthEnd, tenantId],
    );
    return rows.length;
  },
};

export type MatrixFilters = {
  /** First day of the start month of the first pair (YYYY-MM-01) and of the end month of the last pair. */
  from: string;
  to: string;
  productId: string | null;
  branchId: string | null;
  currency: string;
};

export type Cell = { from: number; to: number; loans: number; principal: bigint };
export type MatrixRow = {
  from: Bucket;
  cells: (Cell & { countRate: number | null; amountRate: number | null })[];
  loans: number;
  principal: bigint;
};
export type Matrix = {
  buckets: Bucket[];
  /** Column codes: the buckets' codes then closed and written off. */
  columns: number[];
  rows: MatrixRow[];
  /** The pairs' end month ends (YYYY-MM-DD), oldest first. */
  monthEnds: string[];
  /** Per end month end: cells, for the roll-rate series. */
  byMonth: { monthEnd: string; cells: Cell[] }[];
  /** Months computed from the snapshots (bucket boundaries changed since the rollup was written). */
  liveMonths: string[];
};

/** YYYY-MM → first day; a bad value is a 400 naming the field. */
export function parseMonth(raw: string | null, field: string): string | null {
  if (raw === null || raw === '') return null;
  const m = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(raw);
  if (!m) throw new AppError('BAD_REQUEST', `${field} must be a month YYYY-MM`, { field });
  return `${raw}-01`;
}

/** The last day of the month of a YYYY-MM-DD date. */
export function monthEndOf(date: string): string {
  const [y, m] = date.split('-').map(Number) as [number, number];
  const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return `${date.slice(0, 7)}-${String(last).padStart(2, '0')}`;
}

/** The month ends after the first month up to the last (the pairs' ends), oldest first. */
export function pairEnds(from: string, to: string): string[] {
  const ends: string[] = [];
  let [y, m] = from.split('-').map(Number) as [number, number];
  const [ty, tm] = to.split('-').map(Number) as [number, number];
  for (;;) {
    m += 1;
    if (m > 12) {
      m = 1;
      y += 1;
    }
    if (y > ty || (y === ty && m > tm)) break;
    ends.push(monthEndOf(`${y}-${String(m).padStart(2, '0')}-01`));
  }
  return ends;
}

/** The default period: the last six pairs ending at the latest month end that has snapshots. */
export async function defaultPeriod(tx: Tx, months = 6): Promise<{ from: string; to: string } | null> {
  const [row] = await tx.query<{ last: string | null }>(
    `select to_char(max(month_end), 'YYYY-MM-DD') as last from loan_month_end_snapshots`,
  );
  if (!row?.last) return null;
  const [y, m] = row.last.split('-').map(Number) as [number, number];
  const start = new Date(Date.UTC(y, m - 1 - months, 1));
  return { from: start.toISOString().slice(0, 10), to: `${row.last.slice(0, 7)}-01` };
}

type Filters = {
  ends: string[];
  nodes: string[] | null;
  productId: string | null;
  branchId: string | null;
  currency: string;
};

/**
 * The viewer's scope and the filters on the scope copy of rollup or moves rows `alias`: $3 nodes,
 * $4 product, $5 branch, $6 currency.
 */
const filterWhere = (alias: string, nodes: string[] | null) =>
  `${scopeCondition([`${alias}.customer_branch_id`, `${alias}.customer_officer_id`, `${alias}.officer_id`], nodes, '$3')}
     and ($4::uuid is null or ${alias}.product_id = $4) and ($5::uuid is null or ${alias}.customer_branch_id = $5)
     and ${alias}.currency = $6`;

/** Rollup rows of the pairs ending in `ends` (and the live rows of `live`), grouped per month × cell. */
async function cellsByMonth(tx: Tx, f: Filters, live: string[], mins: number[]) {
  const rollupEnds = f.ends.filter((e) => !live.includes(e));
  const where = (alias: string) => filterWhere(alias, f.nodes);
  return tx.query<{ month_end: string; from_bucket: number; to_bucket: number; loans: number; principal: bigint }>(
    `select to_char(x.month_end, 'YYYY-MM-DD') as month_end, x.from_bucket, x.to_bucket, sum(x.loans)::int as loans,
            sum(x.principal)::int8 as principal
       from (select r.month_end, r.from_bucket, r.to_bucket, r.loans, r.principal
               from analytics_delinquency_transitions r where r.month_end = any($7::date[]) and ${where('r')}
             union all
             select t.month_end, t.from_bucket, t.to_bucket, t.loans, t.principal
               from (${TRANSITIONS_SELECT}) t where cardinality($1::date[]) > 0 and ${where('t')}) x
      group by 1, 2, 3 order by 1, 2, 3`,
    [live, mins, f.nodes ?? [], f.productId, f.branchId, f.currency, rollupEnds],
  );
}

/**
 * The month ends of `ends` whose rollup is missing, was written with other bucket boundaries, or has no
 * per-loan moves (written before migration 0925).
 */
async function staleMonths(tx: Tx, ends: string[], mins: number[]): Promise<string[]> {
  if (!ends.length) return [];
  const rows = await tx.query<{ month_end: string; bucket_mins: number[] }>(
    `select to_char(month_end, 'YYYY-MM-DD') as month_end, bucket_mins from analytics_delinquency_months
      where month_end = any($1::date[]) and with_moves`,
    [ends],
  );
  const written = new Map(rows.map((r) => [r.month_end, r.bucket_mins.join(',')]));
  return ends.filter((e) => written.get(e) !== mins.join(','));
}

/** The matrix for the viewer's scope over the period. */
export async function loadMatrix(
  tx: Tx,
  subject: ScopeSubject,
  scope: Scope | null,
  filters: MatrixFilters,
): Promise<Matrix> {
  const buckets = await loadBuckets(tx);
  const mins = buckets.filter((b) => b.code > 0).map((b) => b.code);
  const nodes = await resolveScopeNodes(tx, subject, scope);
  const ends = pairEnds(filters.from, filters.to);
  const live = await staleMonths(tx, ends, mins);
  const rows = await cellsByMonth(tx, { ends, nodes, ...filters }, live, mins);
  const columns = [...buckets.map((b) => b.code), CLOSED, WRITTEN_OFF];
  const sums = new Map<string, Cell>();
  const byMonth = new Map<string, Cell[]>(ends.map((e) => [e, []]));
  for (const r of rows) {
    const key = `${r.from_bucket}:${r.to_bucket}`;
    const cell = sums.get(key) ?? { from: r.from_bucket, to: r.to_bucket, loans: 0, principal: 0n };
    cell.loans += r.loans;
    cell.principal += BigInt(r.principal);
    sums.set(key, cell);
    byMonth
      .get(r.month_end)
      ?.push({ from: r.from_bucket, to: r.to_bucket, loans: r.loans, principal: BigInt(r.principal) });
  }
  const matrixRows = buckets.map((from) => {
    const cells = columns.map(
      (to) => sums.get(`${from.code}:${to}`) ?? { from: from.code, to, loans: 0, principal: 0n },
    );
    const loans = cells.reduce((n, c) => n + c.loans, 0);
    const principal = cells.reduce((n, c) => n + c.principal, 0n);
    return {
      from,
      loans,
      principal,
      cells: cells.map((c) => ({
        ...c,
        countRate: loans ? c.loans / loans : null,
        amountRate: principal ? Number((c.principal * 1_000_000n) / principal) / 1_000_000 : null,
      })),
    };
  });
  return {
    buckets,
    columns,
    rows: matrixRows,
    monthEnds: ends,
    byMonth: [...byMonth].map(([monthEnd, cells]) => ({ monthEnd, cells })),
    liveMonths: live,
  };
}

/** Parses `cell=<from>:<to>` against the buckets; 400 naming `cell` otherwise. */
export function parseCell(raw: string | null, buckets: Bucket[]): { from: number; to: number } | null {
  if (raw === null || raw === '') return null;
  const codeOf = (key: string, exits: boolean): number | undefined => {
    if (exits && key === 'closed') return CLOSED;
    if (exits && key === 'written_off') return WRITTEN_OFF;
    return buckets.find((b) => b.key === key)?.code;
  };
  const [a, b, ...rest] = raw.split(':');
  const from = a === undefined ? undefined : codeOf(a, false);
  const to = b === undefined ? undefined : codeOf(b, true);
  if (from === undefined || to === undefined || rest.length)
    throw new AppError('BAD_REQUEST', 'cell must be <from>:<to> with bucket keys', { field: 'cell' });
  return { from, to };
}

export type MovedLoan = {
  loanId: string;
  accountNo: string;
  customerName: string;
  fromMonthEnd: string;
  monthEnd: string;
  principalStart: bigint;
  principalEnd: bigint | null;
  pastDueDaysStart: number;
  pastDueDaysEnd: number | null;
  statusEnd: string;
};

/**
 * The loans behind one cell over the period (a loan moving the same way in two pairs is listed for
 * each pair, as the matrix counts it), newest pair first, then account number. From the per-loan moves
 * the month-end writer stored with the matrix cells (same loans, same scope copy), and from the
 * snapshots for the months the matrix computes live.
 */
export async function loadCellLoans(
  tx: Tx,
  subject: ScopeSubject,
  scope: Scope | null,
  filters: MatrixFilters,
  cell: { from: number; to: number },
  page: { limit: number; offset: number },
): Promise<{ total: number; items: MovedLoan[] }> {
  const mins = (await loadBuckets(tx)).filter((b) => b.code > 0).map((b) => b.code);
  const nodes = await resolveScopeNodes(tx, subject, scope);
  const ends = pairEnds(filters.from, filters.to);
  const live = await staleMonths(tx, ends, mins);
  const rollupEnds = ends.filter((e) => !live.includes(e));
  const columns = `m.tenant_id, m.month_end, m.from_month_end, m.loan_id, m.account_no, m.principal_start, m.principal_end,
                   m.pdd_start, m.pdd_end, m.status_end`;
  const rows = await tx.query<{
    loan_id: string;
    account_no: string;
    customer_name: string;
    from_month_end: string;
    month_end: string;
    principal_start: bigint;
    principal_end: bigint | null;
    pdd_start: number;
    pdd_end: number | null;
    status_end: string;
    total: number;
  }>(
    `with moved as (
       select ${columns} from analytics_delinquency_moves m
        where m.month_end = any($7::date[]) and m.from_bucket = $8 and m.to_bucket = $9 and ${filterWhere('m', nodes)}
       union all
       select ${columns} from (${MOVES_SELECT}) m
        where cardinality($1::date[]) > 0 and m.from_bucket = $8 and m.to_bucket = $9 and ${filterWhere('m', nodes)}
     ), page as (
       select m.*, count(*) over ()::int as total from moved m order by m.month_end desc, m.account_no limit $10 offset $11
     )
     select p.loan_id::text as loan_id, p.account_no, c.first_name || ' ' || c.last_name as customer_name,
            to_char(p.from_month_end, 'YYYY-MM-DD') as from_month_end, to_char(p.month_end, 'YYYY-MM-DD') as month_end,
            p.principal_start, p.principal_end, p.pdd_start, p.pdd_end, p.status_end, p.total
       from page p join loans l on l.tenant_id = p.tenant_id and l.id = p.loan_id
       join customers c on c.tenant_id = l.tenant_id and c.id = l.customer_id
      order by p.month_end desc, p.account_no`,
    [
      live,
      mins,
      nodes ?? [],
      filters.productId,
      filters.branchId,
      filters.currency,
      rollupEnds,
      cell.from,
      cell.to,
      page.limit,
      page.offset,
    ],
  );
  let total = rows[0]?.total ?? 0;
  if (!rows.length && page.offset > 0) {
    total = (await loadCellLoans(tx, subject, scope, filters, cell, { limit: 1, offset: 0 })).total;
  }
  return {
    total,
    items: rows.map((r) => ({
      loanId: r.loan_id,
      accountNo: r.account_no,
      customerName: r.customer_name,
      fromMonthEnd: r.from_month_end,
      monthEnd: r.month_end,
      principalStart: BigInt(r.principal_start),
      principalEnd: r.principal_end === null ? null : BigInt(r.principal_end),
      pastDueDaysStart: r.pdd_start,
      pastDueDaysEnd: r.pdd_end,
      statusEnd: r.status_end,
    })),
  };
}
