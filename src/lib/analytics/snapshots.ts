/**
 * Month-end snapshots rebuilt from loan history (`npm run analytics:rebuild -- --snapshots`): every
 * row of `loan_month_end_snapshots` the daily close would have written at every month end before the
 * business date, recomputed from the installments (due dates and amounts) and the non-reversed
 * transactions (dates and portions), then the analytics writers rerun (src/lib/analytics/rebuild.ts).
 *
 * At a month end M (the close of day M writes the snapshot after classifying loans at M + 1):
 *  - included: loans disbursed by M that were ACTIVE or OVERPAID at M, or closed / written off in M's month;
 *  - status at M: written off by M → CLOSED_WRITTEN_OFF; closed by M → OVERPAID while a credit balance
 *    remains at M, else CLOSED_OBLIGATIONS_MET; otherwise ACTIVE;
 *  - outstanding by component: the schedule's due amounts (less fees and penalties charged after M:
 *    FEE_APPLIED / PENALTY_APPLIED dated after M) minus the portions settled by M (repayments, waivers,
 *    write-offs dated ≤ M); credit balance: overpayments less refunds dated ≤ M;
 *  - paid in month: the repayments' portions dated in M's month (as the close);
 *  - days past due (ACTIVE loans only, as the close): what was settled by M is allocated to the
 *    installments oldest first; days from the oldest installment due by M that is not fully settled to
 *    M + 1; delinquent days and classification by the pure `loanDelinquency` with the ranges and arrears
 *    grace of the loan's product version, exactly as classifyLoans does.
 * A schedule rewritten after disbursement (tranche, recalculation, reschedule, re-age…) is read as it
 * was at M from loan_schedule_versions (migration 1170, kept by replaceLoanSchedule): the installments
 * in force at M, and the reallocation the last rewrite's replay made to what the transactions settled.
 * What history cannot give back (see README): a transaction entered later with an earlier date counts
 * at its date, a reversed transaction counts nowhere, and due dates moved by the days-off apply read as
 * they are now — the close saw none of these at M.
 */
import type { Db, Tx } from '../db/index.ts';
import { addDays } from '../schedule/dates.ts';
import { loanDelinquency } from '../schedule/delinquency.ts';
import type { DelinquencyRange } from '../schedule/types.ts';
import type { LoanScheduleVersionsRow } from '../db/schema.generated.ts';
import { SETTLING_TYPES } from '../lending/schedule-versions.ts';
import { monthEndOf } from './delinquency.ts';

/** The snapshot columns rebuilt from history (the test compares these with the close's own rows). */
export const SNAPSHOT_FIELDS = [
  'status',
  'currency',
  'principal_outstanding',
  'interest_outstanding',
  'fee_outstanding',
  'penalty_outstanding',
  'total_outstanding',
  'credit_balance',
  'past_due_days',
  'delinquent_days',
  'classification',
  'principal_paid_in_month',
  'interest_paid_in_month',
  'fee_paid_in_month',
  'penalty_paid_in_month',
  'total_paid_in_month',
] as const;

type LoanRow = {
  id: string;
  currency: string;
  disbursed_on: string;
  closed_on: string | null;
  written_off_on: string | null;
  version_key: string;
};
type InstallmentRow = {
  loan_id: string;
  number: number;
  due_date: string;
  principal_due: bigint;
  interest_due: bigint;
  fee_due: bigint;
  penalty_due: bigint;
};
type TxRow = {
  loan_id: string;
  seq: bigint;
  type: string;
  transaction_date: string;
  amount: bigint;
  p: bigint;
  i: bigint;
  f: bigint;
  pen: bigint;
  over: bigint;
  installment_number: number | null;
};

/**
 * The installments a loan had before one rewrite of its schedule (loan_schedule_versions, migration
 * 1170): in force from the previous rewrite (or the disbursement) up to the close of the day before
 * `replaced_on`; installment n is at index n − 1. Fees and penalties hold the charges applied up to
 * transaction `last_seq`.
 */
