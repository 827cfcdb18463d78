import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, Tx } from '#lib/db/index.ts';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import { simulatePortfolio } from '#lib/simulator/simulate.ts';
import { INCOME_TYPES, lastClosedMonthEnd, loadRevenue } from '#lib/analytics/performance/revenue.ts';
import { loadPortfolio, PORTFOLIO_DIMENSIONS } from '#lib/analytics/performance/portfolio.ts';
import { BULLET_AMOUNTS, loadBullet, loadBulletWeekLoans } from '#lib/analytics/performance/bullet.ts';
import { addMonthsTo, monthEndOf, monthOf } from '#lib/analytics/performance/period.ts';
import { rebuildAnalytics } from '#lib/analytics/rebuild.ts';
import { waiveLoanInterest } from '#lib/lending/commands/waive-loan-interest.ts';
import { reverseLoanTransaction } from '#lib/lending/commands/reverse-loan-transaction.ts';
import type { ScopeSubject } from '#lib/tenancy/scope.ts';

const TENANT = 'perf-a1';
const TODAY = '2026-03-18';
const ADMIN: ScopeSubject = { isAdmin: true, dataPermissions: [] };
const ACCOUNT = { interest: 'INTEREST_INCOME', fees: 'FEE_INCOME', penalties: 'PENALTY_INCOME' } as const;

/**
 * The performance boards after a 25-month simulation through the engine (its daily closes write the
 * month-end snapshots and call the rollup writers): revenue equals the ledger's income accounts for
 * every month (closed months from the rollup, the current one live), a waiver and its reversal net
 * out; the portfolio composition adds up to the month's snapshots for every dimension; bullet loans:
 * due = by maturity + after + waived + outstanding + written off per week; a one-branch viewer sees
 * only their branch.
 */
