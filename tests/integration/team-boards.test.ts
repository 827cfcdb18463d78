import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, Tx } from '#lib/db/index.ts';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import { DEMO_TENANTS, seedDemo } from '#lib/seed/demo.ts';
import {
  loadOverview,
  LOAN_SCOPE_COLUMNS,
  scopeCondition,
  TASK_SCOPE_COLUMNS,
  type Overview,
} from '#lib/boards/overview.ts';
import { exportTable, loadPerformance, totalOf, PERFORMANCE_COLUMNS } from '#lib/boards/performance.ts';
import { toCsv } from '#lib/exports/table-download.ts';
import { findListByPath } from '#lib/lists/registry.ts';
import { parseListState } from '#lib/lists/url-state.ts';
import { countTabs, loadPage } from '#lib/lists/query.ts';
import { loadScopeSubject, resolveRowScope, type ScopeSubject } from '#lib/lists/row-scope.ts';
import { resolveScopeNodes, type Scope } from '#lib/tenancy/scope.ts';
import { businessDate } from '#lib/tenancy/tenant.ts';

const A = DEMO_TENANTS.demo;

/**
 * The boards on the seeded demo tenant (its history puts loans of every branch in every default
 * bucket): every overview figure equals the count (and sum) of the list its link opens, for an
 * administrator and the one-branch officer; PAR against the daily close's own days past due; the
 * performance board's groupings add up to the same totals; a one-branch user sees only their branch.
 */