export type ScheduleVersion = Omit<
  LoanScheduleVersionsRow,
  'tenant_id' | `reallocated_${'principal' | 'interest' | 'fee' | 'penalty' | 'credit'}`
> & {
  /** What the rewrite's replay settled beyond the live transactions' portions, until the next rewrite. */
  reallocated: { p: bigint; i: bigint; f: bigint; pen: bigint; credit: bigint };
};

export type SnapshotRow = {
  loan_id: string;
  month_end: string;
  status: string;
  currency: string;
  principal_outstanding: bigint;
  interest_outstanding: bigint;
  fee_outstanding: bigint;
  penalty_outstanding: bigint;
  total_outstanding: bigint;
  credit_balance: bigint;
  past_due_days: number;
  delinquent_days: number;
  classification: string | null;
  principal_paid_in_month: bigint;
  interest_paid_in_month: bigint;
  fee_paid_in_month: bigint;
  penalty_paid_in_month: bigint;
  total_paid_in_month: bigint;
};

type Product = { ranges: DelinquencyRange[]; grace: number };

/** Every month end from the month of `first` up to the last one before `before`. */
function monthEndsBetween(first: string, before: string): string[] {
  const ends: string[] = [];
  for (let m = monthEndOf(first); m < before; m = monthEndOf(addDays(m, 1))) ends.push(m);
  return ends;
}

const NO_SHIFT: ScheduleVersion['reallocated'] = { p: 0n, i: 0n, f: 0n, pen: 0n, credit: 0n };

/**
 * The installments in force at the close of month end `m`, and the last transaction whose charges they
 * hold: those replaced by the first rewrite after `m` (the close of day D runs after D's commands, so a
 * rewrite on `m` itself was in force), else the current ones, which hold every charge.
 */
function installmentsAt(
  m: string,
  current: InstallmentRow[],
  versions: readonly ScheduleVersion[],
): { installments: InstallmentRow[]; lastSeq: bigint | null } {
  const version = versions.find((v) => v.replaced_on > m);
  if (!version) return { installments: current, lastSeq: null };
  return {
    installments: version.due_dates.map((dueDate, k) => ({
      loan_id: version.loan_id,
      number: k + 1,
      due_date: dueDate,
      principal_due: version.principal_due[k]!,
      interest_due: version.interest_due[k]!,
      fee_due: version.fee_due[k]!,
      penalty_due: version.penalty_due[k]!,
    })),
    lastSeq: version.last_seq,
  };
}

/**
 * One loan's snapshots at the month ends of `ends` it belongs to; `versions` are the installments its
 * schedule rewrites replaced (any order). Pure.
 */
