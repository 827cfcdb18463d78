import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { COUNT_CAP, countTabsCapped, loadList, type ListQueryOptions } from '#lib/lists/query.ts';
import { parseListState, type ListState } from '#lib/lists/url-state.ts';
import { BRANCH_A, BRANCH_B, createPeopleTable, idOf, peopleList } from './lists-fixture.ts';

// Capped tab counts (brief K): a tab stops counting at the cap and says so; under the cap it is exact,
// and the scope, filters and search still apply to what is counted.
const TENANT = 'alpha-cap';
const OTHER = 'beta-cap';
const BUSINESS_DATE = '2026-03-15';
const N = 40;
// Rows 1..40: even rows in branch A; every third row overdue; rows 1..10 opened this month.
const rows = Array.from({ length: N }, (_, i) => {
  const n = i + 1;
  return {
    n,
    branch: n % 2 === 0 ? BRANCH_A : BRANCH_B,
    dpd: n % 3 === 0 ? 5 : 0,
    opened: n <= 10 ? '2026-03-02' : '2026-01-10',
    name: `Person ${String(n).padStart(2, '0')}`,
  };
});
const options: ListQueryOptions = { businessDate: BUSINESS_DATE, currencyDigits: 2, rowScope: null };
const stateOf = (query: string): ListState => parseListState(peopleList, new URLSearchParams(query)).state;

describe.each(testDbKinds())('capped tab counts on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    await db.owner((tx) =>
      tx.query(`insert into tenants (id, slug, name, currency, business_date) values
      ('${TENANT}', 'alpha-cap', 'Alpha', 'EUR', '${BUSINESS_DATE}'), ('${OTHER}', 'beta-cap', 'Beta', 'EUR', '${BUSINESS_DATE}')`),
    );
    await createPeopleTable(db);
    await db.tenant(TENANT, async (tx) => {
      for (const r of rows) {
        await tx.query(
          `insert into list_test_people (tenant_id, id, name, phone, status, amount, currency, opened_on, dpd, branch_id)
           values ($1, $2, $3, $4, 'active', 1000, 'EUR', $5, $6, $7)`,
          [TENANT, idOf(r.n), r.name, `+336${String(r.n).padStart(8, '0')}`, r.opened, r.dpd, r.branch],
        );
      }
    });
    // Another tenant's rows must never reach a count, capped or not.
    await db.tenant(OTHER, async (tx) => {
      for (let n = 1; n <= 30; n++) {
        await tx.query(
          `insert into list_test_people (tenant_id, id, name, phone, status, amount, currency, opened_on, dpd, branch_id)
           values ($1, $2, 'Intruder', '+33600000000', 'active', 1, 'EUR', '2026-03-02', 9, $3)`,
          [OTHER, idOf(n), BRANCH_A],
        );
      }
    });
  });
  afterAll(() => drop?.());

  const count = (query: string, cap: number, opts = options) =>
    db.tenant(TENANT, (tx) => countTabsCapped(tx, peopleList, stateOf(query), opts, cap));

  it('counts exactly under the cap and flags nothing', async () => {
    expect(await count('', 100)).toEqual({ counts: { all: 40, overdue: 13, opened_this_month: 10 }, cappedTabs: [] });
    // Exactly at the cap is still exact: only more rows than the cap is capped.
    expect(await count('', 40)).toEqual({ counts: { all: 40, overdue: 13, opened_this_month: 10 }, cappedTabs: [] });
  });

  it('stops a tab at the cap and names it, leaving smaller tabs exact', async () => {
    expect(await count('', 12)).toEqual({
      counts: { all: 12, overdue: 12, opened_this_month: 10 },
      cappedTabs: ['all', 'overdue'],
    });
    expect(await count('', 39)).toEqual({
      counts: { all: 39, overdue: 13, opened_this_month: 10 },
      cappedTabs: ['all'],
    });
  });

  it('applies the row scope (exactly), filters and search before the cap', async () => {
    const inA = { ...options, rowScope: [[BRANCH_A]] };
    // Branch A: rows 2, 4, …, 40 (20); overdue among them: 6, 12, 18, 24, 30, 36 (6); opened this month: 2, 4, 6, 8, 10 (5).
    expect(await count('', 100, inA)).toEqual({
      counts: { all: 20, overdue: 6, opened_this_month: 5 },
      cappedTabs: [],
    });
    // The cap applies to a scoped viewer's rows alone.
    expect(await count('', 5, inA)).toEqual({
      counts: { all: 5, overdue: 5, opened_this_month: 5 },
      cappedTabs: ['all', 'overdue'],
    });
    // Search "Person 1": every term must match, "1" anywhere in the name: 01, 10..19, 21, 31 (13);
    // overdue 12, 15, 18, 21 (4); opened this month 01, 10 (2). No "Intruder" of the other tenant.
    expect(await count('q=Person%201', 100)).toEqual({
      counts: { all: 13, overdue: 4, opened_this_month: 2 },
      cappedTabs: [],
    });
    expect(await count('f.dpd=1..', 5)).toEqual({
      counts: { all: 5, overdue: 5, opened_this_month: 3 },
      cappedTabs: ['all', 'overdue'],
    });
  });

  it('a list that avoids table scans and merge joins for scoped counts counts the same and restores the planner settings', async () => {
    const inA = { ...options, rowScope: [[BRANCH_A]] };
    const avoiding = { ...peopleList, countsAvoid: { tableScans: true, mergeJoins: true } };
    const result = await db.tenant(TENANT, async (tx) => {
      await tx.query(`select set_config('enable_mergejoin', 'on', true), set_config('enable_seqscan', 'on', true)`);
      const counts = await countTabsCapped(tx, avoiding, stateOf(''), inA, 5);
      const [after] = await tx.query<{ seqscan: string; mergejoin: string }>(
        `select current_setting('enable_seqscan') as seqscan, current_setting('enable_mergejoin') as mergejoin`,
      );
      return { counts, after };
    });
    expect(result.counts).toEqual({
      counts: { all: 5, overdue: 5, opened_this_month: 5 },
      cappedTabs: ['all', 'overdue'],
    });
    expect(result.after).toEqual({ seqscan: 'on', mergejoin: 'on' });
  });

  it('loadList passes the cap through and reports capped tabs with the page', async () => {
    const result = await db.tenant(TENANT, (tx) =>
      loadList(tx, peopleList, stateOf('limit=10'), { ...options, countCap: 25 }),
    );
    expect(result.counts).toEqual({ all: 25, overdue: 13, opened_this_month: 10 });
    expect(result.cappedTabs).toEqual(['all']);
    expect(result.page.rows.map((r) => r.id)).toEqual(rows.slice(0, 10).map((r) => idOf(r.n)));
    const byDefault = await db.tenant(TENANT, (tx) => loadList(tx, peopleList, stateOf('limit=10'), options));
    expect(COUNT_CAP).toBe(1_000);
    expect(byDefault.cappedTabs).toEqual([]);
    expect(byDefault.counts.all).toBe(40);
  });
});
