/**
 * The loans overview board (/loans/overview): the team's figures for the viewer's scope at the
 * tenant's business date, each with the list that shows the same rows (same scope, same date):
 *  - active loans and their outstanding (loans.outstanding, kept by the database, migration 0370)
 *    → the loans list, tab "all outstanding";
 *  - disbursed this month (business-date month, 1st to the business date) → tab "disbursed this month";
 *  - collected this month (repayments dated in the month, less those reversed) against expected
 *    (everything the schedules ask on due dates in the month), with the installments of the month
 *    still unpaid → the payments list filtered to due dates in the month (tabs late / expected);
 *  - PAR1 / PAR30 / PAR90: the share of the outstanding held by active loans more than 0 / 30 / 90
 *    days past due. Days past due = business date − oldest unpaid due date, the number the daily
 *    close writes to loan_delinquency.past_due_days (as_of = business date) and the loans list shows
 *    → the loans list, tab "overdue" and the days-past-due filter (31.., 91..);
 *  - promises due today (open promises to pay dated the business date) → /loans/collection?promise=today;
 *  - tasks due (open or in progress, due on or before the business date) → /loans/tasks?tab=overdue;
 *  - offers to propose → the offers list, tab "to propose".
 * Scope: the same node set as the lists (data permissions ∩ `scope`), on the same columns as each
 * list's scopeSql. One statement; every part is a range read on an index (see migration 0830).
 * Money is summed in the tenant's currency (the loans of a tenant share it).
 */
import type { Tx } from '../db/index.ts';
import { noJit } from '../lists/query.ts';
import { addDays, addMonths } from '../schedule/dates.ts';
import { formatScope, resolveScopeNodes, type Scope, type ScopeSubject } from '../tenancy/scope.ts';

/** Loans: the loans list's scopeSql (src/lib/lists/defs/loans.ts). */
export const LOAN_SCOPE_COLUMNS = ['l.customer_branch_id', 'l.customer_officer_id', 'l.officer_id'] as const;
/** Offers: the offers list's scopeSql. */
export const OFFER_SCOPE_COLUMNS = ['o.customer_branch_id', 'o.customer_officer_id'] as const;
/** Tasks: the linked customer's branch and officer (copied on write), or the team a task is assigned to. */
export const TASK_SCOPE_COLUMNS = ['t.customer_branch_id', 't.customer_officer_id', 't.assignee_node_id'] as const;

/** The SQL test "one of these columns is in the node set $n" (always true when unrestricted). */
export function scopeCondition(columns: readonly string[], nodes: string[] | null, param: string): string {
  // Unrestricted: a test that always holds but still names the parameter (the statement's parameter count is fixed).
  if (nodes === null) return `(${param}::uuid[] is not null)`;
  return `(${columns.map((c) => `${c} = any(${param}::uuid[])`).join(' or ')})`;
}

export type ParFigure = { loans: number; amount: bigint; rate: number | null; href: string };

export type Overview = {
  businessDate: string;
  monthStart: string;
  monthEnd: string;
  activeLoans: { count: number; outstanding: bigint; href: string };
  disbursed: { count: number; amount: bigint; href: string };
  collection: {
    collected: bigint;
    expected: bigint;
    rate: number | null;
    /** Installments due in the month still unpaid, before the business date (late) and from it on. */
    unpaidLate: { count: number; href: string };
    unpaidExpected: { count: number; href: string };
  };
  par: { par1: ParFigure; par30: ParFigure; par90: ParFigure };
  promisesDueToday: { count: number; href: string };
  tasksDue: { count: number; href: string };
  offersToPropose: { count: number; href: string };
};

/** Builds a list link with the board's scope (`scope=level:id`), keeping ',' ':' and '.' readable. */
export function boardHref(path: string, params: Record<string, string>, scope: Scope | null): string {
  const query = new URLSearchParams(params);
  if (scope) query.set('scope', formatScope(scope));
  const text = query.toString().replace(/%2C/g, ',').replace(/%3A/g, ':');
  return text ? `${path}?${text}` : path;
}

/**
 * An installment the payments list shows (its baseWhere, written as migration 0350's partial indexes
 * are): something still to pay. Only active loans have such installments (a closed loan's are met, a
 * written-off loan's written off), so the loan's status needs no join here.
 */
const UNPAID_INSTALLMENT = `(i.obligations_met_on is null and (i.principal_due + i.interest_due + i.fee_due + i.penalty_due
  - i.principal_paid - i.interest_paid - i.fee_paid - i.penalty_paid
  - i.interest_waived - i.fee_waived - i.penalty_waived
  - i.principal_written_off - i.interest_written_off - i.fee_written_off - i.penalty_written_off) > 0)`;

type Row = {
  active: number;
  outstanding: bigint;
  par1_n: number;
  par1: bigint;
  par30_n: number;
  par30: bigint;
  par90_n: number;
  par90: bigint;
  disbursed_n: number;
  disbursed: bigint;
  expected: bigint;
  unpaid_late: number;
  unpaid_expected: number;
  collected: bigint;
  promises: number;
  tasks: number;
  offers: number;
};

export function monthBounds(date: string): { start: string; end: string } {
  const start = `${date.slice(0, 7)}-01`;
  return { start, end: addDays(addMonths(start, 1), -1) };
}