export function loanSnapshots(
  loan: LoanRow,
  installments: InstallmentRow[],
  transactions: TxRow[],
  product: Product,
  ends: string[],
  versions: readonly ScheduleVersion[] = [],
): SnapshotRow[] {
  const out: SnapshotRow[] = [];
  const byVersion = [...versions].sort((a, b) => a.version - b.version);
  for (const m of ends) {
    if (loan.disbursed_on > m) continue;
    const monthStart = `${m.slice(0, 8)}01`;
    const upTo = transactions.filter((t) => t.transaction_date <= m);
    const sum = (types: readonly string[], pick: (t: TxRow) => bigint) =>
      upTo.filter((t) => types.includes(t.type)).reduce((s, t) => s + pick(t), 0n);
    // The last rewrite by M replayed the transactions onto its installments: its reallocation holds until the next.
    const shift = byVersion.findLast((v) => v.replaced_on <= m)?.reallocated ?? NO_SHIFT;
    const credit = sum(['REPAYMENT'], (t) => t.over) - sum(['CREDIT_BALANCE_REFUND'], (t) => t.amount) + shift.credit;
    const status =
      loan.written_off_on !== null && loan.written_off_on <= m
        ? 'CLOSED_WRITTEN_OFF'
        : loan.closed_on !== null && loan.closed_on <= m
          ? credit > 0n
            ? 'OVERPAID'
            : 'CLOSED_OBLIGATIONS_MET'
          : 'ACTIVE';
    const open = status === 'ACTIVE' || status === 'OVERPAID';
    const endedInMonth =
      (status === 'CLOSED_WRITTEN_OFF' && loan.written_off_on! >= monthStart) ||
      (status === 'CLOSED_OBLIGATIONS_MET' && loan.closed_on! >= monthStart);
    if (!open && !endedInMonth) continue;

    // Due at M per installment: charges applied after M (and held by these installments) taken off.
    const inForce = installmentsAt(m, installments, byVersion);
    const sorted = [...inForce.installments].sort((a, b) => a.number - b.number);
    const later = transactions.filter(
      (t) => t.transaction_date > m && (inForce.lastSeq === null || t.seq <= inForce.lastSeq),
    );
    const due = sorted.map((i) => {
      const charged = (type: string) =>
        later.filter((t) => t.type === type && t.installment_number === i.number).reduce((s, t) => s + t.amount, 0n);
      return {
        number: i.number,
        dueDate: i.due_date,
        p: i.principal_due,
        i: i.interest_due,
        f: i.fee_due - charged('FEE_APPLIED'),
        pen: i.penalty_due - charged('PENALTY_APPLIED'),
      };
    });
    const settled = {
      p: sum(SETTLING_TYPES, (t) => t.p) + shift.p,
      i: sum(SETTLING_TYPES, (t) => t.i) + shift.i,
      f: sum(SETTLING_TYPES, (t) => t.f) + shift.f,
      pen: sum(SETTLING_TYPES, (t) => t.pen) + shift.pen,
    };
    const dueTotal = {
      p: due.reduce((s, x) => s + x.p, 0n),
      i: due.reduce((s, x) => s + x.i, 0n),
      f: due.reduce((s, x) => s + x.f, 0n),
      pen: due.reduce((s, x) => s + x.pen, 0n),
    };
    const outstanding = {
      p: dueTotal.p - settled.p,
      i: dueTotal.i - settled.i,
      f: dueTotal.f - settled.f,
      pen: dueTotal.pen - settled.pen,
    };
    const inMonth = upTo.filter((t) => t.type === 'REPAYMENT' && t.transaction_date >= monthStart);
    const paid = (pick: (t: TxRow) => bigint) => inMonth.reduce((s, t) => s + pick(t), 0n);

    let pastDueDays = 0;
    let delinquentDays = 0;
    let classification: string | null = null;
    if (status === 'ACTIVE') {
      // Settled amounts allocated to the installments oldest first.
      let left = settled.p + settled.i + settled.f + settled.pen;
      const asOf = addDays(m, 1);
      const overdue = [];
      for (const x of due) {
        const total = x.p + x.i + x.f + x.pen;
        const covered = left >= total ? total : left > 0n ? left : 0n;
        left -= covered;
        if (x.dueDate < asOf && total - covered > 0n)
          overdue.push({ number: x.number, dueDate: x.dueDate, outstanding: total - covered });
      }
      const d = loanDelinquency({
        installments: overdue,
        businessDate: asOf,
        graceOnArrearsAgeing: product.grace,
        ranges: product.ranges,
      });
      pastDueDays = d.pastDueDays;
      delinquentDays = d.delinquentDays;
      classification = d.classification;
    }
    out.push({
      loan_id: loan.id,
      month_end: m,
      status,
      currency: loan.currency,
      principal_outstanding: outstanding.p,
      interest_outstanding: outstanding.i,
      fee_outstanding: outstanding.f,
      penalty_outstanding: outstanding.pen,
      total_outstanding: outstanding.p + outstanding.i + outstanding.f + outstanding.pen,
      credit_balance: credit,
      past_due_days: pastDueDays,
      delinquent_days: delinquentDays,
      classification,
      principal_paid_in_month: paid((t) => t.p),
      interest_paid_in_month: paid((t) => t.i),
      fee_paid_in_month: paid((t) => t.f),
      penalty_paid_in_month: paid((t) => t.pen),
      total_paid_in_month: paid((t) => t.amount),
    });
  }
  return out;
}

