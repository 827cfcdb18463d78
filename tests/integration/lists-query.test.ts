import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { countRows, countTabs, iterateRows, loadList, loadPage, type ListQueryOptions } from '#lib/lists/query.ts';
import { parseListState, type ListState } from '#lib/lists/url-state.ts';
import { BRANCH_A, BRANCH_B, OFFICER_A1, createPeopleTable, idOf, peopleList } from './lists-fixture.ts';

const TENANT = 'alpha-t1';
const OTHER = 'beta-t1';
const BUSINESS_DATE = '2026-03-15';
const N = 120;

/** Deterministic rows: every value is a function of n, so expectations can be computed. */
function person(n: number) {
  return {
    id: idOf(n),
    name: `${['Jean', 'Marie', 'Ali', 'Zoé'][n % 4]} ${['Dupont', 'Martin', 'Ngo'][n % 3]} ${String(n).padStart(3, '0')}`,
    phone: `+3361${String(n).padStart(7, '0')}`,
    status: n % 5 === 0 ? 'closed' : 'active',
    amount: BigInt(10_000 + n * 1_234),
    opened_on: `2026-0${1 + (n % 3)}-${String(1 + (n % 28)).padStart(2, '0')}`,
    closed_on: n % 5 === 0 ? `2026-02-${String(1 + (n % 28)).padStart(2, '0')}` : null,
    dpd: n % 7 === 0 ? n : 0,
    note: n === 7 ? '100% sure_thing' : n === 8 ? '100 percent' : null,
    is_vip: n % 10 === 1,
    branch_id: n % 2 === 0 ? BRANCH_A : BRANCH_B,
    officer_id: n % 4 === 0 ? OFFICER_A1 : null,
  };
}
const people = Array.from({ length: N }, (_, i) => person(i + 1));

const options: ListQueryOptions = { businessDate: BUSINESS_DATE, currencyDigits: 2, rowScope: null };
const stateOf = (query: string): ListState => parseListState(peopleList, new URLSearchParams(query)).state;
const byName = (a: { name: string; id: string }, b: { name: string; id: string }) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1;