describe.each(testDbKinds())('analytics performance boards on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let branch: { id: string; code: string };
  let viewer: ScopeSubject;
  const from = addMonthsTo(monthOf(TODAY), -25);
  const to = monthOf(TODAY);

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    await db.owner((tx) =>
      tx.query(
        `insert into tenants (id, slug, name, currency, time_zone, business_date) values ($1, 'perfa', 'Perf A', 'EUR', 'Europe/Paris', $2)`,
        [TENANT, TODAY],
      ),
    );
    await simulatePortfolio(db, { tenantId: TENANT, customers: 35, months: 25, seed: 'perf', today: TODAY });
    branch = await db.tenant(TENANT, async (tx) => {
      const rows = await tx.query<{ id: string; code: string }>(
        `select h.id::text as id, h.code from hierarchy_nodes h
          where h.level = 'branch' and exists (select 1 from loans l where l.customer_branch_id = h.id)
          order by h.code limit 1`,
      );
      return rows[0]!;
    });
    viewer = { isAdmin: false, dataPermissions: [{ field: 'branch', value: branch.code }] };
  }, 900_000);
  afterAll(() => drop?.());

  /** Income per month and type straight from the ledger (optionally for one branch's loans). */
  async function ledgerIncome(tx: Tx, branchId: string | null) {
    const rows = await tx.query<{ month: string; account_code: string; amount: string }>(
      `select to_char(e.entry_date, 'YYYY-MM') as month, jl.account_code, sum(jl.credit - jl.debit)::text as amount
         from journal_lines jl join journal_entries e on e.tenant_id = jl.tenant_id and e.id = jl.entry_id
         left join loans l on l.tenant_id = jl.tenant_id and l.id = jl.loan_id
        where jl.account_code in ('INTEREST_INCOME', 'FEE_INCOME', 'PENALTY_INCOME')
          and ($1::uuid is null or l.customer_branch_id = $1::uuid)
        group by 1, 2`,
      [branchId],
    );
    return new Map(rows.map((r) => [`${r.month}:${r.account_code}`, BigInt(r.amount)]));
  }

  const revenueOf = (subject: ScopeSubject, dimension: 'product' | 'branch') =>
    db.tenant(TENANT, (tx) =>
      loadRevenue(tx, subject, null, { tenantId: TENANT, currency: 'EUR', dimension, from, to }),
    );

  it('revenue: every month and income type equals the ledger, by product and by branch', async () => {
    const closed = await db.tenant(TENANT, (tx) => lastClosedMonthEnd(tx, TENANT));
    expect(closed).toBe(monthEndOf(addMonthsTo(to, -1)));
    const ledger = await db.tenant(TENANT, (tx) => ledgerIncome(tx, null));
    const byProduct = await revenueOf(ADMIN, 'product');
    const byBranch = await revenueOf(ADMIN, 'branch');
    expect(byProduct.liveMonths).toEqual([to]);
    let nonZero = 0;
    byProduct.months.forEach((month, i) => {
      for (const type of INCOME_TYPES) {
        const expected = ledger.get(`${month}:${ACCOUNT[type]}`) ?? 0n;
        expect(byProduct.totals[i]![type], `${month} ${type}`).toBe(expected);
        expect(byBranch.totals[i]![type], `${month} ${type}`).toBe(expected);
        const groups = byProduct.groups.reduce((s, g) => s + g.months[i]![type], 0n);
        expect(groups).toBe(expected);
        if (expected !== 0n) nonZero++;
      }
    });
    expect(nonZero).toBeGreaterThan(20);
    expect(byProduct.groups.length).toBeGreaterThanOrEqual(3);
    expect(byProduct.groups.every((g) => g.name !== null)).toBe(true);
  });

  it('revenue: the rollup equals the ledger after a rebuild, and a waiver and its reversal net out', async () => {
    const before = await revenueOf(ADMIN, 'product');
    await rebuildAnalytics(db, TENANT);
    expect((await revenueOf(ADMIN, 'product')).totals).toEqual(before.totals);
    const actor = { tenantId: TENANT, userId: 'perf-test', isAdmin: true, kind: 'system' as const };
    const waived = await db.tenant(TENANT, async (tx) => {
      const [loan] = await tx.query<{ id: string }>(
        `select l.id::text as id from loans l join loan_installments i on i.tenant_id = l.tenant_id and i.loan_id = l.id
          where l.status = 'ACTIVE' and i.interest_due - i.interest_paid - i.interest_waived - i.interest_written_off > 0
          order by l.account_no limit 1`,
      );
      const result = await waiveLoanInterest(tx, actor, { loanId: loan!.id, amount: 1n });
      return { loanId: loan!.id, transactionId: result.transaction.id as string };
    });
    const last = before.months.length - 1;
    const afterWaiver = await revenueOf(ADMIN, 'product');
    expect(afterWaiver.totals[last]!.interest).toBe(before.totals[last]!.interest - 1n);
    await db.tenant(TENANT, (tx) => reverseLoanTransaction(tx, actor, waived));
    expect((await revenueOf(ADMIN, 'product')).totals).toEqual(before.totals);
  });

  it('revenue: a one-branch viewer sees their branch only, equal to the ledger of its loans', async () => {
    const ledger = await db.tenant(TENANT, (tx) => ledgerIncome(tx, branch.id));
    const mine = await revenueOf(viewer, 'branch');
    expect(mine.groups.map((g) => g.key)).toEqual([branch.id]);
    mine.months.forEach((month, i) => {
      for (const type of INCOME_TYPES)
        expect(mine.totals[i]![type], `${month} ${type}`).toBe(ledger.get(`${month}:${ACCOUNT[type]}`) ?? 0n);
    });
    const all = await revenueOf(ADMIN, 'branch');
    expect(all.groups.length).toBeGreaterThan(1);
  });

  it('portfolio: every dimension adds up to the month-end snapshots, and the live month to the loans', async () => {
    const snapshots = await db.tenant(TENANT, (tx) =>
      tx.query<{ month: string; loans: number; principal: string }>(
        `select to_char(month_end, 'YYYY-MM') as month, count(*) filter (where principal_outstanding > 0)::int as loans,
                sum(principal_outstanding)::text as principal
           from loan_month_end_snapshots group by 1`,
      ),
    );
    const expected = new Map(snapshots.map((s) => [s.month, s]));
    const live = await db.tenant(TENANT, (tx) =>
      tx.query<{ loans: number; principal: string }>(
        `select count(*)::int as loans, sum(p)::text as principal from (
           select sum(i.principal_due - i.principal_paid - i.principal_written_off) as p
             from loans l join loan_installments i on i.tenant_id = l.tenant_id and i.loan_id = l.id
            where l.status = 'ACTIVE' group by l.id) x where p > 0`,
      ),
    );
    for (const dimension of PORTFOLIO_DIMENSIONS) {
      const p = await db.tenant(TENANT, (tx) =>
        loadPortfolio(tx, ADMIN, null, { tenantId: TENANT, currency: 'EUR', businessDate: TODAY, dimension, from, to }),
      );
      expect(p.live.at(-1)).toBe(true);
      p.months.forEach((month, i) => {
        const want = p.live[i] ? live[0]! : (expected.get(month) ?? { loans: 0, principal: '0' });
        expect(p.totals[i], `${dimension} ${month}`).toEqual({
          loans: want.loans,
          principal: BigInt(want.principal ?? 0),
        });
        const groups = p.groups.reduce((s, g) => s + g.months[i]!.principal, 0n);
        expect(groups).toBe(p.totals[i]!.principal);
      });
      expect(p.groups.length, dimension).toBeGreaterThan(1);
    }
    const mine = await db.tenant(TENANT, (tx) =>
      loadPortfolio(tx, viewer, null, {
        tenantId: TENANT,
        currency: 'EUR',
        businessDate: TODAY,
        dimension: 'branch',
        from,
        to,
      }),
    );
    expect(mine.groups.map((g) => g.key)).toEqual([branch.id]);
  });

  it('bullet loans: per week due = by maturity + after + waived + outstanding + written off; drill-down adds up', async () => {
    const period = { tenantId: TENANT, currency: 'EUR', businessDate: TODAY, from: '2024-02-12', to: '2026-06-28' };
    const bullet = await db.tenant(TENANT, (tx) => loadBullet(tx, ADMIN, null, period));
    const independent = await db.tenant(TENANT, (tx) =>
      tx.query<{ loans: number; due: string }>(
        `select count(distinct l.id)::int as loans, sum(i.principal_due + i.interest_due + i.fee_due + i.penalty_due)::text as due
           from loans l join loan_installments i on i.tenant_id = l.tenant_id and i.loan_id = l.id
          where l.number_of_repayments = 1 and l.disbursed_on is not null and l.maturity_date between $1 and $2`,
        [period.from, period.to],
      ),
    );
    expect(bullet.total.loans).toBe(independent[0]!.loans);
    expect(bullet.total.amounts.due).toBe(BigInt(independent[0]!.due));
    expect(bullet.total.loans).toBeGreaterThanOrEqual(3);
    expect(bullet.total.amounts.by_maturity).toBeGreaterThan(0n);
    for (const w of bullet.weeks) {
      const a = w.amounts;
      expect(a.due, w.week).toBe(a.by_maturity + a.after_maturity + a.waived + a.outstanding + a.written_off);
      expect(Object.values(w.outstandingBy).reduce((s, v) => s + v, 0n)).toBe(a.outstanding);
      for (const k of BULLET_AMOUNTS) expect(a[k] >= 0n, `${w.week} ${k}`).toBe(true);
    }
    const week = bullet.weeks.find((w) => w.loans > 0)!;
    const loans = await db.tenant(TENANT, (tx) => loadBulletWeekLoans(tx, ADMIN, null, { ...period, week: week.week }));
    expect(loans).toHaveLength(week.loans);
    for (const k of BULLET_AMOUNTS) expect(loans.reduce((s, l) => s + l.amounts[k], 0n)).toBe(week.amounts[k]);
    const mine = await db.tenant(TENANT, (tx) => loadBullet(tx, viewer, null, period));
    const theirs = await db.tenant(TENANT, (tx) =>
      tx.query<{ n: number }>(
        `select count(*)::int as n from loans where number_of_repayments = 1 and disbursed_on is not null
            and maturity_date between $1 and $2 and customer_branch_id = $3`,
        [period.from, period.to, branch.id],
      ),
    );
    expect(mine.total.loans).toBe(theirs[0]!.n);
    expect(mine.total.loans).toBeLessThan(bullet.total.loans);
  });
});