async function products(tx: Tx): Promise<Map<string, Product>> {
  const ranges = await tx.query<{
    bucket_set_id: string;
    classification: string;
    min_age_days: number;
    max_age_days: number | null;
  }>(
    'select bucket_set_id, classification, min_age_days, max_age_days from delinquency_ranges order by bucket_set_id, min_age_days',
  );
  const bySet = new Map<string, DelinquencyRange[]>();
  for (const r of ranges) {
    const list = bySet.get(r.bucket_set_id) ?? [];
    list.push({ name: r.classification, minimumAgeDays: r.min_age_days, maximumAgeDays: r.max_age_days });
    bySet.set(r.bucket_set_id, list);
  }
  const versions = await tx.query<{ id: string; set_id: string | null; grace: number }>(
    `select product_id::text || ':' || version as id, snapshot->>'delinquency_bucket_set_id' as set_id,
            coalesce((snapshot->>'grace_on_arrears_ageing')::int, 0) as grace from loan_product_versions`,
  );
  return new Map(versions.map((v) => [v.id, { ranges: (v.set_id && bySet.get(v.set_id)) || [], grace: v.grace }]));
}

const BATCH = 2000;

/**
 * Rewrites the tenant's month-end snapshots from history, in one transaction (the old rows are
 * replaced only when every loan was recomputed). Returns the rows written and the month ends.
 */
