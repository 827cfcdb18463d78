import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db, Tx } from '#lib/db/index.ts';
import { createCustomer } from '#lib/lending/customers.ts';
import { createCollateral, linkCollateral } from '#lib/lending/collaterals.ts';
import { collateralSummary } from '#lib/customer-analytics/collaterals.ts';
import { serveList, type ListViewer } from '#lib/lists/serve.ts';
import { findList } from '#lib/lists/registry.ts';
import { collateralsList } from '#lib/lists/defs/collaterals.ts';
import { createCustomView, viewHref } from '#lib/lists/custom-views.ts';
import { createLendingFixture, type LendingFixture } from '../support/lending-fixtures.ts';

const VIEWER = '00000000-0000-4000-8000-0000000000c1';

// /loans/collaterals through the list machinery: the "securing" tab, the loan-to-value and secured
// principal as the collateral page computes them, sort, filters, search, the caller's data
// permissions on rows and counts, and a saved custom view.

describe.each(testDbKinds())('collaterals list on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  const ids = { car: '', house: '', deposit: '', loanId: '' };
  const t = <T>(fn: (tx: Tx) => Promise<T>) => db.tenant(f.tenantId, fn);
  const entry = findList('collaterals')!;
  const viewer = (over: Partial<ListViewer> = {}): ListViewer => ({
    tenantId: f.tenantId,
    userId: VIEWER,
    isAdmin: false,
    dataPermissions: [],
    currency: 'USD',
    ...over,
  });
  const serve = (query: string, who: ListViewer = viewer()) => serveList(db, who, entry, new URLSearchParams(query));

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db, { businessDate: '2026-01-15' });
    let customerA = '';
    let customerB = '';
    await t(async (tx) => {
      await tx.query(
        `insert into users (tenant_id, id, email, display_name) values ($1, $2, 'viewer@col.test', 'Viewer')`,
        [f.tenantId, VIEWER],
      );
      const [a] = await tx.query<{ id: string }>(
        `insert into hierarchy_nodes (tenant_id, level, code, name) values ($1, 'branch', 'COL-A', 'Alpha branch') returning id`,
        [f.tenantId],
      );
      const [b] = await tx.query<{ id: string }>(
        `insert into hierarchy_nodes (tenant_id, level, code, name) values ($1, 'branch', 'COL-B', 'Beta branch') returning id`,
        [f.tenantId],
      );
      customerA = (await createCustomer(tx, f.admin, { firstName: 'Anna', lastName: 'Alpha', branchId: a.id })).id;
      customerB = (await createCustomer(tx, f.admin, { firstName: 'Bruno', lastName: 'Beta', branchId: b.id })).id;
    });
    ({ loanId: ids.loanId } = await f.disbursedLoan({
      customerId: customerA,
      principal: '1200.00',
      numberOfRepayments: 12,
    }));
    await t(async (tx) => {
      ids.car = (
        await createCollateral(tx, f.admin, {
          customerId: customerA,
          type: 'vehicle',
          description: 'Peugeot 208',
          currency: 'USD',
          value: '4000.00',
          valuationDate: '2026-01-10',
        })
      ).id;
      ids.house = (
        await createCollateral(tx, f.admin, {
          customerId: customerA,
          type: 'real_estate',
          description: 'Flat',
          currency: 'USD',
          value: '90000.00',
          valuationDate: '2025-12-01',
        })
      ).id;
      ids.deposit = (
        await createCollateral(tx, f.admin, {
          customerId: customerB,
          type: 'deposit',
          description: 'Term deposit',
          currency: 'USD',
          value: '500.00',
          valuationDate: '2026-01-02',
        })
      ).id;
      await linkCollateral(tx, f.admin, ids.loanId, ids.car);
    });
  });
  afterAll(async () => drop());

  test('tabs, secured principal and loan-to-value agree with the collateral page', async () => {
    const served = await serve('cols=type,customer,value,linked_loans,secured_principal,ltv');
    expect(served.counts).toEqual({ all: 3, securing: 1 });
    const car = served.page.rows.find((r) => r.id === ids.car)!;
    const page = (await t((tx) => collateralSummary(tx, ids.car)))!;
    expect(car.values).toMatchObject({
      type: 'vehicle',
      customer: 'Alpha Anna',
      value: 400_000n,
      linked_loans: 1,
      secured_principal: page.secured_principal,
    });
    expect(page.secured_principal).toBe(120_000n);
    expect(car.values.ltv).toBe('30.0');
    expect(car.href).toBe(`/loans/collaterals/${ids.car}`);
    expect(served.page.rows.find((r) => r.id === ids.house)!.values).toMatchObject({
      linked_loans: 0,
      secured_principal: 0n,
      ltv: '0.0',
    });
    const securing = await serve('tab=securing');
    expect(securing.page.rows.map((r) => r.id)).toEqual([ids.car]);
  });

  test('sort, filters and search happen in the database', async () => {
    expect((await serve('sort=-value')).page.rows.map((r) => r.id)).toEqual([ids.house, ids.car, ids.deposit]);
    expect((await serve('sort=valuation_date')).page.rows.map((r) => r.id)).toEqual([ids.house, ids.deposit, ids.car]);
    expect((await serve('f.type=vehicle,deposit&sort=value')).page.rows.map((r) => r.id)).toEqual([
      ids.deposit,
      ids.car,
    ]);
    expect((await serve('f.value=1000..5000')).page.rows.map((r) => r.id)).toEqual([ids.car]);
    expect((await serve('f.ltv=10..100')).page.rows.map((r) => r.id)).toEqual([ids.car]);
    expect((await serve('q=peugeot')).page.rows.map((r) => r.id)).toEqual([ids.car]);
    expect((await serve('q=beta')).page.rows.map((r) => r.id)).toEqual([ids.deposit]);
  });

  test("an officer of one branch sees only that branch's collaterals, in rows and counts", async () => {
    const officer = viewer({ dataPermissions: [{ field: 'branch', value: 'COL-B' }] });
    const served = await serve('', officer);
    expect(served.page.rows.map((r) => r.id)).toEqual([ids.deposit]);
    expect(served.counts).toEqual({ all: 1, securing: 0 });
    expect((await serve('q=alpha', officer)).page.rows).toEqual([]);
  });

  test('a custom view keeps columns, filters and sort; applications have no custom views', async () => {
    const view = await t((tx) =>
      createCustomView(tx, { tenantId: f.tenantId, userId: VIEWER }, collateralsList, {
        name: 'Vehicles by value',
        columns: ['value', 'ltv'],
        filters: { type: 'vehicle' },
        sort: '-value',
        tab: 'all',
      }),
    );
    const href = viewHref(collateralsList, view, '/loans/collaterals');
    expect(href.startsWith('/loans/collaterals?')).toBe(true);
    const served = await serve(href.slice(href.indexOf('?') + 1));
    expect(served.activeView?.id).toBe(view.id);
    expect(served.page.rows.map((r) => r.id)).toEqual([ids.car]);
    expect(served.page.columns.map((c) => c.key)).toEqual(['type', 'value', 'ltv']);
    expect(entry.hasCustomViews).toBe(true);
    expect(findList('applications')!.hasCustomViews).toBe(false);
  });
});
