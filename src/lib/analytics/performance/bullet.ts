/**
 * Bullet loans collection (/analytics/risk/bullet-loans-collection): loans repaid in one payment at
 * maturity (number_of_repayments = 1, as the collection close's bullet reminders detect them), by the
 * ISO week of their maturity (0370's maturity_date = the single installment's due date):
 *  - due: what the installments ask (principal + interest + fees + penalties, penalties charged later
 *    included);
 *  - collected by maturity: repayments (not reversed) dated on or before the maturity date, capped at
 *    what the installments record as paid; collected after: the rest of what is paid;
 *  - waived; written off; still outstanding, split into "not yet due" (maturity on or after the
 *    business date) and the loan's current delinquency class (loan_delinquency), "overdue" when the
 *    close has not classified it.
 * For every week: due = by maturity + after + waived + outstanding + written off (by construction
 * from the installments; tested against the loans). Scope: the loan's scope columns.
 */
import type { Tx } from '../../db/index.ts';
import { noJit } from '../../lists/query.ts';
import { resolveScopeNodes, type Scope, type ScopeSubject } from '../../tenancy/scope.ts';
import { LOAN_SCOPE_COLUMNS, scopeCondition } from '../../boards/overview.ts';
import { isoWeekOf, mondayOfWeek, weeksBetween } from './period.ts';
import { addDays } from '../../schedule/dates.ts';

export const BULLET_AMOUNTS = ['due', 'by_maturity', 'after_maturity', 'waived', 'outstanding', 'written_off'] as const;
export type BulletAmount = (typeof BULLET_AMOUNTS)[number];

/** Where the outstanding is now: 'not_yet_due', a delinquency class, or 'overdue' (past due, unclassified). */
export const NOT_YET_DUE = 'not_yet_due';
export const OVERDUE_UNCLASSIFIED = 'overdue';

export type BulletWeek = {
  week: string;
  monday: string;
  loans: number;
  amounts: Record<BulletAmount, bigint>;
  /** Outstanding by where it is now (keys of `Bullet.places`). */
  outstandingBy: Record<string, bigint>;
};

export type BulletLoan = {
  loanId: string;
  customerId: string;
  accountNo: string;
  customerName: string;
  maturityDate: string;
  status: string;
  place: string | null;
  amounts: Record<BulletAmount, bigint>;
};

export type Bullet = {
  currency: string;
  from: string;
  to: string;
  weeks: BulletWeek[];
  total: Omit<BulletWeek, 'week' | 'monday'>;
  /** The places the outstanding is in, in order: not yet due, the classes by age, overdue. */
  places: string[];
};

/** One row per bullet loan maturing in [$2, $3] in scope ($4), with its amounts and place. */
function loansSql(scopeSql: string): string {
  return `select l.id, l.customer_id, l.account_no, l.status, to_char(l.maturity_date, 'YYYY-MM-DD') as maturity_date,
                 i.due, i.paid, i.waived, i.written_off,
                 least(i.paid, coalesce(t.by_maturity, 0))::int8 as by_maturity,
                 case when i.due - i.paid - i.waived - i.written_off <= 0 then null
                      when l.maturity_date >= $5::date then '${NOT_YET_DUE}'
                      else coalesce(d.classification, '${OVERDUE_UNCLASSIFIED}') end as place
            from loans l
            cross join lateral (
              select sum(x.principal_due + x.interest_due + x.fee_due + x.penalty_due)::int8 as due,
                     sum(x.principal_paid + x.interest_paid + x.fee_paid + x.penalty_paid)::int8 as paid,
                     sum(x.interest_waived + x.fee_waived + x.penalty_waived)::int8 as waived,
                     sum(x.principal_written_off + x.interest_written_off + x.fee_written_off + x.penalty_written_off)::int8 as written_off
                from loan_installments x where x.tenant_id = l.tenant_id and x.loan_id = l.id) i
            left join lateral (
              select sum(r.principal_portion + r.interest_portion + r.fee_portion + r.penalty_portion)::int8 as by_maturity
                from loan_transactions r
               where r.tenant_id = l.tenant_id and r.loan_id = l.id and r.type = 'REPAYMENT'
                 and r.transaction_date <= l.maturity_date
                 and not exists (select 1 from loan_transactions v where v.tenant_id = r.tenant_id and v.reverses_id = r.id)) t on true
            left join loan_delinquency d on d.tenant_id = l.tenant_id and d.loan_id = l.id
           where l.tenant_id = $1 and l.number_of_repayments = 1 and l.disbursed_on is not null
             and l.maturity_date between $2::date and $3::date and l.currency = $6 and ${scopeSql}`;
}

type RawLoan = {
  id: string;
  customer_id: string;
  account_no: string;
  status: string;
  maturity_date: string;
  due: string;
  paid: string;
  waived: string;
  written_off: string;
  by_maturity: string;
  place: string | null;
};

