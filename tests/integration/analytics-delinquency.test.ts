import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { simulatePortfolio } from '#lib/simulator/simulate.ts';
import {
  bucketKey,
  CLOSED,
  loadCellLoans,
  loadMatrix,
  WRITTEN_OFF,
  type MatrixFilters,
} from '#lib/analytics/delinquency.ts';
import { loadVintages, monthsOnBook, VINTAGE_MEASURES } from '#lib/analytics/vintage.ts';
import { rebuildAnalytics } from '#lib/analytics/rebuild.ts';
import { SNAPSHOT_FIELDS } from '#lib/analytics/snapshots.ts';
import type { ScopeSubject } from '#lib/tenancy/scope.ts';

const TODAY = '2026-03-15';
const T = 'dlq-a1';
const ADMIN: ScopeSubject = { isAdmin: true, dataPermissions: [] };

/**
 * Delinquency transitions and vintages on a simulated 25-month history, checked against the per-loan
 * month-end snapshots the daily close wrote (not against the rollups): each matrix row adds up to the
 * loans in that bucket at the start month ends, a cell's drill-down lists exactly its count, vintages
 * add up to the cohort's disbursements and never decrease; a one-branch viewer sees their branch's
 * share only; the snapshots rebuilt from history equal the close's on the fields history determines.
 */
