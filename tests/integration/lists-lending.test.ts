import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db, Tx } from '#lib/db/index.ts';
import { customersList } from '#lib/lists/defs/customers.ts';
import { loansList } from '#lib/lists/defs/loans.ts';
import { countTabs, iterateRows, loadList, loadPage, type ListQueryOptions, type RowScope } from '#lib/lists/query.ts';
import { resolveRowScope, loadScopeSubject } from '#lib/lists/row-scope.ts';
import { parseListState } from '#lib/lists/url-state.ts';
import {
  createCustomView,
  deleteCustomView,
  getCustomView,
  listCustomViews,
  updateCustomView,
  viewHref,
} from '#lib/lists/custom-views.ts';
import { loanDelinquency, DEFAULT_DELINQUENCY_RANGES } from '#lib/schedule/index.ts';
import type { ListDef } from '#lib/lists/definition.ts';
import { LISTS } from '#lib/lists/registry.ts';
import { serveList } from '#lib/lists/serve.ts';

const T = 'demo-t1';
const BD = '2026-03-15';
const id = (prefix: string, n: number) => `${prefix}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const REGION_1 = id('a0000000', 1);
const REGION_2 = id('a0000000', 2);
const BRANCH_A = id('b0000000', 1);
const BRANCH_B = id('b0000000', 2);
const OFFICER_A = id('c0000000', 1);
const PRODUCT = id('d0000000', 1);
const ADMIN = id('e0000000', 1);
const OFFICER_USER = id('e0000000', 2);
const OTHER_USER = id('e0000000', 3);
const N = 40;

type Inst = {
  number: number;
  due: string;
  principal: number;
  interest: number;
  principalPaid: number;
  interestPaid: number;
};
type LoanSeed = { n: number; status: string; disbursed: string; closed: string | null; installments: Inst[] };

const inst = (number: number, due: string, paid: 'all' | 'half' | 'none'): Inst => ({
  number,
  due,
  principal: 10_000,
  interest: 500,
  principalPaid: paid === 'all' ? 10_000 : paid === 'half' ? 5_000 : 0,
  interestPaid: paid === 'none' ? 0 : 500,
});

/** Five loan situations around the business date 2026-03-15, chosen by n % 5. */
function loanOf(n: number): LoanSeed {
  switch (n % 5) {
    case 0:
      return {
        n,
        status: 'ACTIVE',
        disbursed: '2026-03-05',
        closed: null,
        installments: [inst(1, '2026-04-05', 'none'), inst(2, '2026-05-05', 'none'), inst(3, '2026-06-05', 'none')],
      };
    case 1:
      return {
        n,
        status: 'ACTIVE',
        disbursed: '2025-12-10',
        closed: null,
        installments: [inst(1, '2026-01-10', 'all'), inst(2, '2026-02-10', 'half'), inst(3, '2026-03-10', 'none')],
      };
    case 2:
      return {
        n,
        status: 'ACTIVE',
        disbursed: '2026-01-20',
        closed: null,
        installments: [inst(1, '2026-02-20', 'all'), inst(2, '2026-03-20', 'none'), inst(3, '2026-04-10', 'none')],
      };
    case 3:
      return {
        n,
        status: 'CLOSED_OBLIGATIONS_MET',
        disbursed: '2025-10-01',
        closed: '2026-03-02',
        installments: [inst(1, '2025-11-01', 'all'), inst(2, '2025-12-01', 'all')],
      };
    default:
      return {
        n,
        status: 'ACTIVE',
        disbursed: '2026-02-01',
        closed: null,
        installments: [inst(1, '2026-03-15', 'none'), inst(2, '2026-04-15', 'none')],
      };
  }
}
const hasLoan = (n: number) => n % 3 !== 0;
const loans = Array.from({ length: N }, (_, i) => i + 1)
  .filter(hasLoan)
  .map(loanOf);
const branchOf = (n: number) => (n % 2 === 1 ? BRANCH_A : BRANCH_B);
const outstanding = (l: LoanSeed) =>
  l.installments.reduce((s, i) => s + i.principal + i.interest - i.principalPaid - i.interestPaid, 0);

/** The lending engine's days past due for a seeded loan (src/lib/schedule). */
const enginePastDue = (l: LoanSeed) =>
  l.status !== 'ACTIVE'
    ? 0
    : loanDelinquency({
        businessDate: BD,
        ranges: DEFAULT_DELINQUENCY_RANGES,
        installments: l.installments.map((i) => ({
          number: i.number,
          dueDate: i.due,
          outstanding: BigInt(i.principal + i.interest - i.principalPaid - i.interestPaid),
        })),
      }).pastDueDays;

const options = (rowScope: RowScope = null): ListQueryOptions => ({ businessDate: BD, currencyDigits: 2, rowScope });
const stateOf = (def: ListDef, query: string) => parseListState(def, new URLSearchParams(query)).state;

describe.each(testDbKinds())('customers and loans lists on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  const inTenant = <X>(fn: (tx: Tx) => Promise<X>) => db.tenant(T, fn);
  const allIds = async (def: ListDef, query: string, rowScope: RowScope = null) => {
    const out: string[] = [];
    for await (const batch of iterateRows(inTenant, def, stateOf(def, query), options(rowScope), 500))
      out.push(...batch.map((r) => r.id));
    return out.sort();
  };
  const loanIds = (pred: (l: LoanSeed) => boolean) =>
    loans
      .filter(pred)
      .map((l) => id('f0000000', l.n))
      .sort();

  beforeAll(async () => {
    // List rules are tested on loan rows written directly (fixed shapes at the business date), without
    // the money commands, so there is no ledger to check here.
    ({ db, drop } = await createTestDb(kind, { checkLedgerOnDrop: false }));
    await db.owner((tx) =>
      tx.query(`insert into tenants (id, slug, name, currency, business_date) values ($1, 'demo', 'Demo', 'EUR', $2)`, [
        T,
        BD,
      ]),
    );
    await inTenant(async (tx) => {
      await tx.query(
        `insert into hierarchy_nodes (tenant_id, id, level, parent_id, code, name) values
        ($1, $2, 'region', null, 'R1', 'North'), ($1, $3, 'region', null, 'R2', 'South'),
        ($1, $4, 'branch', $2, 'BA', 'Branch A'), ($1, $5, 'branch', $3, 'BB', 'Branch B'),
        ($1, $6, 'officer', $4, 'OA', 'Officer A')`,
        [T, REGION_1, REGION_2, BRANCH_A, BRANCH_B, OFFICER_A],
      );
      await tx.query(
        `insert into users (tenant_id, id, email, display_name) values ($1, $2, 'admin@t', 'Admin'), ($1, $3, 'officer@t', 'Officer'), ($1, $4, 'other@t', 'Other')`,
        [T, ADMIN, OFFICER_USER, OTHER_USER],
      );
      await tx.query(
        `insert into user_data_permissions (tenant_id, user_id, field, value) values ($1, $2, 'branch', 'BA')`,
        [T, OFFICER_USER],
      );
      await tx.query(
        `insert into loan_products (tenant_id, id, code, name, currency, digits_after_decimal, min_principal, max_principal, min_repayments, max_repayments, annual_interest_rate, repayment_frequency)
        values ($1, $2, 'P1', 'Micro', 'EUR', 2, 100, 10000000, 1, 36, 12, 'MONTHS')`,
        [T, PRODUCT],
      );
      for (let n = 1; n <= N; n++) {
        await tx.query(
          `insert into customers (tenant_id, id, first_name, last_name, phone, national_id, branch_id, officer_id, opt_in_status, created_at)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, timestamptz '2026-01-01T00:00:00Z' + $10 * interval '1 hour')`,
          [
            T,
            id('c1000000', n),
            ['Jean', 'Awa', 'Luc', 'Inès'][n % 4],
            `Nom${String(n).padStart(2, '0')}`,
            `+2217700${String(n).padStart(4, '0')}`,
            `NID${n}`,
            branchOf(n),
            n % 4 === 1 ? OFFICER_A : null,
            n % 6 === 0 ? 'opted_out' : 'opted_in',
            n,
          ],
        );
      }
      for (const l of loans) {
        const principal = l.installments.reduce((s, i) => s + i.principal, 0);
        await tx.query(
          `insert into loans (tenant_id, id, account_no, customer_id, product_id, status, currency, principal, number_of_repayments, annual_interest_rate, terms, submitted_on, disbursed_on, closed_on, created_at)
           values ($1, $2, $3, $4, $5, $6, 'EUR', $7, $8, 12, '{}'::jsonb, $9, $9, $10, timestamptz '2026-01-01T00:00:00Z' + $11 * interval '1 hour')`,
          [
            T,
            id('f0000000', l.n),
            `L-${String(l.n).padStart(4, '0')}`,
            id('c1000000', l.n),
            PRODUCT,
            l.status,
            principal,
            l.installments.length,
            l.disbursed,
            l.closed,
            l.n,
          ],
        );
        for (const i of l.installments) {
          await tx.query(
            `insert into loan_installments (tenant_id, loan_id, number, from_date, due_date, principal_due, interest_due, principal_paid, interest_paid, obligations_met_on)
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
            [
              T,
              id('f0000000', l.n),
              i.number,
              l.disbursed,
              i.due,
              i.principal,
              i.interest,
              i.principalPaid,
              i.interestPaid,
              i.principalPaid === i.principal && i.interestPaid === i.interest ? i.due : null,
            ],
          );
        }
      }
    });
  });
  afterAll(() => drop?.());

  it('loans: overdue and days past due agree with the engine at the business date', async () => {
    expect(await allIds(loansList, 'tab=overdue')).toEqual(loanIds((l) => enginePastDue(l) > 0));
    expect(loanIds((l) => enginePastDue(l) > 0).length).toBeGreaterThan(0);
    const page = await inTenant((tx) =>
      loadPage(
        tx,
        loansList,
        stateOf(loansList, 'tab=all_outstanding&limit=100&cols=days_past_due,outstanding'),
        options(),
      ),
    );
    for (const row of page.rows) {
      const seed = loans.find((l) => id('f0000000', l.n) === row.id)!;
      expect(row.values.days_past_due).toBe(enginePastDue(seed));
      expect(row.values.outstanding).toBe(BigInt(outstanding(seed)));
      expect(row.href).toBe(`/loans/customer/profile/${id('c1000000', seed.n)}/loans/${row.id}`);
    }
    // An installment due ON the business date is not overdue yet (n % 5 = 4).
    expect(loans.filter((l) => l.n % 5 === 4).every((l) => enginePastDue(l) === 0)).toBe(true);
  });

  it('loans: the other tabs follow their written definitions', async () => {
    const month = (d: string | null) => d !== null && d >= '2026-03-01' && d <= BD;
    const maturity = (l: LoanSeed) => l.installments.at(-1)!.due;
    expect(await allIds(loansList, 'tab=disbursed_this_month')).toEqual(loanIds((l) => month(l.disbursed)));
    expect(await allIds(loansList, 'tab=closed_this_month')).toEqual(
      loanIds((l) => l.status !== 'ACTIVE' && month(l.closed)),
    );
    expect(await allIds(loansList, 'tab=maturing')).toEqual(
      loanIds((l) => l.status === 'ACTIVE' && maturity(l) >= BD && maturity(l) <= '2026-04-14'),
    );
    expect(await allIds(loansList, 'tab=all_outstanding')).toEqual(loanIds((l) => l.status === 'ACTIVE'));
    const counts = await inTenant((tx) => countTabs(tx, loansList, stateOf(loansList, ''), options()));
    expect(counts).toEqual({
      disbursed_this_month: loanIds((l) => month(l.disbursed)).length,
      overdue: loanIds((l) => enginePastDue(l) > 0).length,
      closed_this_month: loanIds((l) => l.status !== 'ACTIVE' && month(l.closed)).length,
      maturing: loanIds((l) => l.status === 'ACTIVE' && maturity(l) >= BD && maturity(l) <= '2026-04-14').length,
      all_outstanding: loanIds((l) => l.status === 'ACTIVE').length,
    });
  });

  it('search: names by part, phone and ids by prefix, account numbers by prefix in any case; the row-by-row path agrees', async () => {
    // The default tab holds the active loans.
    const loanIdsOf = (ns: number[]) =>
      loans
        .filter((l) => ns.includes(l.n) && l.status === 'ACTIVE')
        .map((l) => id('f0000000', l.n))
        .sort();
    expect(await allIds(loansList, 'q=nom07')).toEqual(loanIdsOf([7]));
    expect(await allIds(loansList, 'q=awa+nom05')).toEqual(loanIdsOf([5]));
    expect(await allIds(loansList, 'q=jean+nom05')).toEqual([]);
    expect(await allIds(loansList, 'q=l-000')).toEqual(loanIdsOf([1, 2, 3, 4, 5, 6, 7, 8, 9]));
    expect(await allIds(loansList, 'q=%2B22177000014')).toEqual(loanIdsOf([14]));
    expect(loanIdsOf([14])).toHaveLength(1);
    expect(await allIds(customersList, 'q=nid1')).toEqual(
      [1, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19].map((n) => id('c1000000', n)).sort(),
    );
    // LIKE wildcards typed by the user match themselves.
    expect(await allIds(loansList, 'q=nom_7')).toEqual([]);
    // A term that too many customers match is tested row by row: same rows, same counts.
    for (const query of ['q=nom0', 'q=awa', 'q=l-001+luc']) {
      const state = stateOf(loansList, `${query}&tab=all_outstanding&limit=100`);
      const looked = await inTenant((tx) => loadList(tx, loansList, state, options()));
      const rowWise = await inTenant((tx) =>
        loadList(tx, loansList, state, { ...options(), searchCustomers: state.q.split(' ').map(() => null) }),
      );
      expect(looked.page.rows.map((r) => r.id)).toEqual(rowWise.page.rows.map((r) => r.id));
      expect(looked.counts).toEqual(rowWise.counts);
      expect(looked.page.rows.length).toBeGreaterThan(0);
    }
    // A scoped viewer's loan counts run with table scans discouraged, and the setting comes back after.
    const setting = await inTenant(async (tx) => {
      await loadList(tx, loansList, stateOf(loansList, ''), options([[BRANCH_A]]));
      return (await tx.query<{ s: string }>(`select current_setting('enable_seqscan') as s`))[0]!.s;
    });
    expect(setting).toBe('on');
    // Pages join customers with an inner join (pageFrom), counts with a left join: the same rows.
    expect(await allIds(loansList, 'sort=-customer')).toEqual(await allIds(loansList, ''));
    const sorted = await inTenant((tx) =>
      loadList(tx, loansList, stateOf(loansList, 'sort=customer&limit=100'), options()),
    );
    expect(sorted.page.rows).toHaveLength(sorted.counts.all_outstanding);
  });

  it('customers: borrower and optout tabs, sorted by name with keyset paging', async () => {
    const customerIds = (pred: (n: number) => boolean) =>
      Array.from({ length: N }, (_, i) => i + 1)
        .filter(pred)
        .map((n) => id('c1000000', n))
        .sort();
    expect(await allIds(customersList, 'tab=borrower')).toEqual(
      customerIds((n) => hasLoan(n) && loanOf(n).status === 'ACTIVE'),
    );
    expect(await allIds(customersList, 'tab=optout')).toEqual(customerIds((n) => n % 6 === 0));
    const first = await inTenant((tx) => loadPage(tx, customersList, stateOf(customersList, 'limit=10'), options()));
    expect(first.mode).toBe('keyset');
    expect(first.rows.map((r) => r.values.name)).toEqual(
      Array.from(
        { length: 10 },
        (_, i) => `Nom${String(i + 1).padStart(2, '0')} ${['Jean', 'Awa', 'Luc', 'Inès'][(i + 1) % 4]}`,
      ),
    );
    expect(first.rows[0]!.values.branch).toBe('Branch A');
    expect(first.rows[0]!.href).toBe(`/loans/customer/profile/${id('c1000000', 1)}/resume`);
    const second = await inTenant((tx) =>
      loadPage(
        tx,
        customersList,
        { ...stateOf(customersList, 'limit=10&page=2'), cursor: first.nextCursor },
        options(),
      ),
    );
    expect(second.rows[0]!.values.name).toBe('Nom11 Inès');
  });

  it('a one-branch officer sees only that branch in rows, counts, search, exports, and the scope filter only narrows', async () => {
    const scope = await inTenant(async (tx) => resolveRowScope(tx, await loadScopeSubject(tx, OFFICER_USER), null));
    expect(scope!.map((set) => [...set].sort())).toEqual([[BRANCH_A, OFFICER_A].sort()]);
    const inA = Array.from({ length: N }, (_, i) => i + 1).filter((n) => branchOf(n) === BRANCH_A);
    const { page, counts } = await inTenant((tx) =>
      loadList(tx, customersList, stateOf(customersList, 'limit=100'), options(scope)),
    );
    expect(page.rows.map((r) => r.id).sort()).toEqual(inA.map((n) => id('c1000000', n)).sort());
    expect(counts.all).toBe(inA.length);
    // Customer 2 is in branch B: searching its exact phone finds nothing for the officer.
    const search = await inTenant((tx) =>
      loadPage(tx, customersList, stateOf(customersList, 'q=%2B22177000002'), options(scope)),
    );
    expect(search.rows).toEqual([]);
    const adminSearch = await inTenant((tx) =>
      loadPage(tx, customersList, stateOf(customersList, 'q=%2B22177000002'), options()),
    );
    expect(adminSearch.rows.map((r) => r.id)).toEqual([id('c1000000', 2)]);
    expect(await allIds(loansList, 'tab=all_outstanding', scope)).toEqual(
      loanIds((l) => l.status === 'ACTIVE' && branchOf(l.n) === BRANCH_A),
    );
    // Asking for branch B's scope yields nothing; region R1 (branch A's region) yields branch A.
    const toB = await inTenant(async (tx) =>
      resolveRowScope(tx, await loadScopeSubject(tx, OFFICER_USER), {
        hierarchy_level: 'branch',
        hierarchy_id: BRANCH_B,
      }),
    );
    expect(await allIds(customersList, '', toB)).toEqual([]);
    const adminR1 = await inTenant(async (tx) =>
      resolveRowScope(tx, await loadScopeSubject(tx, ADMIN), { hierarchy_level: 'region', hierarchy_id: REGION_1 }),
    );
    expect(await allIds(customersList, '', adminR1)).toEqual(inA.map((n) => id('c1000000', n)).sort());
    const officerNode = await inTenant(async (tx) =>
      resolveRowScope(tx, await loadScopeSubject(tx, ADMIN), { hierarchy_level: 'officer', hierarchy_id: OFFICER_A }),
    );
    expect(await allIds(customersList, '', officerNode)).toEqual(
      inA
        .filter((n) => n % 4 === 1)
        .map((n) => id('c1000000', n))
        .sort(),
    );
  });

  it('serves a list page for a viewer: scoped counts, business date; strict mode names a bad parameter', async () => {
    const viewer = {
      tenantId: T,
      userId: OFFICER_USER,
      isAdmin: false,
      dataPermissions: [{ field: 'branch', value: 'BA' }],
      currency: 'EUR',
    };
    const served = await serveList(db, viewer, LISTS.customers!, new URLSearchParams('tab=optout&limit=10'));
    const optOutInA = Array.from({ length: N }, (_, i) => i + 1).filter((n) => n % 6 === 0 && branchOf(n) === BRANCH_A);
    expect(served.businessDate).toBe(BD);
    expect(served.total).toBe(optOutInA.length);
    expect(served.page.rows.map((r) => r.id).sort()).toEqual(optOutInA.map((n) => id('c1000000', n)).sort());
    await expect(
      serveList(db, viewer, LISTS.customers!, new URLSearchParams('sort=password'), { isStrict: true }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST', field: 'sort' });
    const lenient = await serveList(db, viewer, LISTS.customers!, new URLSearchParams('sort=password'));
    expect(lenient.issues.map((i) => i.param)).toEqual(['sort']);
    expect(lenient.state.sort).toEqual({ key: 'name', dir: 'asc' });
  });

  it('custom views: validated against the list, personal or shared, only the owner edits, audited', async () => {
    const admin = { tenantId: T, userId: ADMIN };
    const officer = { tenantId: T, userId: OFFICER_USER };
    const mine = await inTenant((tx) =>
      createCustomView(tx, officer, loansList, {
        name: 'My overdue',
        tab: 'overdue',
        sort: '-principal',
        columns: ['customer', 'days_past_due'],
        filters: { status: 'ACTIVE' },
      }),
    );
    expect(viewHref(loansList, mine, '/loans/loans')).toBe(
      `/loans/loans?view=${mine.id}&tab=overdue&sort=-principal&f.status=ACTIVE&cols=customer,days_past_due`,
    );
    const shared = await inTenant((tx) =>
      createCustomView(tx, admin, loansList, { name: 'Big loans', filters: { principal: '100..' }, isShared: true }),
    );
    await expect(
      inTenant((tx) => createCustomView(tx, officer, loansList, { name: 'my OVERDUE' })),
    ).rejects.toMatchObject({ code: 'ALREADY_EXISTS', field: 'name' });
    await expect(
      inTenant((tx) => createCustomView(tx, officer, loansList, { name: 'x', columns: ['secret'] })),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST', field: 'columns.0' });
    await expect(
      inTenant((tx) => createCustomView(tx, officer, loansList, { name: 'x', filters: { status: 'DELETED' } })),
    ).rejects.toMatchObject({ field: 'filters.status' });
    await expect(
      inTenant((tx) =>
        createCustomView(tx, officer, loansList, { name: 'x', sort: 'maturity_date; drop table loans' }),
      ),
    ).rejects.toMatchObject({ field: 'sort' });
    await expect(inTenant((tx) => createCustomView(tx, officer, loansList, { name: ' ' }))).rejects.toThrow();

    expect((await inTenant((tx) => listCustomViews(tx, officer, 'loans'))).map((v) => v.name)).toEqual([
      'My overdue',
      'Big loans',
    ]);
    expect(
      (await inTenant((tx) => listCustomViews(tx, { tenantId: T, userId: OTHER_USER }, 'loans'))).map((v) => v.name),
    ).toEqual(['Big loans']);
    await expect(
      inTenant((tx) => getCustomView(tx, { tenantId: T, userId: OTHER_USER }, 'loans', mine.id)),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(
      inTenant((tx) => updateCustomView(tx, officer, loansList, shared.id, { name: 'Hijack' })),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(inTenant((tx) => deleteCustomView(tx, officer, 'loans', shared.id))).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });

    const updated = await inTenant((tx) =>
      updateCustomView(tx, officer, loansList, mine.id, { name: 'Overdue, shared', tab: 'overdue', isShared: true }),
    );
    expect(updated).toMatchObject({ name: 'Overdue, shared', isShared: true, sort: null, columns: [], filters: {} });
    await inTenant((tx) => deleteCustomView(tx, officer, 'loans', mine.id));
    const audit = await inTenant((tx) =>
      tx.query<{ action: string }>(
        `select action from audit_log where object_type = 'custom_view' and object_id = $1 order by occurred_at, action`,
        [mine.id],
      ),
    );
    expect(audit.map((a) => a.action).sort()).toEqual([
      'custom_view.create',
      'custom_view.delete',
      'custom_view.update',
    ]);
  });
});