export async function rebuildSnapshots(db: Db, tenantId: string): Promise<{ rows: number; monthEnds: number }> {
  return db.tenant(tenantId, async (tx) => {
    const [{ business_date: before, first }] = await tx.query<{ business_date: string; first: string | null }>(
      `select t.business_date, (select to_char(min(disbursed_on), 'YYYY-MM-DD') from loans where disbursed_on is not null) as first
         from tenants t where t.id = $1`,
      [tenantId],
    );
    await tx.query('delete from loan_month_end_snapshots');
    if (!first) return { rows: 0, monthEnds: 0 };
    const ends = monthEndsBetween(first, before);
    const byVersion = await products(tx);
    let written = 0;
    for (let after = ''; ;) {
      const loans = await tx.query<LoanRow>(
        `select id::text as id, currency, to_char(disbursed_on, 'YYYY-MM-DD') as disbursed_on,
                to_char(closed_on, 'YYYY-MM-DD') as closed_on, to_char(written_off_on, 'YYYY-MM-DD') as written_off_on,
                product_id::text || ':' || product_version as version_key
           from loans where disbursed_on is not null and id::text > $1 order by id::text limit ${BATCH}`,
        [after],
      );
      if (!loans.length) break;
      after = loans[loans.length - 1]!.id;
      const ids = loans.map((l) => l.id);
      const installments = await tx.query<InstallmentRow>(
        `select loan_id::text as loan_id, number, to_char(due_date, 'YYYY-MM-DD') as due_date, principal_due, interest_due, fee_due, penalty_due
           from loan_installments where loan_id = any($1::uuid[])`,
        [ids],
      );
      const transactions = await tx.query<TxRow>(
        `select t.loan_id::text as loan_id, t.seq, t.type, to_char(t.transaction_date, 'YYYY-MM-DD') as transaction_date, t.amount,
                t.principal_portion as p, t.interest_portion as i, t.fee_portion as f, t.penalty_portion as pen,
                t.overpayment_portion as over, t.installment_number
           from loan_transactions t
          where t.loan_id = any($1::uuid[]) and t.type <> 'REVERSAL'
            and not exists (select 1 from loan_transactions r where r.tenant_id = t.tenant_id and r.reverses_id = t.id)`,
        [ids],
      );
      const versions = await tx.query<Record<keyof ScheduleVersion | 'p' | 'i' | 'f' | 'pen' | 'credit', unknown>>(
        `select loan_id::text as loan_id, version, to_char(replaced_on, 'YYYY-MM-DD') as replaced_on, last_seq::text as last_seq,
                array(select to_char(d, 'YYYY-MM-DD') from unnest(due_dates) with ordinality as u(d, n) order by n) as due_dates,
                principal_due::text[] as principal_due, interest_due::text[] as interest_due, fee_due::text[] as fee_due,
                penalty_due::text[] as penalty_due, reallocated_principal::text as p, reallocated_interest::text as i,
                reallocated_fee::text as f, reallocated_penalty::text as pen, reallocated_credit::text as credit
           from loan_schedule_versions where loan_id = any($1::uuid[])`,
        [ids],
      );
      const group = <T extends { loan_id: string }>(rows: T[]) => {
        const map = new Map<string, T[]>();
        for (const r of rows) map.set(r.loan_id, [...(map.get(r.loan_id) ?? []), r]);
        return map;
      };
      const norm = <T extends Record<string, unknown>>(rows: T[], keys: string[]) =>
        rows.map((r) => {
          const copy: Record<string, unknown> = { ...r };
          for (const k of keys) copy[k] = BigInt(r[k] as bigint);
          return copy as T;
        });
      const inst = group(norm(installments, ['principal_due', 'interest_due', 'fee_due', 'penalty_due']));
      const txs = group(norm(transactions, ['seq', 'amount', 'p', 'i', 'f', 'pen', 'over']));
      const amounts = (list: unknown) => (list as string[]).map((a) => BigInt(a));
      const history = group(
        versions.map((v): ScheduleVersion => ({
          loan_id: v.loan_id as string,
          version: Number(v.version),
          replaced_on: v.replaced_on as string,
          last_seq: BigInt(v.last_seq as string),
          due_dates: v.due_dates as string[],
          principal_due: amounts(v.principal_due),
          interest_due: amounts(v.interest_due),
          fee_due: amounts(v.fee_due),
          penalty_due: amounts(v.penalty_due),
          reallocated: {
            p: BigInt(v.p as string),
            i: BigInt(v.i as string),
            f: BigInt(v.f as string),
            pen: BigInt(v.pen as string),
            credit: BigInt(v.credit as string),
          },
        })),
      );
      const rows = loans.flatMap((l) =>
        loanSnapshots(
          l,
          inst.get(l.id) ?? [],
          txs.get(l.id) ?? [],
          byVersion.get(l.version_key) ?? { ranges: [], grace: 0 },
          ends,
          history.get(l.id) ?? [],
        ),
      );
      if (rows.length) {
        const col = (k: keyof SnapshotRow) => rows.map((r) => (typeof r[k] === 'bigint' ? r[k].toString() : r[k]));
        await tx.query(
          `insert into loan_month_end_snapshots (tenant_id, loan_id, month_end, status, currency, principal_outstanding,
             interest_outstanding, fee_outstanding, penalty_outstanding, total_outstanding, credit_balance, past_due_days,
             delinquent_days, classification, principal_paid_in_month, interest_paid_in_month, fee_paid_in_month,
             penalty_paid_in_month, total_paid_in_month)
           select $1, u.* from unnest($2::uuid[], $3::date[], $4::text[], $5::char(3)[], $6::int8[], $7::int8[], $8::int8[], $9::int8[],
             $10::int8[], $11::int8[], $12::int[], $13::int[], $14::text[], $15::int8[], $16::int8[], $17::int8[], $18::int8[], $19::int8[]) as u`,
          [
            tenantId,
            col('loan_id'),
            col('month_end'),
            col('status'),
            col('currency'),
            col('principal_outstanding'),
            col('interest_outstanding'),
            col('fee_outstanding'),
            col('penalty_outstanding'),
            col('total_outstanding'),
            col('credit_balance'),
            col('past_due_days'),
            col('delinquent_days'),
            col('classification'),
            col('principal_paid_in_month'),
            col('interest_paid_in_month'),
            col('fee_paid_in_month'),
            col('penalty_paid_in_month'),
            col('total_paid_in_month'),
          ],
        );
        written += rows.length;
      }
    }
    return { rows: written, monthEnds: ends.length };
  });
}