describe.each(testDbKinds())('team boards on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let admin: ScopeSubject;
  let officer: ScopeSubject;
  let today: string;
  let branches: Record<string, string>;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    // The simulated history (off for the other integration tests) is what the boards are about.
    const history = process.env.DEMO_HISTORY;
    process.env.DEMO_HISTORY = '1';
    try {
      await seedDemo(db, { password: 'Boards-Test-Passphrase-1' });
    } finally {
      process.env.DEMO_HISTORY = history;
    }
    await db.tenant(A, async (tx) => {
      const id = async (email: string) =>
        (await tx.query<{ id: string }>('select id::text as id from users where lower(email) = $1', [email]))[0]!.id;
      admin = await loadScopeSubject(tx, await id('admin@demo.test'));
      officer = await loadScopeSubject(tx, await id('officer@demo.test'));
      today = await businessDate(tx, A);
      const rows = await tx.query<{ code: string; id: string }>(
        `select code, id::text as id from hierarchy_nodes where level = 'branch'`,
      );
      branches = Object.fromEntries(rows.map((r) => [r.code, r.id]));
    });
  }, 180_000);

  afterAll(async () => {
    await drop?.();
  });

  const overviewOf = (subject: ScopeSubject, scope: Scope | null = null) =>
    db.tenant(A, (tx) => loadOverview(tx, subject, scope, today));

  /** What the list behind a board link shows to the subject: its tab's count and its rows (one page). */
  async function listBehind(tx: Tx, subject: ScopeSubject, href: string) {
    const url = new URL(href, 'http://x');
    const found = findListByPath(url.pathname);
    if (!found) throw new Error(`no list at ${url.pathname}`);
    const { state, issues } = parseListState(found.entry.def, url.searchParams);
    expect(issues).toEqual([]);
    state.limit = 100;
    const options = {
      businessDate: today,
      currencyDigits: 2,
      rowScope: await resolveRowScope(tx, subject, state.scope),
    };
    const counts = await countTabs(tx, found.entry.def, state, options);
    const page = await loadPage(tx, found.entry.def, state, options);
    expect(page.hasNext).toBe(false);
    const sum = (key: string) => page.rows.reduce((acc, r) => acc + BigInt(r.values[key] as string | number), 0n);
    return { count: counts[state.tab]!, rows: page.rows.length, sum };
  }

  async function expectFiguresEqualLists(subject: ScopeSubject, board: Overview, scope: Scope | null = null) {
    await db.tenant(A, async (tx) => {
      const active = await listBehind(tx, subject, board.activeLoans.href);
      expect(active.count).toBe(board.activeLoans.count);
      expect(active.sum('outstanding')).toBe(board.activeLoans.outstanding);

      const disbursed = await listBehind(tx, subject, board.disbursed.href);
      expect(disbursed.count).toBe(board.disbursed.count);
      expect(disbursed.sum('principal')).toBe(board.disbursed.amount);

      for (const par of [board.par.par1, board.par.par30, board.par.par90]) {
        const list = await listBehind(tx, subject, par.href);
        expect(list.count).toBe(par.loans);
        expect(list.sum('outstanding')).toBe(par.amount);
      }
      for (const unpaid of [board.collection.unpaidLate, board.collection.unpaidExpected]) {
        expect((await listBehind(tx, subject, unpaid.href)).count).toBe(unpaid.count);
      }
      expect((await listBehind(tx, subject, board.offersToPropose.href)).count).toBe(board.offersToPropose.count);

      // Promises and tasks: their pages belong to other parts of issue 14; the rows they read, here.
      const nodes = await resolveScopeNodes(tx, subject, scope);
      const [{ n: promises }] = await tx.query<{ n: number }>(
        `select count(*)::int as n from collection_activities p join loans l on l.id = p.loan_id
          where p.kind = 'promise' and p.promise_status = 'open' and p.promise_date = $1::date
            and ${scopeCondition(LOAN_SCOPE_COLUMNS, nodes, '$2')}`,
        [today, nodes ?? []],
      );
      expect(board.promisesDueToday.count).toBe(promises);
      expect(board.promisesDueToday.href).toMatch(/^\/loans\/collection\?promise=today/);
      const [{ n: tasks }] = await tx.query<{ n: number }>(
        `select count(*)::int as n from tasks t where t.status in ('open', 'in_progress') and t.due_date <= $1::date
            and ${scopeCondition(TASK_SCOPE_COLUMNS, nodes, '$2')}`,
        [today, nodes ?? []],
      );
      expect(board.tasksDue.count).toBe(tasks);
      expect(board.tasksDue.href).toMatch(/^\/loans\/tasks\?tab=overdue/);
    });
  }

  it('overview figures equal the lists they link to, for an administrator', async () => {
    const board = await overviewOf(admin);
    // The demo has something behind every figure.
    expect(board.activeLoans.count).toBeGreaterThan(10);
    expect(board.par.par90.loans).toBeGreaterThanOrEqual(3);
    expect(board.promisesDueToday.count).toBeGreaterThan(0);
    expect(board.tasksDue.count).toBeGreaterThan(0);
    expect(board.offersToPropose.count).toBeGreaterThan(0);
    expect(board.collection.collected).toBeGreaterThanOrEqual(0n);
    await expectFiguresEqualLists(admin, board);
  });

  it('overview figures equal the lists they link to, for the one-branch officer (and with a scope)', async () => {
    const board = await overviewOf(officer);
    expect(board.activeLoans.count).toBeGreaterThan(0);
    expect(board.par.par30.loans).toBeGreaterThan(0);
    await expectFiguresEqualLists(officer, board);
    const scope: Scope = { hierarchy_level: 'branch', hierarchy_id: branches['PAR-01']! };
    const scoped = await overviewOf(admin, scope);
    expect(scoped.activeLoans.href).toContain(`scope=branch:${branches['PAR-01']}`);
    await expectFiguresEqualLists(admin, scoped, scope);
    expect(scoped.activeLoans.count).toBe(board.activeLoans.count);
    expect(scoped.par.par30.amount).toBe(board.par.par30.amount);
  });

  it('PAR is the share of the outstanding over 0 / 30 / 90 days past due, as the daily close counts them', async () => {
    for (const subject of [admin, officer]) {
      const board = await overviewOf(subject);
      const byHand = await db.tenant(A, async (tx) => {
        const nodes = await resolveScopeNodes(tx, subject, null);
        return tx.query<{ outstanding: string; past_due_days: number; as_of: string | null }>(
          `select l.outstanding::text as outstanding, coalesce(d.past_due_days, 0) as past_due_days, d.as_of::text as as_of
             from loans l left join loan_delinquency d on d.loan_id = l.id
            where l.status = 'ACTIVE' and ${scopeCondition(LOAN_SCOPE_COLUMNS, nodes, '$1')}`,
          [nodes ?? []],
        );
      });
      const total = byHand.reduce((a, r) => a + BigInt(r.outstanding), 0n);
      for (const [min, figure] of [
        [0, board.par.par1],
        [30, board.par.par30],
        [90, board.par.par90],
      ] as const) {
        const over = byHand.filter((r) => r.past_due_days > min && r.as_of === today);
        const amount = over.reduce((a, r) => a + BigInt(r.outstanding), 0n);
        expect(figure.loans).toBe(over.length);
        expect(figure.amount).toBe(amount);
        expect(figure.rate).toBeCloseTo(Number(amount) / Number(total), 3);
      }
    }
    // The demo's samples: every branch has a loan in each default bucket (12, 45, 75, 105 days).
    const officerBoard = await overviewOf(officer);
    expect(officerBoard.par.par1.loans).toBeGreaterThanOrEqual(4);
    expect(officerBoard.par.par30.loans).toBeGreaterThanOrEqual(3);
    expect(officerBoard.par.par90.loans).toBeGreaterThanOrEqual(1);
  });

  it('performance by officer adds up to the totals by branch, for both viewers', async () => {
    const from = '2000-01-01';
    for (const subject of [admin, officer]) {
      const [byOfficer, byBranch] = await db.tenant(A, async (tx) =>
        Promise.all(
          (['officer', 'branch'] as const).map((group) =>
            loadPerformance(tx, subject, null, today, 'Europe/Paris', {
              group,
              from,
              to: today,
              sort: { key: 'name', dir: 'asc' },
            }),
          ),
        ),
      );
      const a = totalOf(byOfficer!);
      const b = totalOf(byBranch!);
      expect(a).toEqual(b);
      expect(a.disbursed_count).toBeGreaterThan(0);
      expect(a.collected).toBeGreaterThan(0n);
      expect(a.tasks_done).toBeGreaterThan(0);
      // The same loans as the overview: the PAR30 amount at the business date.
      expect(a.par30_amount).toBe((await overviewOf(subject)).par.par30.amount);
    }
  });

  it('a one-branch user never sees another branch', async () => {
    const rows = await db.tenant(A, (tx) =>
      loadPerformance(tx, officer, null, today, 'Europe/Paris', {
        group: 'branch',
        from: '2000-01-01',
        to: today,
        sort: { key: 'disbursed_amount', dir: 'desc' },
      }),
    );
    expect(rows.map((r) => r.nodeId)).toEqual([branches['PAR-01']]);
    // A scope outside the officer's branch shows nothing (a scope only narrows).
    const outside = await overviewOf(officer, { hierarchy_level: 'branch', hierarchy_id: branches['PAR-02']! });
    expect(outside.activeLoans.count).toBe(0);
    expect(outside.par.par1.loans).toBe(0);
    expect(outside.offersToPropose.count).toBe(0);
    expect(outside.promisesDueToday.count).toBe(0);
    const all = await overviewOf(admin);
    const mine = await overviewOf(officer);
    expect(mine.activeLoans.count).toBeLessThan(all.activeLoans.count);
  });

  it('sorts and exports the performance table', async () => {
    const rows = await db.tenant(A, (tx) =>
      loadPerformance(tx, admin, null, today, 'Europe/Paris', {
        group: 'branch',
        from: '2000-01-01',
        to: today,
        sort: { key: 'disbursed_amount', dir: 'desc' },
      }),
    );
    expect(rows.length).toBeGreaterThanOrEqual(3);
    const amounts = rows.map((r) => r.disbursed_amount);
    expect([...amounts].sort((x, y) => (x < y ? 1 : x > y ? -1 : 0))).toEqual(amounts);
    const headers = Object.fromEntries(PERFORMANCE_COLUMNS.map((k) => [k, k.toUpperCase()])) as Record<
      (typeof PERFORMANCE_COLUMNS)[number],
      string
    >;
    const csv = toCsv(exportTable(rows, headers, 'EUR', 'none'));
    const lines = csv
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split('\r\n');
    expect(lines[0]).toBe(PERFORMANCE_COLUMNS.map((k) => k.toUpperCase()).join(','));
    expect(lines).toHaveLength(rows.length + 1);
    expect(lines[1]!.split(',')[2]).toBe((Number(rows[0]!.disbursed_amount) / 100).toFixed(2));
  });
});
