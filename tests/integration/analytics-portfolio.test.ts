import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, Tx } from '#lib/db/index.ts';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { snapshotMonthEnds } from '#lib/analytics/month-end.ts';
import { rebuildAnalytics } from '#lib/analytics/rebuild.ts';
import { loadPortfolioBoard, resolvePortfolioDate, type PortfolioDate } from '#lib/analytics/portfolio.ts';
import { simulatePortfolio } from '#lib/simulator/simulate.ts';
import type { ScopeSubject } from '#lib/tenancy/scope.ts';

const TENANT = 'pf-a1';
const TODAY = '2026-03-15';
const ADMIN: ScopeSubject = { isAdmin: true, dataPermissions: [] };

/**
 * Each loan's principal outstanding at a date, computed independently of the installments, the
 * snapshots and the facts: disbursed − principal repaid − principal written off, from the loan
 * transactions dated on or before the date, a reversed transaction (and the reversal) excluded.
 */
const PRINCIPAL_AT = `
  select t.loan_id,
         sum(case t.type when 'DISBURSEMENT' then t.amount else -t.principal_portion end)::int8 as principal
    from loan_transactions t
   where t.type in ('DISBURSEMENT', 'REPAYMENT', 'WRITE_OFF') and t.transaction_date <= $1::date
     and not exists (select 1 from loan_transactions r where r.tenant_id = t.tenant_id and r.reverses_id = t.id)
   group by t.loan_id`;

async function independentOutstanding(tx: Tx, date: string, branchId?: string): Promise<bigint> {
  const [row] = await tx.query<{ total: bigint }>(
    `select coalesce(sum(p.principal), 0)::int8 as total from (${PRINCIPAL_AT}) p
       join loans l on l.id = p.loan_id where ($2::uuid is null or l.customer_branch_id = $2::uuid)`,
    [date, branchId ?? null],
  );
  return BigInt(row.total);
}

/**
 * After a two-year simulation through the real engine and daily close: the month-end facts and the
 * business-date figures reconcile with the loans' own transactions; a one-branch viewer sees only
 * their branch, and the branches add up to the whole.
 */