export async function loadOverview(
  tx: Tx,
  subject: ScopeSubject,
  scope: Scope | null,
  businessDate: string,
): Promise<Overview> {
  // A statement over tens of thousands of rows: JIT compiling costs more than it saves (as for the lists).
  await noJit(tx);
  const nodes = await resolveScopeNodes(tx, subject, scope);
  const { start, end } = monthBounds(businessDate);
  const loanScope = scopeCondition(LOAN_SCOPE_COLUMNS, nodes, '$4');
  // Rows of a loan in scope: no join at all for an unrestricted viewer (installments and repayments
  // are then read from their covering indexes alone, migration 0830).
  const ofLoansInScope = (alias: string) =>
    nodes === null ? loanScope : `${alias}.loan_id in (select l.id from loans l where ${loanScope})`;
  // $1 business date, $2 month start, $3 month end, $4 the scope's nodes.
  const [row] = await tx.query<Row>(
    `select a.*, d.*, e.*, u.*,
            (select count(*)::int from collection_activities p
               join loans l on l.tenant_id = p.tenant_id and l.id = p.loan_id
              where p.kind = 'promise' and p.promise_status = 'open' and p.promise_date = $1::date and ${loanScope}) as promises,
            (select count(*)::int from tasks t
              where t.status in ('open', 'in_progress') and t.due_date <= $1::date
                and ${scopeCondition(TASK_SCOPE_COLUMNS, nodes, '$4')}) as tasks,
            (select count(*)::int from offers o
              where o.status = 'to_propose' and ${scopeCondition(OFFER_SCOPE_COLUMNS, nodes, '$4')}) as offers
       from (select count(*)::int as active, coalesce(sum(l.outstanding), 0)::int8 as outstanding,
                    count(*) filter (where l.oldest_unpaid_due_date < $1::date)::int as par1_n,
                    coalesce(sum(l.outstanding) filter (where l.oldest_unpaid_due_date < $1::date), 0)::int8 as par1,
                    count(*) filter (where l.oldest_unpaid_due_date < $1::date - 30)::int as par30_n,
                    coalesce(sum(l.outstanding) filter (where l.oldest_unpaid_due_date < $1::date - 30), 0)::int8 as par30,
                    count(*) filter (where l.oldest_unpaid_due_date < $1::date - 90)::int as par90_n,
                    coalesce(sum(l.outstanding) filter (where l.oldest_unpaid_due_date < $1::date - 90), 0)::int8 as par90
               from loans l where l.status = 'ACTIVE' and ${loanScope}) a,
            (select count(*)::int as disbursed_n, coalesce(sum(l.principal), 0)::int8 as disbursed
               from loans l where l.disbursed_on between $2::date and $1::date and ${loanScope}) d,
            (select coalesce(sum(i.principal_due + i.interest_due + i.fee_due + i.penalty_due), 0)::int8 as expected,
                    count(*) filter (where ${UNPAID_INSTALLMENT} and i.due_date < $1::date)::int as unpaid_late,
                    count(*) filter (where ${UNPAID_INSTALLMENT} and i.due_date >= $1::date)::int as unpaid_expected
               from loan_installments i where i.due_date between $2::date and $3::date and ${ofLoansInScope('i')}) e,
            (select coalesce(sum(t.amount), 0)::int8
                    - coalesce((select sum(o.amount) from loan_transactions r
                                  join loan_transactions o on o.tenant_id = r.tenant_id and o.id = r.reverses_id
                                 where r.reverses_id is not null and o.type = 'REPAYMENT'
                                   and o.transaction_date between $2::date and $1::date and ${ofLoansInScope('o')}), 0)::int8 as collected
               from loan_transactions t
              where t.type = 'REPAYMENT' and t.transaction_date between $2::date and $1::date and ${ofLoansInScope('t')}) u`,
    [businessDate, start, end, nodes ?? []],
  );
  const rate = (part: bigint, whole: bigint) => (whole > 0n ? Number((part * 10_000n) / whole) / 10_000 : null);
  const outstanding = BigInt(row.outstanding);
  const par = (n: number, amount: bigint, params: Record<string, string>): ParFigure => ({
    loans: n,
    amount: BigInt(amount),
    rate: rate(BigInt(amount), outstanding),
    href: boardHref('/loans/loans', params, scope),
  });
  const monthDue = `${start}..${end}`;
  return {
    businessDate,
    monthStart: start,
    monthEnd: end,
    activeLoans: { count: row.active, outstanding, href: boardHref('/loans/loans', {}, scope) },
    disbursed: {
      count: row.disbursed_n,
      amount: BigInt(row.disbursed),
      href: boardHref('/loans/loans', { tab: 'disbursed_this_month' }, scope),
    },
    collection: {
      collected: BigInt(row.collected),
      expected: BigInt(row.expected),
      rate: rate(BigInt(row.collected), BigInt(row.expected)),
      unpaidLate: {
        count: row.unpaid_late,
        href: boardHref('/loans/payments', { tab: 'late', 'f.due_date': monthDue }, scope),
      },
      unpaidExpected: {
        count: row.unpaid_expected,
        href: boardHref('/loans/payments', { tab: 'expected', 'f.due_date': monthDue }, scope),
      },
    },
    par: {
      par1: par(row.par1_n, row.par1, { tab: 'overdue' }),
      par30: par(row.par30_n, row.par30, { 'f.days_past_due': '31..' }),
      par90: par(row.par90_n, row.par90, { 'f.days_past_due': '91..' }),
    },
    promisesDueToday: { count: row.promises, href: boardHref('/loans/collection', { promise: 'today' }, scope) },
    tasksDue: { count: row.tasks, href: boardHref('/loans/tasks', { tab: 'overdue' }, scope) },
    offersToPropose: { count: row.offers, href: boardHref('/loans/offers', { tab: 'to_propose' }, scope) },
  };
}
