import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '#lib/db/index.ts';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import { DEMO_TENANTS, seedDemo } from '#lib/seed/demo.ts';
import { actorFromPrincipal } from '#lib/lending/actor.ts';
import { runCommand } from '#lib/http/command.ts';
import { loadBoardMetrics, metricValue, saveMetricCommand, deleteMetricCommand } from '#lib/analytics/metrics.ts';
import { runReport, saveReportCommand } from '#lib/analytics/reports.ts';
import { findDataset } from '#lib/analytics/datasets.ts';
import { iterateRows } from '#lib/lists/query.ts';
import { defaultListState, parseFilter, type ParsedFilter } from '#lib/lists/url-state.ts';
import { loadScopeSubject, resolveRowScope, type ScopeSubject } from '#lib/lists/row-scope.ts';
import { featureForRoute } from '#lib/plans/feature-routes.ts';
import { DEMO_PLANS, featureAccess, setTenantPlan } from '#lib/plans/plans.ts';
import { businessDate } from '#lib/tenancy/tenant.ts';
import { AppError } from '#lib/errors/app-error.ts';
import type { Principal } from '#lib/auth/principal.ts';
import { DEMO_ROLES, type PermissionSubject } from '#lib/auth/permissions.ts';

const A = DEMO_TENANTS.demo;
const B = DEMO_TENANTS.acme;

/**
 * Reports and custom metrics on the seeded demo tenant (with its simulated history): a report's sums
 * equal the sums of the list rows it groups; a ratio metric equals numerator / denominator computed
 * from the rows; a one-branch viewer's report covers their branch only; the report routes belong to
 * the analytics_reports plan feature.
 */