describe.each(testDbKinds())('delinquency transitions and vintages on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let currency: string;
  let branch: { id: string; code: string };
  let branchViewer: ScopeSubject;
  let period: MatrixFilters;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    await db.owner((tx) =>
      tx.query(
        `insert into tenants (id, slug, name, currency, time_zone, business_date) values ($1, 'dlqa', 'Dlq A', 'EUR', 'Europe/Paris', $2)`,
        [T, TODAY],
      ),
    );
    // With every schedule change the simulator makes (tranches, progressive and cumulative recalculation,
    // reschedules, re-ages, re-amortisations): the last test rebuilds the month-end snapshots from
    // history, which reads the installments in force at each month end.
    await simulatePortfolio(db, { tenantId: T, customers: 35, months: 25, seed: 'dlq9', today: TODAY });
    currency = 'EUR';
    branch = await db.tenant(T, async (tx) => {
      const [b] = await tx.query<{ id: string; code: string }>(
        `select n.id::text as id, n.code from hierarchy_nodes n where n.level = 'branch'
          and exists (select 1 from loans l where l.customer_branch_id = n.id) order by n.code limit 1`,
      );
      return b!;
    });
    branchViewer = { isAdmin: false, dataPermissions: [{ field: 'branch', value: branch.code }] };
    period = { from: '2024-02-01', to: '2026-02-01', productId: null, branchId: null, currency };
  }, 900_000);
  afterAll(() => drop?.());

  /** Loans per bucket at each start month end, straight from the snapshots. */
  async function startBuckets(subjectBranch: string | null) {
    return db.tenant(T, async (tx) => {
      const mins = (
        await tx.query<{ min_days: number }>('select min_days from collection_buckets order by position')
      ).map((r) => r.min_days);
      const rows = await tx.query<{ past_due_days: number; principal: bigint }>(
        `select s.past_due_days, s.principal_outstanding as principal from loan_month_end_snapshots s join loans l on l.id = s.loan_id
          where s.status in ('ACTIVE', 'OVERPAID') and s.month_end >= '2024-02-29' and s.month_end <= '2026-01-31'
            and ($1::uuid is null or l.customer_branch_id = $1)`,
        [subjectBranch],
      );
      const byBucket = new Map<number, { loans: number; principal: bigint }>();
      for (const r of rows) {
        const code = r.past_due_days <= 0 ? 0 : Math.max(...mins.filter((m) => m <= r.past_due_days));
        const b = byBucket.get(code) ?? { loans: 0, principal: 0n };
        b.loans += 1;
        b.principal += BigInt(r.principal);
        byBucket.set(code, b);
      }
      return byBucket;
    });
  }

  it('each row of the matrix adds up to the loans in its bucket at the start month ends (count and amount)', async () => {
    const matrix = await db.tenant(T, (tx) => loadMatrix(tx, ADMIN, null, period));
    expect(matrix.monthEnds).toHaveLength(24);
    expect(matrix.liveMonths).toEqual([]);
    const expected = await startBuckets(null);
    // The simulation reaches every bucket and both exits.
    expect(matrix.rows.every((r) => r.loans > 0)).toBe(true);
    expect(matrix.rows.some((r) => r.cells.some((c) => c.to === CLOSED && c.loans > 0))).toBe(true);
    expect(matrix.rows.some((r) => r.cells.some((c) => c.to === WRITTEN_OFF && c.loans > 0))).toBe(true);
    for (const row of matrix.rows) {
      const want = expected.get(row.from.code) ?? { loans: 0, principal: 0n };
      expect({ bucket: row.from.key, loans: row.loans, principal: row.principal }).toEqual({
        bucket: row.from.key,
        ...want,
      });
      const rates = row.cells.reduce((s, c) => s + (c.countRate ?? 0), 0);
      expect(rates).toBeCloseTo(1, 9);
    }
    // The rollup answers what the snapshots answer when computed live (buckets changed → live path).
    await db.tenant(T, (tx) => tx.query(`update analytics_delinquency_months set bucket_mins = '{1}'`));
    const live = await db.tenant(T, (tx) => loadMatrix(tx, ADMIN, null, period));
    expect(live.liveMonths).toHaveLength(24);
    expect(live.rows).toEqual(matrix.rows);
    await rebuildAnalytics(db, T);
    expect((await db.tenant(T, (tx) => loadMatrix(tx, ADMIN, null, period))).liveMonths).toEqual([]);
  });

  it('the drill-down of a cell lists exactly the cell count, page by page', async () => {
    const matrix = await db.tenant(T, (tx) => loadMatrix(tx, ADMIN, null, period));
    const cells = matrix.rows.flatMap((r) => r.cells).filter((c) => c.loans > 0);
    expect(cells.length).toBeGreaterThan(5);
    for (const cell of cells) {
      const seen = new Set<string>();
      let principal = 0n;
      for (let offset = 0; ; offset += 50) {
        const page = await db.tenant(T, (tx) => loadCellLoans(tx, ADMIN, null, period, cell, { limit: 50, offset }));
        expect(page.total).toBe(cell.loans);
        for (const l of page.items) {
          seen.add(`${l.loanId}@${l.monthEnd}`);
          principal += l.principalStart;
        }
        if (page.items.length < 50) break;
      }
      expect({ cell: `${bucketKey(cell.from)}:${bucketKey(cell.to)}`, n: seen.size, principal }).toEqual({
        cell: `${bucketKey(cell.from)}:${bucketKey(cell.to)}`,
        n: cell.loans,
        principal: cell.principal,
      });
    }
  });

  it('a one-branch viewer sees only their branch, in the matrix and the drill-down', async () => {
    const [own, all, expected] = await Promise.all([
      db.tenant(T, (tx) => loadMatrix(tx, branchViewer, null, period)),
      db.tenant(T, (tx) => loadMatrix(tx, ADMIN, null, period)),
      startBuckets(branch.id),
    ]);
    const total = (m: typeof own) => m.rows.reduce((n, r) => n + r.loans, 0);
    expect(total(own)).toBeGreaterThan(0);
    expect(total(own)).toBeLessThan(total(all));
    for (const row of own.rows) expect(row.loans).toBe(expected.get(row.from.code)?.loans ?? 0);
    const scoped = await db.tenant(T, (tx) =>
      loadMatrix(tx, ADMIN, { hierarchy_level: 'branch', hierarchy_id: branch.id }, period),
    );
    expect(scoped.rows).toEqual(own.rows);
    const filtered = await db.tenant(T, (tx) => loadMatrix(tx, ADMIN, null, { ...period, branchId: branch.id }));
    expect(filtered.rows).toEqual(own.rows);
    const cell = own.rows[0]!.cells.find((c) => c.loans > 0)!;
    const page = await db.tenant(T, (tx) =>
      loadCellLoans(tx, branchViewer, null, period, cell, { limit: 500, offset: 0 }),
    );
    expect(page.total).toBe(cell.loans);
    const branches = await db.tenant(T, (tx) =>
      tx.query<{ b: string }>(`select distinct customer_branch_id::text as b from loans where id = any($1::uuid[])`, [
        page.items.map((l) => l.loanId),
      ]),
    );
    expect(branches.map((r) => r.b)).toEqual([branch.id]);
  });

  it('after a customer moves branch, the cells keep their month-end branch and each drill-down lists its cell', async () => {
    const filters = { ...period, branchId: branch.id };
    const [moved] = await db.tenant(T, (tx) =>
      tx.query<{ id: string }>(
        `select c.id::text as id from customers c
          where c.branch_id = $1 and exists (select 1 from loans l join loan_month_end_snapshots s on s.loan_id = l.id
            where l.customer_id = c.id and s.status in ('ACTIVE', 'OVERPAID') and s.month_end between '2024-02-29' and '2026-01-31')
          order by c.id limit 1`,
        [branch.id],
      ),
    );
    const [other] = await db.tenant(T, (tx) =>
      tx.query<{ id: string }>(
        `select id::text as id from hierarchy_nodes where level = 'branch' and id <> $1 order by code limit 1`,
        [branch.id],
      ),
    );
    const before = await db.tenant(T, (tx) => loadMatrix(tx, ADMIN, null, filters));
    const own = await db.tenant(T, (tx) => loadMatrix(tx, branchViewer, null, period));
    await db.tenant(T, (tx) => tx.query('update customers set branch_id = $1 where id = $2', [other!.id, moved!.id]));
    try {
      const movedLoans = new Set(
        (
          await db.tenant(T, (tx) =>
            tx.query<{ id: string }>('select id::text as id from loans where customer_id = $1', [moved!.id]),
          )
        ).map((r) => r.id),
      );
      expect(movedLoans.size).toBeGreaterThan(0);
      // The matrix counts each month end's scope copy: the move changes neither it nor the branch viewer's.
      const after = await db.tenant(T, (tx) => loadMatrix(tx, ADMIN, null, filters));
      expect(after.liveMonths).toEqual([]);
      expect(after.rows).toEqual(before.rows);
      expect((await db.tenant(T, (tx) => loadMatrix(tx, branchViewer, null, period))).rows).toEqual(own.rows);
      let listedMoved = 0;
      for (const cell of after.rows.flatMap((r) => r.cells).filter((c) => c.loans > 0)) {
        for (const subject of [ADMIN, branchViewer]) {
          const f = subject === ADMIN ? filters : period;
          const page = await db.tenant(T, (tx) =>
            loadCellLoans(tx, subject, null, f, cell, { limit: 10_000, offset: 0 }),
          );
          expect(page.total).toBe(cell.loans);
          expect(page.items.length).toBe(cell.loans);
          listedMoved += page.items.filter((l) => movedLoans.has(l.loanId)).length;
        }
      }
      // The moved customer's loans are still listed under the branch they were counted in.
      expect(listedMoved).toBeGreaterThan(0);
    } finally {
      await db.tenant(T, (tx) => tx.query('update customers set branch_id = $1 where id = $2', [branch.id, moved!.id]));
    }
  });

  it('vintages: each cohort is what its loans lent (tranches included); shares never decrease with months on book and stay ≤ 1', async () => {
    // A cohort's amount is its loans' principal: what they disbursed, plus the tranches still expected.
    const disbursed = await db.tenant(T, (tx) =>
      tx.query<{ cohort: string; loans: number; amount: bigint }>(
        `select to_char(date_trunc('month', l.disbursed_on), 'YYYY-MM-DD') as cohort, count(*)::int as loans,
                sum((select coalesce(sum(t.amount), 0) from loan_transactions t
                      where t.loan_id = l.id and t.type = 'DISBURSEMENT'
                        and not exists (select 1 from loan_transactions r where r.reverses_id = t.id))
                    + (select coalesce(sum(e.amount), 0) from loan_tranches e where e.loan_id = l.id and e.disbursed_on is null))::int8 as amount
           from loans l
          where l.disbursed_on < '2026-03-01'
          group by 1 order by 1`,
      ),
    );
    // The history has tranche loans whose later tranches came after their first month end.
    const [late] = await db.tenant(T, (tx) =>
      tx.query<{ n: number }>(
        `select count(*)::int as n from loan_tranches e join loans l on l.id = e.loan_id
          where e.number > 1 and e.disbursed_on > (date_trunc('month', l.disbursed_on) + interval '1 month - 1 day')::date`,
      ),
    );
    expect(late!.n).toBeGreaterThan(0);
    for (const measure of VINTAGE_MEASURES) {
      const cohorts = await db.tenant(T, (tx) =>
        loadVintages(tx, ADMIN, null, {
          from: '2024-01-01',
          to: '2026-02-01',
          productId: null,
          branchId: null,
          currency,
          measure,
        }),
      );
      expect(cohorts.map((c) => ({ cohort: c.cohort, loans: c.loans, amount: c.disbursed }))).toEqual(
        disbursed.filter((d) => d.cohort >= '2024-01-01').map((d) => ({ ...d, amount: BigInt(d.amount) })),
      );
      for (const c of cohorts) {
        const shares = c.shares.filter((s) => s !== undefined);
        expect(shares.length).toBe(monthsOnBook(c.cohort, '2026-02-28') + 1);
        for (let k = 0; k < shares.length; k++) {
          expect(shares[k]).toBeGreaterThanOrEqual(0);
          expect(shares[k]).toBeLessThanOrEqual(1);
          if (k > 0) expect(shares[k]).toBeGreaterThanOrEqual(shares[k - 1]!);
        }
      }
      if (measure === 'ever30') expect(cohorts.some((c) => c.shares.some((s) => s > 0))).toBe(true);
    }
    // A loan that reached 90+ also reached 30+: per cohort, 90+ ≤ 60+ ≤ 30+.
    const of = (measure: (typeof VINTAGE_MEASURES)[number]) =>
      db.tenant(T, (tx) =>
        loadVintages(tx, ADMIN, null, {
          from: '2024-01-01',
          to: '2026-02-01',
          productId: null,
          branchId: null,
          currency,
          measure,
        }),
      );
    const [e30, e90] = [await of('ever30'), await of('ever90')];
    e30.forEach((c, i) => c.amounts.forEach((a, k) => expect(e90[i]!.amounts[k]! <= a).toBe(true)));
  });

  it('vintages for a one-branch viewer are the branch cohorts only', async () => {
    const f = {
      from: '2024-01-01',
      to: '2026-02-01',
      productId: null,
      branchId: null,
      currency,
      measure: 'ever30' as const,
    };
    const own = await db.tenant(T, (tx) => loadVintages(tx, branchViewer, null, f));
    const want = await db.tenant(T, (tx) =>
      tx.query<{ n: number }>(
        `select count(*)::int as n from loans where disbursed_on between '2024-01-01' and '2026-02-28' and customer_branch_id = $1`,
        [branch.id],
      ),
    );
    expect(own.reduce((n, c) => n + c.loans, 0)).toBe(want[0]!.n);
  });

  // Last: it rewrites the snapshots.
  it('snapshots rebuilt from history equal the ones the daily close wrote; the boards read the same', async () => {
    const read = () =>
      db.tenant(T, (tx) =>
        tx.query<Record<string, unknown>>(
          `select loan_id::text as loan_id, to_char(month_end, 'YYYY-MM-DD') as month_end, ${SNAPSHOT_FIELDS.join(', ')}
             from loan_month_end_snapshots order by month_end, loan_id`,
        ),
      );
    const byClose = await read();
    // The history rewrote schedules after disbursement (a tranche, recalculated interest, a reschedule of a personal
    // loan, re-ages of "pay in four" loans whose borrowers then paid), so month ends before a rewrite must be rebuilt
    // from the installments it replaced, not today's.
    const [rewrites] = await db.tenant(T, (tx) =>
      tx.query<{ loans: number; kinds: string[]; paid_after_reage: number }>(
        `select count(distinct v.loan_id)::int as loans, array_agg(distinct p.code order by p.code) as kinds,
                (select count(distinct r.loan_id)::int from loan_transactions r join loan_transactions x
                   on x.loan_id = r.loan_id and x.type = 'REPAYMENT' and x.seq > r.seq
                  where r.type = 'REAGE' and x.transaction_date <= '2026-02-28') as paid_after_reage
           from loan_schedule_versions v join loans l on l.id = v.loan_id join loan_products p on p.id = l.product_id
          where v.replaced_on <= '2026-02-28'`,
      ),
    );
    expect(rewrites!.loans).toBeGreaterThan(3);
    expect(rewrites!.kinds).toEqual(['SIM-BNPL', 'SIM-CRECALC', 'SIM-EMI', 'SIM-RECALC', 'SIM-TRANCHE']);
    expect(rewrites!.paid_after_reage).toBeGreaterThan(0);
    const matrixBefore = await db.tenant(T, (tx) => loadMatrix(tx, ADMIN, null, period));
    const f = {
      from: '2024-01-01',
      to: '2026-02-01',
      productId: null,
      branchId: null,
      currency,
      measure: 'ever30' as const,
    };
    const vintagesBefore = await db.tenant(T, (tx) => loadVintages(tx, ADMIN, null, f));
    const result = await rebuildAnalytics(db, T, { snapshots: true });
    expect(result.snapshots).toBe(byClose.length);
    const rebuilt = await read();
    expect(rebuilt.length).toBe(byClose.length);
    const key = (r: Record<string, unknown>) => `${r.month_end}/${r.loan_id}`;
    const closeRows = new Map(byClose.map((r) => [key(r), r]));
    const differences: string[] = [];
    for (const r of rebuilt) {
      const c = closeRows.get(key(r));
      if (!c) {
        differences.push(`${key(r)}: not written by the close`);
        continue;
      }
      for (const field of SNAPSHOT_FIELDS)
        if (String(c[field]) !== String(r[field]))
          differences.push(`${key(r)} ${field}: close ${c[field]} rebuilt ${r[field]}`);
    }
    expect(differences).toEqual([]);
    expect((await db.tenant(T, (tx) => loadMatrix(tx, ADMIN, null, period))).rows).toEqual(matrixBefore.rows);
    expect(await db.tenant(T, (tx) => loadVintages(tx, ADMIN, null, f))).toEqual(vintagesBefore);
  });
});