describe.each(testDbKinds())('list queries on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    await db.owner((tx) =>
      tx.query(`insert into tenants (id, slug, name, currency, business_date) values
      ('${TENANT}', 'alpha', 'Alpha', 'EUR', '${BUSINESS_DATE}'), ('${OTHER}', 'beta', 'Beta', 'USD', '${BUSINESS_DATE}')`),
    );
    await createPeopleTable(db);
    await db.tenant(TENANT, async (tx) => {
      for (const p of people) {
        await tx.query(
          `insert into list_test_people (tenant_id, id, name, phone, status, amount, currency, opened_on, closed_on, dpd, note, is_vip, branch_id, officer_id)
           values ($1, $2, $3, $4, $5, $6, 'EUR', $7, $8, $9, $10, $11, $12, $13)`,
          [
            TENANT,
            p.id,
            p.name,
            p.phone,
            p.status,
            p.amount,
            p.opened_on,
            p.closed_on,
            p.dpd,
            p.note,
            p.is_vip,
            p.branch_id,
            p.officer_id,
          ],
        );
      }
    });
    // The other tenant has a row that would match everything; it must never appear.
    await db.tenant(OTHER, (tx) =>
      tx.query(
        `insert into list_test_people (tenant_id, id, name, phone, status, amount, currency, opened_on, dpd, branch_id)
       values ($1, $2, 'Jean Dupont intruder', '+33610000001', 'active', 1, 'USD', '2026-03-01', 9, $3)`,
        [OTHER, idOf(1), BRANCH_A],
      ),
    );
  });
  afterAll(() => drop?.());

  const page = (state: ListState, opts = options) => db.tenant(TENANT, (tx) => loadPage(tx, peopleList, state, opts));

  it('serves the first page in the default order with the default columns and typed values', async () => {
    const result = await page(stateOf('limit=10'));
    const expected = [...people].sort(byName).slice(0, 10);
    expect(result.mode).toBe('keyset');
    expect(result.rows.map((r) => r.id)).toEqual(expected.map((p) => p.id));
    expect(result.columns.map((c) => c.key)).toEqual(['name', 'status', 'amount', 'opened_on']);
    expect(result.rows[0]!.values).toEqual({
      name: expected[0]!.name,
      status: expected[0]!.status,
      amount: expected[0]!.amount,
      opened_on: expected[0]!.opened_on,
    });
    expect(result.rows[0]!.currencies).toEqual({ amount: 'EUR' });
    expect(result.hasPrev).toBe(false);
    expect(result.hasNext).toBe(true);
  });

  it('walks every page forwards with keyset cursors and back again', async () => {
    const expected = [...people].sort((a, b) => (a.amount > b.amount ? -1 : 1)).map((p) => p.id);
    const seen: string[] = [];
    const pages: { cursor: string | null; ids: string[] }[] = [];
    let state = stateOf('sort=-amount&limit=25');
    for (;;) {
      const result = await page(state);
      pages.push({ cursor: state.cursor, ids: result.rows.map((r) => r.id) });
      seen.push(...result.rows.map((r) => r.id));
      if (!result.hasNext) break;
      state = { ...state, cursor: result.nextCursor, page: state.page + 1 };
    }
    expect(seen).toEqual(expected);
    expect(pages.length).toBe(5);
    // From the fourth page, the previous cursor opens exactly the third page.
    const fourth = await page({ ...state, cursor: pages[3]!.cursor, page: 4 });
    const third = await page({ ...state, cursor: fourth.prevCursor, page: 3 });
    expect(third.rows.map((r) => r.id)).toEqual(pages[2]!.ids);
    expect(third.hasPrev).toBe(true);
    expect(third.hasNext).toBe(true);
    // Going back from the second page reaches the first, which has nothing before it.
    const second = await page({ ...state, cursor: pages[1]!.cursor, page: 2 });
    const first = await page({ ...state, cursor: second.prevCursor, page: 1 });
    expect(first.rows.map((r) => r.id)).toEqual(pages[0]!.ids);
    expect(first.hasPrev).toBe(false);
  });

  it('ignores a cursor made for another sort instead of seeking on the wrong column', async () => {
    const byAmount = await page(stateOf('sort=-amount&limit=10'));
    const result = await page({ ...stateOf('limit=10'), cursor: byAmount.nextCursor });
    expect(result.rows.map((r) => r.id)).toEqual(
      [...people]
        .sort(byName)
        .slice(0, 10)
        .map((p) => p.id),
    );
  });

  it('pages by offset on a nullable sort, NULLs last', async () => {
    const expected = [...people]
      .sort((a, b) =>
        a.closed_on === b.closed_on
          ? a.id < b.id
            ? -1
            : 1
          : a.closed_on === null
            ? 1
            : b.closed_on === null
              ? -1
              : a.closed_on < b.closed_on
                ? -1
                : 1,
      )
      .map((p) => p.id);
    const first = await page(stateOf('sort=closed_on&limit=10&cols=closed_on'));
    const third = await page(stateOf('sort=closed_on&limit=10&page=3&cols=closed_on'));
    expect(first.mode).toBe('offset');
    expect(first.rows.map((r) => r.id)).toEqual(expected.slice(0, 10));
    expect(third.rows.map((r) => r.id)).toEqual(expected.slice(20, 30));
    expect(third.hasPrev).toBe(true);
    const last = await page(stateOf('sort=closed_on&limit=10&page=12&cols=closed_on'));
    expect(last.rows.map((r) => r.id)).toEqual(expected.slice(110, 120));
    expect(last.hasNext).toBe(false);
  });

  it('filters by enum, money range in major units, date range, boolean and number range', async () => {
    const all = (query: string) =>
      page(stateOf(`${query}&limit=100&sort=opened_on`)).then((r) => r.rows.map((x) => x.id).sort());
    const ids = (pred: (p: (typeof people)[number]) => boolean) =>
      people
        .filter(pred)
        .map((p) => p.id)
        .sort()
        .slice(0, 100);
    expect(await all('f.status=closed')).toEqual(ids((p) => p.status === 'closed'));
    // 250.00 EUR is 25000 minor units: rows n with 10000 + 1234n between 15000 and 25000.
    expect(await all('f.amount=150..250')).toEqual(ids((p) => p.amount >= 15_000n && p.amount <= 25_000n));
    expect(await all('f.opened_on=2026-02-01..2026-02-10')).toEqual(
      ids((p) => p.opened_on >= '2026-02-01' && p.opened_on <= '2026-02-10'),
    );
    expect(await all('f.is_vip=true')).toEqual(ids((p) => p.is_vip));
    expect(await all('f.dpd=50..')).toEqual(ids((p) => p.dpd >= 50));
  });

  it('matches LIKE wildcards typed by the user literally', async () => {
    const result = await page(stateOf('f.note=100%25&cols=note'));
    expect(result.rows.map((r) => r.values.note)).toEqual(['100% sure_thing']);
    const underscore = await page(stateOf('f.note=e_t&cols=note'));
    expect(underscore.rows.map((r) => r.values.note)).toEqual(['100% sure_thing']);
  });

  it('searches every term across name (contains) and phone (prefix), never another tenant', async () => {
    const result = await page(stateOf('q=dupont+jean&limit=100'));
    expect(result.rows.map((r) => r.id).sort()).toEqual(
      people
        .filter((p) => p.name.startsWith('Jean Dupont'))
        .map((p) => p.id)
        .sort(),
    );
    const phone = await page(stateOf('q=%2B33610000012'));
    expect(phone.rows.map((r) => r.id)).toEqual([idOf(12)]);
    // A phone's middle is not a prefix: no match.
    expect((await page(stateOf('q=0000012'))).rows).toEqual([]);
    expect((await page(stateOf('q=intruder'))).rows).toEqual([]);
    expect((await page(stateOf("q=' or 1=1 --"))).rows).toEqual([]);
  });

  it('counts every tab under the same filters and search, and the tab rules hold at the business date', async () => {
    const counts = await db.tenant(TENANT, (tx) => countTabs(tx, peopleList, stateOf('f.status=active'), options));
    const active = people.filter((p) => p.status === 'active');
    expect(counts).toEqual({
      all: active.length,
      overdue: active.filter((p) => p.dpd > 0).length,
      opened_this_month: active.filter((p) => p.opened_on >= '2026-03-01' && p.opened_on <= BUSINESS_DATE).length,
    });
    const { page: overdue, counts: again } = await db.tenant(TENANT, (tx) =>
      loadList(tx, peopleList, stateOf('tab=overdue&f.status=active&limit=100'), options),
    );
    expect(again).toEqual(counts);
    expect(overdue.rows.length).toBe(counts.overdue);
    expect(overdue.rows.every((r) => people.find((p) => p.id === r.id)!.dpd > 0)).toBe(true);
  });

  it('applies the row scope to rows, counts and search alike', async () => {
    const scoped: ListQueryOptions = { ...options, rowScope: [[BRANCH_A]] };
    const inA = people.filter((p) => p.branch_id === BRANCH_A);
    const rows = await page(stateOf('limit=100'), scoped);
    expect(rows.rows.map((r) => r.id).sort()).toEqual(inA.map((p) => p.id).sort());
    const counts = await db.tenant(TENANT, (tx) => countTabs(tx, peopleList, stateOf(''), scoped));
    expect(counts.all).toBe(inA.length);
    expect(counts.overdue).toBe(inA.filter((p) => p.dpd > 0).length);
    const search = await page(stateOf('q=%2B33610000013'), scoped);
    expect(search.rows).toEqual([]); // 13 is in branch B
    // Two sets must both hold: branch A and officer A1 (every fourth row).
    const both = await page(stateOf('limit=100'), { ...options, rowScope: [[BRANCH_A], [OFFICER_A1]] });
    expect(both.rows.map((r) => r.id).sort()).toEqual(
      people
        .filter((p) => p.officer_id === OFFICER_A1)
        .map((p) => p.id)
        .sort(),
    );
    // No allowed node at all means no row, not every row.
    expect((await page(stateOf(''), { ...options, rowScope: [[]] })).rows).toEqual([]);
  });

  it('iterates every matching row in order, in batches of short transactions, NULLs last', async () => {
    const collect = async (state: ListState) => {
      const out: string[] = [];
      let batches = 0;
      for await (const batch of iterateRows((fn) => db.tenant(TENANT, fn), peopleList, state, options, 7)) {
        batches++;
        expect(batch.length).toBeLessThanOrEqual(7);
        out.push(...batch.map((r) => r.id));
      }
      return { out, batches };
    };
    const keyset = await collect(stateOf('sort=-amount&limit=10'));
    expect(keyset.out).toEqual([...people].sort((a, b) => (a.amount > b.amount ? -1 : 1)).map((p) => p.id));
    expect(keyset.batches).toBe(Math.ceil(N / 7));
    // A nullable sort: every row once, dated rows by date descending, then the undated by id descending.
    const nullable = await collect(stateOf('sort=-closed_on'));
    const dated = people
      .filter((p) => p.closed_on)
      .sort((a, b) => (a.closed_on! === b.closed_on! ? (a.id > b.id ? -1 : 1) : a.closed_on! > b.closed_on! ? -1 : 1));
    const undated = people.filter((p) => !p.closed_on).sort((a, b) => (a.id > b.id ? -1 : 1));
    expect(nullable.out).toEqual([...dated, ...undated].map((p) => p.id));
    const overdue = await collect(stateOf('sort=closed_on&tab=overdue'));
    expect(overdue.out.sort()).toEqual(
      people
        .filter((p) => p.dpd > 0)
        .map((p) => p.id)
        .sort(),
    );
    const total = await db.tenant(TENANT, (tx) => countRows(tx, peopleList, stateOf('tab=overdue'), options));
    expect(total).toBe(people.filter((p) => p.dpd > 0).length);
  });
});