function amountsOf(r: RawLoan): Record<BulletAmount, bigint> {
  const due = BigInt(r.due);
  const paid = BigInt(r.paid);
  const waived = BigInt(r.waived);
  const writtenOff = BigInt(r.written_off);
  const byMaturity = BigInt(r.by_maturity);
  return {
    due,
    by_maturity: byMaturity,
    after_maturity: paid - byMaturity,
    waived,
    outstanding: due - paid - waived - writtenOff,
    written_off: writtenOff,
  };
}

const zeroAmounts = (): Record<BulletAmount, bigint> =>
  Object.fromEntries(BULLET_AMOUNTS.map((k) => [k, 0n])) as Record<BulletAmount, bigint>;

type Options = { tenantId: string; currency: string; businessDate: string; from: string; to: string };

async function placesOrder(tx: Tx): Promise<string[]> {
  const rows = await tx.query<{ classification: string }>(
    `select classification from delinquency_ranges group by classification order by min(min_age_days), classification`,
  );
  return rows.map((r) => r.classification);
}

export async function loadBullet(
  tx: Tx,
  subject: ScopeSubject,
  scope: Scope | null,
  options: Options,
): Promise<Bullet> {
  await noJit(tx);
  const nodes = await resolveScopeNodes(tx, subject, scope);
  const raw = await tx.query<{ monday: string; place: string | null; loans: number } & Record<string, string>>(
    `select to_char(date_trunc('week', b.maturity_date::date), 'YYYY-MM-DD') as monday, b.place, count(*)::int as loans,
            sum(b.due)::text as due, sum(b.paid)::text as paid, sum(b.waived)::text as waived,
            sum(b.written_off)::text as written_off, sum(b.by_maturity)::text as by_maturity
       from (${loansSql(scopeCondition(LOAN_SCOPE_COLUMNS, nodes, '$4'))}) b
      group by 1, 2`,
    [options.tenantId, options.from, options.to, nodes ?? [], options.businessDate, options.currency],
  );
  const known = await placesOrder(tx);
  const seen = new Set(raw.map((r) => r.place).filter((p): p is string => p !== null));
  const places = [NOT_YET_DUE, ...known, OVERDUE_UNCLASSIFIED].filter((p) => seen.has(p));
  for (const p of seen) if (!places.includes(p)) places.push(p);
  const weeks = weeksBetween(options.from, options.to).map((monday): BulletWeek => ({
    week: isoWeekOf(monday),
    monday,
    loans: 0,
    amounts: zeroAmounts(),
    outstandingBy: {},
  }));
  const byMonday = new Map(weeks.map((w) => [w.monday, w]));
  const total: Bullet['total'] = { loans: 0, amounts: zeroAmounts(), outstandingBy: {} };
  for (const r of raw) {
    const week = byMonday.get(r.monday);
    if (!week) continue;
    const amounts = amountsOf(r as unknown as RawLoan);
    for (const target of [week, total]) {
      target.loans += r.loans;
      for (const k of BULLET_AMOUNTS) target.amounts[k] += amounts[k];
      if (r.place) target.outstandingBy[r.place] = (target.outstandingBy[r.place] ?? 0n) + amounts.outstanding;
    }
  }
  return { currency: options.currency, from: options.from, to: options.to, weeks, total, places };
}

/** The most loans a week's drill-down lists. */
export const DRILL_LIMIT = 1000;

/** The bullet loans maturing in one ISO week (the drill-down), by maturity date then account number. */
export async function loadBulletWeekLoans(
  tx: Tx,
  subject: ScopeSubject,
  scope: Scope | null,
  options: Omit<Options, 'from' | 'to'> & { week: string },
): Promise<BulletLoan[]> {
  const monday = mondayOfWeek(options.week);
  if (!monday) return [];
  await noJit(tx);
  const nodes = await resolveScopeNodes(tx, subject, scope);
  const rows = await tx.query<RawLoan & { customer_name: string }>(
    `select b.*, c.first_name || ' ' || c.last_name as customer_name
       from (${loansSql(scopeCondition(LOAN_SCOPE_COLUMNS, nodes, '$4'))}) b
       join customers c on c.tenant_id = $1 and c.id = b.customer_id
      order by b.maturity_date, b.account_no
      limit ${DRILL_LIMIT}`,
    [options.tenantId, monday, addDays(monday, 6), nodes ?? [], options.businessDate, options.currency],
  );
  return rows.map((r) => ({
    loanId: r.id,
    customerId: r.customer_id,
    accountNo: r.account_no,
    customerName: r.customer_name,
    maturityDate: r.maturity_date,
    status: r.status,
    place: r.place,
    amounts: amountsOf(r),
  }));
}
