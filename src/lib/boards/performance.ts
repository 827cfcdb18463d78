/**
 * The loans performance board (/loans/performance): per officer or per branch of the customer
 * (the scope copies on loans, offers and tasks, migration 0371), over a period [from, to]:
 *  - disbursed: loans disbursed in the period (count, principal);
 *  - expected: what the schedules ask on due dates in the period; collected: repayments dated in the
 *    period (reversed ones left out); rate = collected / expected;
 *  - PAR30 at the business date: the share of the group's outstanding held by active loans more than
 *    30 days past due (the overview's definition);
 *  - conversion: offers created in the period that became loans (disbursed) / offers created;
 *  - tasks done in the period (completed_at in the period, in the tenant's time zone).
 * Every row is one group; a row with no officer / branch (customers without one) is kept, so the
 * rows of both groupings add up to the same totals. Scope: the viewer's node set on the same columns
 * as the lists. Money is summed in the tenant's currency.
 */
import type { Tx } from '../db/index.ts';
import { noJit } from '../lists/query.ts';
import type { ExportTable, ExportValue } from '../exports/table-download.ts';
import { neutralise } from '../exports/cells.ts';
import { fromMinor, toDecimalString } from '../money/money.ts';
import { resolveScopeNodes, type Scope, type ScopeSubject } from '../tenancy/scope.ts';
import { LOAN_SCOPE_COLUMNS, OFFER_SCOPE_COLUMNS, TASK_SCOPE_COLUMNS, scopeCondition } from './overview.ts';

export const PERFORMANCE_GROUPS = ['officer', 'branch'] as const;
export type PerformanceGroup = (typeof PERFORMANCE_GROUPS)[number];

export const PERFORMANCE_COLUMNS = [
  'name',
  'disbursed_count',
  'disbursed_amount',
  'expected',
  'collected',
  'collection_rate',
  'par30',
  'offers',
  'converted',
  'conversion_rate',
  'tasks_done',
] as const;
export type PerformanceColumn = (typeof PERFORMANCE_COLUMNS)[number];

export type PerformanceRow = {
  /** The hierarchy node, or null for "none". */
  nodeId: string | null;
  name: string | null;
  disbursed_count: number;
  disbursed_amount: bigint;
  expected: bigint;
  collected: bigint;
  collection_rate: number | null;
  outstanding: bigint;
  par30_amount: bigint;
  par30: number | null;
  offers: number;
  converted: number;
  conversion_rate: number | null;
  tasks_done: number;
};

export type PerformanceQuery = {
  group: PerformanceGroup;
  from: string;
  to: string;
  sort: { key: PerformanceColumn; dir: 'asc' | 'desc' };
};

type Raw = {
  node_id: string | null;
  name: string | null;
  disbursed_count: number;
  disbursed_amount: string;
  expected: string;
  collected: string;
  outstanding: string;
  par30_amount: string;
  offers: number;
  converted: number;
  tasks_done: number;
};

const ratio = (part: bigint, whole: bigint) => (whole > 0n ? Number((part * 10_000n) / whole) / 10_000 : null);