describe.each(testDbKinds())('portfolio analytics on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let monthEnds: string[];
  let businessDate: string;
  let branches: { id: string; code: string }[];

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    await db.owner((tx) =>
      tx.query(
        `insert into tenants (id, slug, name, currency, time_zone, business_date) values ($1, 'pfa', 'Portfolio A', 'EUR', 'Europe/Paris', $2)`,
        [TENANT, TODAY],
      ),
    );
    await simulatePortfolio(db, {
      tenantId: TENANT,
      customers: 35,
      months: 25,
      seed: 'portfolio',
      today: TODAY,
      overdueSamples: [10, 45, 100],
    });
    await db.tenant(TENANT, async (tx) => {
      monthEnds = await snapshotMonthEnds(tx);
      const [t] = await tx.query<{ d: string }>(`select to_char(business_date, 'YYYY-MM-DD') as d from tenants`);
      businessDate = t.d;
      branches = await tx.query<{ id: string; code: string }>(
        `select id::text as id, code from hierarchy_nodes where level = 'branch' order by code`,
      );
    });
  }, 600_000);
  afterAll(() => drop?.());

  const board = (subject: ScopeSubject, at: PortfolioDate, group: 'all' | 'product' | 'branch' = 'all') =>
    db.tenant(TENANT, (tx) =>
      loadPortfolioBoard(tx, subject, null, { at, currency: 'EUR', group, from: null, to: null }),
    );

  it('writes facts for every month end of the history, with loans in arrears and write-offs', async () => {
    expect(monthEnds.length).toBeGreaterThanOrEqual(24);
    const [f] = await db.tenant(TENANT, (tx) =>
      tx.query<{ months: number; late: number; written_off: number }>(
        `select count(distinct month_end)::int as months, count(*) filter (where dpd_band > 0)::int as late,
                sum(written_off_count)::int as written_off from analytics_month_facts`,
      ),
    );
    expect(f.months).toBe(monthEnds.length);
    expect(f.late).toBeGreaterThan(0);
    expect(f.written_off).toBeGreaterThan(0);
  });

  it("at every month end, the facts' principal outstanding is the sum of the loans' outstanding from their transactions", async () => {
    await db.tenant(TENANT, async (tx) => {
      for (const monthEnd of monthEnds) {
        const [f] = await tx.query<{ principal: bigint; active: number }>(
          `select coalesce(sum(principal_outstanding), 0)::int8 as principal, coalesce(sum(active_loans), 0)::int as active
             from analytics_month_facts where month_end = $1::date`,
          [monthEnd],
        );
        expect({ monthEnd, principal: BigInt(f.principal) }).toEqual({
          monthEnd,
          principal: await independentOutstanding(tx, monthEnd),
        });
        // Active loans at the month end: disbursed by then, not closed or written off by then.
        const [a] = await tx.query<{ n: number }>(
          `select count(*)::int as n from loans where disbursed_on <= $1::date
              and coalesce(closed_on, written_off_on, 'infinity'::date) > $1::date
              and status in ('ACTIVE', 'CLOSED_OBLIGATIONS_MET', 'OVERPAID', 'CLOSED_WRITTEN_OFF')`,
          [monthEnd],
        );
        expect({ monthEnd, active: f.active }).toEqual({ monthEnd, active: a.n });
      }
    });
  });

  it("the month's disbursed, written-off and collected amounts are the month's non-reversed transactions", async () => {
    await db.tenant(TENANT, async (tx) => {
      const facts = await tx.query<{ m: string; disbursed: bigint; written_off: bigint; collected: bigint }>(
        `select to_char(month_end, 'YYYY-MM') as m, sum(disbursed_amount)::int8 as disbursed,
                sum(written_off_principal)::int8 as written_off, sum(collected_total)::int8 as collected
           from analytics_month_facts group by 1 order by 1`,
      );
      const moves = await tx.query<{ m: string; disbursed: bigint; written_off: bigint; collected: bigint }>(
        `select to_char(t.transaction_date, 'YYYY-MM') as m,
                coalesce(sum(t.amount) filter (where t.type = 'DISBURSEMENT'), 0)::int8 as disbursed,
                coalesce(sum(t.principal_portion) filter (where t.type = 'WRITE_OFF'), 0)::int8 as written_off,
                coalesce(sum(t.amount) filter (where t.type = 'REPAYMENT'), 0)::int8 as collected
           from loan_transactions t
          where t.transaction_date <= $1::date
            and not exists (select 1 from loan_transactions r where r.tenant_id = t.tenant_id and r.reverses_id = t.id)
          group by 1 order by 1`,
        [monthEnds.at(-1)],
      );
      const norm = (rows: typeof facts) =>
        rows
          .map((r) => ({
            m: r.m,
            disbursed: BigInt(r.disbursed),
            written_off: BigInt(r.written_off),
            collected: BigInt(r.collected),
          }))
          .filter((r) => r.disbursed + r.written_off + r.collected > 0n);
      expect(norm(facts)).toEqual(norm(moves));
    });
  });

  it("at the business date, the figures are the loans' outstanding and the close's days past due", async () => {
    const { total } = await board(ADMIN, { date: businessDate, isMonthEnd: false });
    await db.tenant(TENANT, async (tx) => {
      expect(total.figures.outstandingPrincipal).toBe(await independentOutstanding(tx, businessDate));
      const [d] = await tx.query<{ active: number; par1: number; par30: number; par30_amount: bigint; par90: number }>(
        `select count(*)::int as active,
                count(*) filter (where d.past_due_days > 0)::int as par1,
                count(*) filter (where d.past_due_days > 30)::int as par30,
                coalesce(sum(p.principal) filter (where d.past_due_days > 30), 0)::int8 as par30_amount,
                count(*) filter (where d.past_due_days > 90)::int as par90
           from loans l
           left join loan_delinquency d on d.loan_id = l.id and d.as_of = $1::date
           join (${PRINCIPAL_AT}) p on p.loan_id = l.id
          where l.status = 'ACTIVE'`,
        [businessDate],
      );
      expect(total.figures.activeLoans).toBe(d.active);
      expect(total.figures.par[1].loans).toBe(d.par1);
      expect(total.figures.par[30].loans).toBe(d.par30);
      expect(total.figures.par[30].amount).toBe(BigInt(d.par30_amount));
      expect(total.figures.par[90].loans).toBe(d.par90);
      expect(d.par1).toBeGreaterThan(0);
    });
    expect(total.figures.par[30].rate).toBeGreaterThan(0);
    expect(total.yield).toBeGreaterThan(0);
  });

  it('a month end reads the facts; the trend has the same figures as each month end', async () => {
    const monthEnd = monthEnds.at(-3)!;
    const at = await db.tenant(TENANT, (tx) => resolvePortfolioDate(tx, monthEnd, businessDate));
    expect(at).toEqual({ date: monthEnd, isMonthEnd: true });
    const atMonth = await board(ADMIN, at);
    const trend = await board(ADMIN, { date: businessDate, isMonthEnd: false });
    const same = trend.total.months.find((m) => m.monthEnd === monthEnd)!;
    expect(same.outstandingPrincipal).toBe(atMonth.total.figures.outstandingPrincipal);
    expect(same.par[30]).toEqual(atMonth.total.figures.par[30]);
    await db.tenant(TENANT, async (tx) =>
      expect(atMonth.total.figures.outstandingPrincipal).toBe(await independentOutstanding(tx, monthEnd)),
    );
  });

  it('refuses a date that is neither the business date nor a month end with snapshots, naming date', async () => {
    for (const bad of ['2026-03-10', '2020-01-31', '2026-02-30', 'yesterday', '2026-03-31']) {
      const error = await db
        .tenant(TENANT, (tx) => resolvePortfolioDate(tx, bad, businessDate))
        .then(() => null)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).field).toBe('date');
    }
  });

  it('by product and by branch the parts add up to the whole, at the date and in every month', async () => {
    const at = { date: businessDate, isMonthEnd: false };
    const whole = await board(ADMIN, at);
    for (const group of ['product', 'branch'] as const) {
      const grouped = await board(ADMIN, at, group);
      expect(grouped.parts.length).toBeGreaterThan(1);
      expect(grouped.total.figures).toEqual(whole.total.figures);
      expect(grouped.total.months.map((m) => m.outstandingPrincipal)).toEqual(
        whole.total.months.map((m) => m.outstandingPrincipal),
      );
      expect(grouped.total.yield).toBe(whole.total.yield);
    }
  });

  it('a one-branch viewer sees only their branch, now and in the history', async () => {
    const at = { date: businessDate, isMonthEnd: false };
    const byBranch = await board(ADMIN, at, 'branch');
    for (const branch of branches) {
      const viewer: ScopeSubject = { isAdmin: false, dataPermissions: [{ field: 'branch', value: branch.code }] };
      const own = await board(viewer, at, 'branch');
      expect(own.parts.map((p) => p.key)).toEqual(own.parts.length ? [branch.id] : []);
      const adminPart = byBranch.parts.find((p) => p.key === branch.id);
      const mine = await board(viewer, at);
      expect(mine.total.figures.outstandingPrincipal).toBe(adminPart?.figures.outstandingPrincipal ?? 0n);
      expect(mine.total.months.map((m) => m.outstandingPrincipal)).toEqual(
        adminPart?.months.map((m) => m.outstandingPrincipal) ?? mine.total.months.map(() => 0n),
      );
      await db.tenant(TENANT, async (tx) =>
        expect(mine.total.figures.outstandingPrincipal).toBe(await independentOutstanding(tx, businessDate, branch.id)),
      );
    }
  });

  it('analytics:rebuild rewrites the same facts', async () => {
    const read = () =>
      db.tenant(TENANT, (tx) =>
        tx.query(
          `select month_end::text, product_id::text, customer_branch_id::text, customer_officer_id::text, officer_id::text, dpd_band,
                  loans, active_loans, principal_outstanding, total_outstanding, disbursed_count, disbursed_amount,
                  written_off_count, written_off_principal, collected_principal, collected_interest, collected_fees,
                  collected_penalties, collected_total
             from analytics_month_facts order by 1, 2, 3, 4, 5, 6`,
        ),
      );
    const before = await read();
    const result = await rebuildAnalytics(db, TENANT);
    expect(result.monthEnds).toBe(monthEnds.length);
    expect(await read()).toEqual(before);
  });
});