describe.each(testDbKinds())('analytics reports and metrics on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let admin: ScopeSubject & PermissionSubject & { id: string };
  let officer: ScopeSubject & PermissionSubject & { id: string };
  let today: string;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    // A short simulated history (a few customers, two months) gives loans of several products and
    // branches, some overdue: enough for the reconciliations, fast enough for both engines.
    const saved = {
      h: process.env.DEMO_HISTORY,
      c: process.env.DEMO_HISTORY_CUSTOMERS,
      m: process.env.DEMO_HISTORY_MONTHS,
    };
    Object.assign(process.env, { DEMO_HISTORY: '1', DEMO_HISTORY_CUSTOMERS: '10', DEMO_HISTORY_MONTHS: '3' });
    try {
      await seedDemo(db, { password: 'Reports-Test-Passphrase-1' });
    } finally {
      for (const [k, v] of [
        ['DEMO_HISTORY', saved.h],
        ['DEMO_HISTORY_CUSTOMERS', saved.c],
        ['DEMO_HISTORY_MONTHS', saved.m],
      ] as const)
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
    await db.tenant(A, async (tx) => {
      const id = async (email: string) =>
        (await tx.query<{ id: string }>('select id::text as id from users where lower(email) = $1', [email]))[0]!.id;
      const adminId = await id('admin@demo.test');
      const officerId = await id('officer@demo.test');
      admin = { ...(await loadScopeSubject(tx, adminId)), authorities: [], id: adminId };
      // What the officer's role grants (a dataset needs its list's permission).
      officer = {
        ...(await loadScopeSubject(tx, officerId)),
        authorities: [...DEMO_ROLES.loan_officer.authorities],
        id: officerId,
      };
      today = await businessDate(tx, A);
    });
  }, 600_000);

  afterAll(async () => {
    await drop?.();
  });

  /** A principal good enough for runCommand (permissions of an administrator). */
  const principalOf = (subject: ScopeSubject & PermissionSubject & { id: string }): Principal =>
    ({
      tenantId: A,
      userId: subject.id,
      isAdmin: true,
      authorities: [],
      dataPermissions: subject.dataPermissions,
      via: 'session',
    }) as unknown as Principal;

  const run = <I, O>(command: Parameters<typeof runCommand<I, O>>[1], input: unknown) => {
    const principal = principalOf(admin);
    return runCommand({ db, actor: actorFromPrincipal(principal), permissionSubject: principal }, command, () => input);
  };

  /** Every loan row the list shows to `subject` for these filters (not one page: all of them). */
  async function loanRows(subject: ScopeSubject, filters: Record<string, string>) {
    const def = findDataset('loans')!.def;
    const state = defaultListState(def);
    state.tab = 'all';
    state.columns = ['product', 'branch', 'principal', 'outstanding', 'days_past_due'];
    state.filters = Object.fromEntries(Object.entries(filters).map(([k, v]) => [k, parseFilter(def, k, v)!])) as Record<
      string,
      ParsedFilter
    >;
    const rowScope = await db.tenant(A, (tx) => resolveRowScope(tx, subject, null));
    const out = [];
    for await (const batch of iterateRows((fn) => db.tenant(A, fn), def, state, {
      businessDate: today,
      currencyDigits: 2,
      rowScope,
    }))
      out.push(...batch);
    return out;
  }

  it('sums a report grouped by product exactly as the list rows add up', async () => {
    const filters = { days_past_due: '1..' };
    const rows = await loanRows(admin, filters);
    expect(rows.length).toBeGreaterThan(0);
    const expected = new Map<string, { n: number; principal: bigint }>();
    for (const r of rows) {
      const key = String(r.values.product);
      const e = expected.get(key) ?? { n: 0, principal: 0n };
      e.n += 1;
      e.principal += BigInt(String(r.values.principal));
      expected.set(key, e);
    }
    const result = await db.tenant(A, (tx) =>
      runReport(
        tx,
        admin,
        {
          dataset: 'loans',
          filters,
          rows: 'product',
          columns: null,
          measures: [{ fn: 'sum', field: 'principal' }, { fn: 'count' }],
        },
        null,
      ),
    );
    const cells = result.rows.filter((r) => r.totalOver.length === 0);
    expect(cells.length).toBe(expected.size);
    for (const cell of cells) {
      const e = expected.get(cell.keys[0]!)!;
      expect(cell.values[0]).toBe(e.principal);
      expect(cell.values[1]).toBe(e.n);
      expect(cell.currency).toBe('EUR');
    }
    const grand = result.rows.find((r) => r.totalOver.length === 1)!;
    expect(grand.values[0]).toBe(rows.reduce((a, r) => a + BigInt(String(r.values.principal)), 0n));
    expect(grand.values[1]).toBe(rows.length);
  });

  it('pivots by product and status with row and column totals that add up', async () => {
    const result = await db.tenant(A, (tx) =>
      runReport(
        tx,
        admin,
        { dataset: 'loans', filters: {}, rows: 'product', columns: 'status', measures: [{ fn: 'count' }] },
        null,
      ),
    );
    const cells = result.rows.filter((r) => r.totalOver.length === 0);
    const rowTotals = result.rows.filter((r) => r.totalOver.length === 1 && r.totalOver[0] === 1);
    const grand = result.rows.find((r) => r.totalOver.length === 2)!;
    for (const total of rowTotals) {
      const sum = cells.filter((c) => c.keys[0] === total.keys[0]).reduce((a, c) => a + Number(c.values[0]), 0);
      expect(total.values[0]).toBe(sum);
    }
    expect(grand.values[0]).toBe(cells.reduce((a, c) => a + Number(c.values[0]), 0));
  });

  it('computes a ratio metric as numerator / denominator from the rows, and lists it for the boards', async () => {
    const metric = await run(saveMetricCommand, {
      type: 'ratio',
      name: 'par30-share',
      labelEn: 'PAR30',
      labelFr: 'PAR30',
      dataset: 'loans',
      filters: { status: 'ACTIVE' },
      numerator: { fn: 'sum', field: 'outstanding', filters: { days_past_due: '31..' } },
      denominator: { fn: 'sum', field: 'outstanding' },
      format: 'percent',
      showOnBoard: true,
    });
    const rows = await loanRows(admin, { status: 'ACTIVE' });
    const den = rows.reduce((a, r) => a + BigInt(String(r.values.outstanding)), 0n);
    const num = rows
      .filter((r) => Number(r.values.days_past_due) >= 31)
      .reduce((a, r) => a + BigInt(String(r.values.outstanding)), 0n);
    expect(den).toBeGreaterThan(0n);
    const [value] = await db.tenant(A, (tx) => metricValue(tx, admin, metric, null));
    expect(value!.value).toBe(Number(num) / Number(den));
    const board = await db.tenant(A, (tx) => loadBoardMetrics(tx, admin, null));
    expect(board.map((b) => b.metric.name)).toContain('par30-share');

    // Used by a report, the metric cannot be deleted; the report's measure equals the metric's value.
    const report = await run(saveReportCommand, {
      name: 'PAR by product',
      dataset: 'loans',
      filters: {},
      rows: 'product',
      measures: [{ metric: 'ratio/par30-share' }],
    });
    const result = await db.tenant(A, (tx) => runReport(tx, admin, report, null));
    const grand = result.rows.find((r) => r.totalOver.length === 1)!;
    expect(grand.values[0]).toBe(Number(num) / Number(den));
    await expect(run(deleteMetricCommand, { type: 'ratio', name: 'par30-share' })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    // A stale edit of the report is a conflict.
    await expect(
      run(saveReportCommand, { ...report, id: report.id, expectedRevision: report.revision + 1 }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('covers only the branch of a one-branch viewer', async () => {
    expect(officer.dataPermissions.length).toBeGreaterThan(0);
    const spec = {
      dataset: 'loans',
      filters: {},
      rows: 'branch',
      columns: null,
      measures: [{ fn: 'sum' as const, field: 'principal' }, { fn: 'count' as const }],
    };
    const mine = await db.tenant(A, (tx) => runReport(tx, officer, spec, null));
    const all = await db.tenant(A, (tx) => runReport(tx, admin, spec, null));
    const rows = await loanRows(officer, {});
    const branchesSeen = new Set(rows.map((r) => String(r.values.branch)));
    const cells = mine.rows.filter((r) => r.totalOver.length === 0);
    expect(new Set(cells.map((c) => c.keys[0]))).toEqual(branchesSeen);
    expect(all.rows.filter((r) => r.totalOver.length === 0).length).toBeGreaterThan(cells.length);
    const grand = mine.rows.find((r) => r.totalOver.length === 1)!;
    expect(grand.values[1]).toBe(rows.length);
    expect(grand.values[0]).toBe(rows.reduce((a, r) => a + BigInt(String(r.values.principal)), 0n));
  });

  it('refuses a column the dataset does not declare, naming the field', async () => {
    await expect(
      run(saveReportCommand, {
        name: 'x',
        dataset: 'loans',
        filters: {},
        rows: 'customer',
        measures: [{ fn: 'count' }],
      }),
    ).rejects.toSatisfy((e: unknown) => e instanceof AppError && e.field === 'rows' && e.status === 400);
  });

  it('puts the report routes, pages and API, behind the analytics_reports plan feature', async () => {
    for (const [pattern, methods] of [
      ['/analytics/reports', ['GET']],
      ['/analytics/reports/:reportId', ['GET', 'POST']],
      ['/v1/analytics/reports', ['GET', 'POST']],
      ['/v1/analytics/reports/:id', ['GET', 'PUT', 'DELETE']],
    ] as const)
      for (const method of methods) expect(featureForRoute(pattern, method)).toBe('analytics_reports');
    expect(featureForRoute('/v1/analytics/metrics', 'POST')).toBeNull();
    // A tenant whose plan has it off (as the e2e plans tenant): the guard refuses those routes.
    await db.tenant(B, async (tx) => {
      await setTenantPlan(
        tx,
        B,
        DEMO_PLANS.starter.map((f) =>
          f.feature === 'analytics_reports' ? { ...f, plans: f.plans.map((p) => ({ ...p, enabled: false })) } : f,
        ),
      );
      expect((await featureAccess(tx, B, 'analytics_reports')).isEnabled).toBe(false);
    });
    await db.tenant(A, async (tx) => expect((await featureAccess(tx, A, 'analytics_reports')).isEnabled).toBe(true));
  });
});