export async function loadPerformance(
  tx: Tx,
  subject: ScopeSubject,
  scope: Scope | null,
  businessDate: string,
  timeZone: string,
  query: PerformanceQuery,
): Promise<PerformanceRow[]> {
  // A statement over tens of thousands of rows: JIT compiling costs more than it saves (as for the lists).
  await noJit(tx);
  const nodes = await resolveScopeNodes(tx, subject, scope);
  const col = (alias: string) => `${alias}.customer_${query.group}_id`;
  const loanScope = scopeCondition(LOAN_SCOPE_COLUMNS, nodes, '$4');
  // $1 from, $2 to, $3 business date, $4 the scope's nodes, $5 the tenant's time zone.
  const raw = await tx.query<Raw>(
    `with
       disbursed as (
         select ${col('l')} as node, count(*)::int as n, sum(l.principal)::int8 as amount
           from loans l where l.disbursed_on between $1::date and $2::date and ${loanScope} group by 1),
       expected as (
         select ${col('l')} as node, sum(i.principal_due + i.interest_due + i.fee_due + i.penalty_due)::int8 as amount
           from loan_installments i join loans l on l.tenant_id = i.tenant_id and l.id = i.loan_id
          where i.due_date between $1::date and $2::date and l.disbursed_on is not null and ${loanScope} group by 1),
       collected as (
         select ${col('l')} as node, sum(t.amount)::int8 as amount
           from loan_transactions t join loans l on l.tenant_id = t.tenant_id and l.id = t.loan_id
          where t.type = 'REPAYMENT' and t.transaction_date between $1::date and $2::date and ${loanScope}
            and not exists (select 1 from loan_transactions r where r.tenant_id = t.tenant_id and r.reverses_id = t.id)
          group by 1),
       par as (
         select ${col('l')} as node, sum(l.outstanding)::int8 as outstanding,
                coalesce(sum(l.outstanding) filter (where l.oldest_unpaid_due_date < $3::date - 30), 0)::int8 as par30
           from loans l where l.status = 'ACTIVE' and ${loanScope} group by 1),
       offered as (
         select ${col('o')} as node, count(*)::int as n, count(*) filter (where o.status = 'disbursed')::int as converted
           from offers o
          where o.created_at >= ($1::date::timestamp at time zone $5) and o.created_at < (($2::date + 1)::timestamp at time zone $5)
            and ${scopeCondition(OFFER_SCOPE_COLUMNS, nodes, '$4')}
          group by 1),
       done as (
         select ${col('t')} as node, count(*)::int as n
           from tasks t
          where t.status = 'done'
            and t.completed_at >= ($1::date::timestamp at time zone $5) and t.completed_at < (($2::date + 1)::timestamp at time zone $5)
            and ${scopeCondition(TASK_SCOPE_COLUMNS, nodes, '$4')}
          group by 1),
       groups as (
         select node from disbursed union select node from expected union select node from collected
         union select node from par union select node from offered union select node from done)
     select g.node::text as node_id, h.name,
            coalesce(d.n, 0) as disbursed_count, coalesce(d.amount, 0)::text as disbursed_amount,
            coalesce(e.amount, 0)::text as expected, coalesce(c.amount, 0)::text as collected,
            coalesce(p.outstanding, 0)::text as outstanding, coalesce(p.par30, 0)::text as par30_amount,
            coalesce(o.n, 0) as offers, coalesce(o.converted, 0) as converted, coalesce(k.n, 0) as tasks_done
       from groups g
       left join hierarchy_nodes h on h.id = g.node
       left join disbursed d on d.node is not distinct from g.node
       left join expected e on e.node is not distinct from g.node
       left join collected c on c.node is not distinct from g.node
       left join par p on p.node is not distinct from g.node
       left join offered o on o.node is not distinct from g.node
       left join done k on k.node is not distinct from g.node`,
    [query.from, query.to, businessDate, nodes ?? [], timeZone],
  );
  const rows = raw.map((r): PerformanceRow => {
    const expected = BigInt(r.expected);
    const collected = BigInt(r.collected);
    const outstanding = BigInt(r.outstanding);
    const par30 = BigInt(r.par30_amount);
    return {
      nodeId: r.node_id,
      name: r.name,
      disbursed_count: r.disbursed_count,
      disbursed_amount: BigInt(r.disbursed_amount),
      expected,
      collected,
      collection_rate: ratio(collected, expected),
      outstanding,
      par30_amount: par30,
      par30: ratio(par30, outstanding),
      offers: r.offers,
      converted: r.converted,
      conversion_rate: r.offers > 0 ? Math.round((r.converted * 10_000) / r.offers) / 10_000 : null,
      tasks_done: r.tasks_done,
    };
  });
  return sortRows(rows, query.sort);
}

/** Sorts by a column; nulls (no rate, no name) last either way; ties by name then node id. */
export function sortRows(rows: PerformanceRow[], sort: PerformanceQuery['sort']): PerformanceRow[] {
  const sign = sort.dir === 'asc' ? 1 : -1;
  const value = (r: PerformanceRow) => (sort.key === 'name' ? r.name : r[sort.key]);
  return [...rows].sort((a, b) => {
    const x = value(a);
    const y = value(b);
    if (x === null || y === null) {
      if (x !== y) return x === null ? 1 : -1;
    } else if (x !== y) {
      if (typeof x === 'string' && typeof y === 'string') return sign * x.localeCompare(y);
      return sign * (x < y ? -1 : 1);
    }
    return (a.name ?? '').localeCompare(b.name ?? '') || (a.nodeId ?? '').localeCompare(b.nodeId ?? '');
  });
}

/** Sum of every row (the table's footer). */
export function totalOf(rows: readonly PerformanceRow[]): Omit<PerformanceRow, 'nodeId' | 'name'> {
  const sum = <K extends keyof PerformanceRow>(key: K) =>
    rows.reduce((acc, r) => acc + BigInt(r[key] as bigint | number), 0n);
  const expected = sum('expected');
  const collected = sum('collected');
  const outstanding = sum('outstanding');
  const par30 = sum('par30_amount');
  const offers = Number(sum('offers'));
  const converted = Number(sum('converted'));
  return {
    disbursed_count: Number(sum('disbursed_count')),
    disbursed_amount: sum('disbursed_amount'),
    expected,
    collected,
    collection_rate: ratio(collected, expected),
    outstanding,
    par30_amount: par30,
    par30: ratio(par30, outstanding),
    offers,
    converted,
    conversion_rate: offers > 0 ? Math.round((converted * 10_000) / offers) / 10_000 : null,
    tasks_done: Number(sum('tasks_done')),
  };
}

/** One exported cell: amounts as exact decimals in major units, rates as fractions (0.1234). */
function cellOf(row: PerformanceRow, key: PerformanceColumn, currency: string, noName: string): ExportValue {
  if (key === 'name') return neutralise(row.name ?? noName);
  const v = row[key];
  if (v === null) return null;
  if (typeof v === 'bigint') return { decimal: toDecimalString(fromMinor(v, currency)) };
  return v;
}

export function exportTable(
  rows: readonly PerformanceRow[],
  headers: Record<PerformanceColumn, string>,
  currency: string,
  noName: string,
): ExportTable {
  return {
    headers: PERFORMANCE_COLUMNS.map((k) => neutralise(headers[k])),
    rows: rows.map((r) => PERFORMANCE_COLUMNS.map((k) => cellOf(r, k, currency, noName))),
  };
}
