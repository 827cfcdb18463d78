import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '#lib/db/index.ts';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import { DEMO_TENANTS, seedDemo } from '#lib/seed/demo.ts';
import { resolveDatasetDef } from '#lib/analytics/datasets.ts';
import {
  createSavedQuery,
  deleteSavedQuery,
  getSavedQuery,
  listSavedQueries,
  requestQueryExport,
  runQuery,
  updateSavedQuery,
  type QueryActor,
} from '#lib/analytics/queries.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { listDownloads, openDownload } from '#lib/downloads/downloads.ts';
import { LIST_EXPORT_JOB, listExportHandler } from '#lib/exports/export-job.ts';
import { startWorker } from '#lib/jobs/worker.ts';
import { findList } from '#lib/lists/registry.ts';
import { COUNT_CAP, loadPage } from '#lib/lists/query.ts';
import { loadScopeSubject, resolveRowScope } from '#lib/lists/row-scope.ts';
import type { ListViewer } from '#lib/lists/serve.ts';
import type { QueryViewer } from '#lib/analytics/query-viewer.ts';
import { DEMO_ROLES } from '#lib/auth/permissions.ts';
import { parseListState } from '#lib/lists/url-state.ts';
import { resolveScopeNodes } from '#lib/tenancy/scope.ts';
import { businessDate } from '#lib/tenancy/tenant.ts';

const A = DEMO_TENANTS.demo;
const B = DEMO_TENANTS.acme;

/** Rejects with the AppError `fn` throws (fails when it does not throw one). */
async function appErrorOf(fn: () => Promise<unknown>): Promise<AppError> {
  try {
    await fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}

/**
 * List-export queries on the seeded demo tenant with its simulated history (loans of every branch
 * in every delinquency bucket): a query means the same rows as the list it is built on, under the
 * viewer's scope, in its results and in its export; saved queries keep a revision (409 when stale)
 * and refuse unknown columns (422 naming the field).
 */
describe.each(testDbKinds())('analytics queries on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let admin: QueryViewer;
  let officer: QueryViewer;
  let analystActor: QueryActor;
  let today: string;
  let branches: Record<string, string>;
  let dataDir: string;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'queries-test-'));
    const history = process.env.DEMO_HISTORY;
    process.env.DEMO_HISTORY = '1';
    try {
      await seedDemo(db, { password: 'Queries-Test-Passphrase-1' });
    } finally {
      process.env.DEMO_HISTORY = history;
    }
    await db.tenant(A, async (tx) => {
      const id = async (email: string) =>
        (await tx.query<{ id: string }>('select id::text as id from users where lower(email) = $1', [email]))[0]!.id;
      const [{ currency }] = await tx.query<{ currency: string }>('select currency from tenants where id = $1', [A]);
      const viewer = async (email: string) => {
        const userId = await id(email);
        return {
          tenantId: A,
          userId,
          currency: currency.trim(),
          language: 'en',
          // What the user's role grants (the datasets need their lists' permissions).
          authorities: email.startsWith('officer') ? [...DEMO_ROLES.loan_officer.authorities] : [],
          ...(await loadScopeSubject(tx, userId)),
        };
      };
      admin = await viewer('admin@demo.test');
      officer = await viewer('officer@demo.test');
      analystActor = { tenantId: A, userId: await id('analyst@demo.test') };
      today = await businessDate(tx, A);
      const rows = await tx.query<{ code: string; id: string }>(
        `select code, id::text as id from hierarchy_nodes where level = 'branch'`,
      );
      branches = Object.fromEntries(rows.map((r) => [r.code, r.id]));
    });
  }, 600_000);

  afterAll(async () => {
    await drop?.();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** Every row id of a definition's results, page by page (keyset cursors, as the results page links). */
  async function allQueryRows(viewer: QueryViewer, definition: unknown) {
    const ids: string[] = [];
    let cursor: string | null = null;
    let page = 1;
    for (;;) {
      const results = await runQuery(db, viewer, definition, { page, cursor, limit: 100 });
      ids.push(...results.page.rows.map((r) => r.id));
      if (!results.page.hasNext) return { ids, total: results.total, isTotalCapped: results.isTotalCapped, results };
      cursor = results.page.nextCursor;
      page += 1;
    }
  }

  /** Every row id the loans list page shows for a URL state, page by page. */
  async function allListRows(viewer: ListViewer, query: string) {
    const def = findList('loans')!.def;
    return db.tenant(A, async (tx) => {
      const ids: string[] = [];
      const { state, issues } = parseListState(def, new URLSearchParams(query));
      expect(issues).toEqual([]);
      state.limit = 100;
      const options = {
        businessDate: today,
        currencyDigits: 2,
        rowScope: await resolveRowScope(tx, viewer, state.scope),
      };
      for (;;) {
        const page = await loadPage(tx, def, state, options);
        ids.push(...page.rows.map((r) => r.id));
        if (!page.hasNext) return ids;
        state.cursor = page.nextCursor;
        state.page += 1;
      }
    });
  }

  it('a saved query of overdue loans in one branch returns exactly the loans list’s rows', async () => {
    const branch = branches['PAR-01']!;
    const saved = await db.tenant(A, (tx) =>
      createSavedQuery(tx, analystActor, {
        name: 'Overdue loans in Paris',
        description: 'PAR-01, oldest first',
        definition: {
          dataset: 'loans',
          tab: 'overdue',
          scope: `branch:${branch}`,
          columns: ['customer', 'outstanding', 'days_past_due'],
          sort: '-days_past_due',
        },
      }),
    );
    expect(saved.revision).toBe(1);
    const fromQuery = await allQueryRows(admin, saved.definition);
    const fromList = await allListRows(admin, `tab=overdue&scope=branch:${branch}&sort=-days_past_due`);
    expect(fromQuery.ids.length).toBeGreaterThan(0);
    expect(fromQuery.ids).toEqual(fromList);
    expect(fromQuery.total).toBe(fromList.length);
    // The same rows straight from the loans table: active, an installment unpaid before today, in the branch.
    const branchNodes = await db.tenant(A, (t) =>
      resolveScopeNodes(t, admin, { hierarchy_level: 'branch', hierarchy_id: branch }),
    );
    const direct = await db.tenant(A, (tx) =>
      tx.query<{ id: string }>(
        `select l.id::text as id from loans l
          where l.status = 'ACTIVE' and l.oldest_unpaid_due_date < $1::date
            and (l.customer_branch_id = any($2::uuid[]) or l.customer_officer_id = any($2::uuid[]) or l.officer_id = any($2::uuid[]))`,
        [today, branchNodes],
      ),
    );
    expect([...fromQuery.ids].sort()).toEqual(direct.map((r) => r.id).sort());
    // The filter form of "overdue" (days past due ≥ 1 over every loan) gives the same rows too.
    const byFilter = await allQueryRows(admin, {
      dataset: 'loans',
      filters: { days_past_due: '1..' },
      scope: `branch:${branch}`,
    });
    expect([...byFilter.ids].sort()).toEqual([...fromQuery.ids].sort());
    // Columns as chosen, the required account number first.
    expect(fromQuery.results.page.columns.map((c) => c.key)).toEqual([
      'account_no',
      'customer',
      'outstanding',
      'days_past_due',
    ]);
  });

  it('a one-branch viewer sees only their branch’s rows, and cannot name another branch', async () => {
    const everything = { dataset: 'loans', tab: 'all', columns: ['branch'] };
    const officerRows = await allQueryRows(officer, everything);
    const adminCount = (await runQuery(db, admin, everything)).total;
    expect(officerRows.ids.length).toBeGreaterThan(0);
    expect(officerRows.ids.length).toBeLessThan(adminCount);
    const nodes = (await db.tenant(A, (tx) => resolveScopeNodes(tx, officer, null)))!;
    const [{ n: outside }] = await db.tenant(A, (tx) =>
      tx.query<{ n: number }>(
        `select count(*)::int as n from loans l where l.id = any($1::uuid[])
           and not (l.customer_branch_id = any($2::uuid[]) or l.customer_officer_id = any($2::uuid[]) or l.officer_id = any($2::uuid[]))`,
        [officerRows.ids, nodes],
      ),
    );
    expect(outside).toBe(0);
    const [{ n: inScope }] = await db.tenant(A, (tx) =>
      tx.query<{ n: number }>(
        `select count(*)::int as n from loans l
          where l.customer_branch_id = any($1::uuid[]) or l.customer_officer_id = any($1::uuid[]) or l.officer_id = any($1::uuid[])`,
        [nodes],
      ),
    );
    expect(officerRows.ids.length).toBe(inScope);
    const other = Object.entries(branches).find(([code]) => code !== 'PAR-01')![1];
    const refused = await appErrorOf(() => runQuery(db, officer, { ...everything, scope: `branch:${other}` }));
    expect(refused.status).toBe(403);
    expect(refused.field).toBe('scope');
  });

  it('scopes the transactions dataset through the loan', async () => {
    const definition = {
      dataset: 'transactions',
      filters: { type: 'DISBURSEMENT,REPAYMENT' },
      sort: 'transaction_date',
    };
    const nodes = (await db.tenant(A, (tx) => resolveScopeNodes(tx, officer, null)))!;
    const counts = await db.tenant(A, (tx) =>
      tx.query<{ mine: number; every: number }>(
        `select count(*) filter (where l.customer_branch_id = any($1::uuid[]) or l.customer_officer_id = any($1::uuid[]) or l.officer_id = any($1::uuid[]))::int as mine,
                count(*)::int as every
           from loan_transactions x join loans l on l.tenant_id = x.tenant_id and l.id = x.loan_id
          where x.type in ('DISBURSEMENT', 'REPAYMENT')`,
        [nodes],
      ),
    );
    const mine = await runQuery(db, officer, definition, { page: 1, cursor: null, limit: 100 });
    const every = await runQuery(db, admin, definition, { page: 1, cursor: null, limit: 100 });
    expect(counts[0]!.mine).toBeGreaterThan(0);
    expect(counts[0]!.mine).toBeLessThan(counts[0]!.every);
    expect(mine.total).toBe(Math.min(counts[0]!.mine, COUNT_CAP));
    expect(mine.isTotalCapped).toBe(counts[0]!.mine > COUNT_CAP);
    expect(every.total).toBe(Math.min(counts[0]!.every, COUNT_CAP));
    const ids = mine.page.rows.map((r) => r.id);
    const [{ n: outside }] = await db.tenant(A, (tx) =>
      tx.query<{ n: number }>(
        `select count(*)::int as n from loan_transactions x join loans l on l.id = x.loan_id
          where x.id = any($1::uuid[]) and not (l.customer_branch_id = any($2::uuid[]) or l.customer_officer_id = any($2::uuid[]) or l.officer_id = any($2::uuid[]))`,
        [ids, nodes],
      ),
    );
    expect(outside).toBe(0);
    // Ascending by date, amounts as the transactions table has them.
    const dates = mine.page.rows.map((r) => String(r.values.transaction_date));
    expect(dates).toEqual([...dates].sort());
    expect(mine.page.rows.every((r) => ['DISBURSEMENT', 'REPAYMENT'].includes(String(r.values.type)))).toBe(true);
  });

  it('the export job writes the rows the results show', async () => {
    const branch = branches['PAR-01']!;
    const definition = { dataset: 'loans', tab: 'overdue', scope: `branch:${branch}`, columns: ['outstanding'] };
    const shown = await allQueryRows(officer, definition);
    expect(shown.ids.length).toBeGreaterThan(0);
    const download = await requestQueryExport(db, officer, definition, 'csv', 'Overdue in Paris');
    expect(download.status).toBe('queued');
    expect(download.fileName).toBe(`overdue-in-paris-${today}.csv`);
    const handler = listExportHandler({ dataDir, resolveList: resolveDatasetDef });
    const worker = startWorker(db, { handlers: new Map([[LIST_EXPORT_JOB, handler]]), pollMs: 20, concurrency: 1 });
    await worker.idle();
    await worker.stop();
    const [done] = await listDownloads(db, { tenantId: A, userId: officer.userId });
    expect(done!.id).toBe(download.id);
    const opened = await openDownload(db, { tenantId: A, userId: officer.userId, id: download.id, dataDir });
    expect(opened.download.status).toBe('done');
    const lines = fs
      .readFileSync(opened.path, 'utf8')
      .replace(/^\uFEFF/, '')
      .split(/\r?\n/)
      .filter(Boolean);
    const accounts = lines.slice(1).map((line) => line.split(',')[0]!.replace(/"/g, ''));
    const expected = await db.tenant(A, (tx) =>
      tx.query<{ account_no: string }>('select account_no from loans where id = any($1::uuid[])', [shown.ids]),
    );
    expect(accounts.sort()).toEqual(expected.map((r) => r.account_no).sort());
  });

  it('refuses a stale revision (409), an unknown column (422 naming it) and a duplicate name', async () => {
    const created = await db.tenant(A, (tx) =>
      createSavedQuery(tx, analystActor, { name: 'Repayments', definition: { dataset: 'transactions' } }),
    );
    const first = await db.tenant(A, (tx) =>
      updateSavedQuery(tx, analystActor, created.id, {
        name: 'Repayments this year',
        definition: { dataset: 'transactions', filters: { type: 'REPAYMENT' } },
        revision: 1,
      }),
    );
    expect(first.revision).toBe(2);
    const stale = await appErrorOf(() =>
      db.tenant(A, (tx) =>
        updateSavedQuery(tx, analystActor, created.id, {
          name: 'Someone else’s edit',
          definition: { dataset: 'transactions' },
          revision: 1,
        }),
      ),
    );
    expect(stale.status).toBe(409);
    expect(stale.field).toBe('revision');
    expect((await db.tenant(A, (tx) => getSavedQuery(tx, created.id))).name).toBe('Repayments this year');

    const unknown = await appErrorOf(() =>
      db.tenant(A, (tx) =>
        createSavedQuery(tx, analystActor, {
          name: 'Bad column',
          definition: { dataset: 'loans', columns: ['customer', 'shoe_size'] },
        }),
      ),
    );
    expect(unknown.status).toBe(422);
    expect(unknown.field).toBe('columns.1');
    const unknownFilter = await appErrorOf(() =>
      runQuery(db, admin, { dataset: 'loans', filters: { shoe_size: '42' } }),
    );
    expect(unknownFilter.status).toBe(422);
    expect(unknownFilter.field).toBe('filters.shoe_size');

    const duplicate = await appErrorOf(() =>
      db.tenant(A, (tx) =>
        createSavedQuery(tx, analystActor, { name: 'REPAYMENTS THIS YEAR', definition: { dataset: 'loans' } }),
      ),
    );
    expect(duplicate.status).toBe(409);
    expect(duplicate.field).toBe('name');

    const staleDelete = await appErrorOf(() => db.tenant(A, (tx) => deleteSavedQuery(tx, analystActor, created.id, 1)));
    expect(staleDelete.status).toBe(409);
    await db.tenant(A, (tx) => deleteSavedQuery(tx, analystActor, created.id, 2));
    expect((await appErrorOf(() => db.tenant(A, (tx) => getSavedQuery(tx, created.id)))).status).toBe(404);
  });

  it('keeps each tenant’s queries to itself', async () => {
    const created = await db.tenant(A, (tx) =>
      createSavedQuery(tx, analystActor, { name: 'Tenant A only', definition: { dataset: 'customers' } }),
    );
    expect((await appErrorOf(() => db.tenant(B, (tx) => getSavedQuery(tx, created.id)))).status).toBe(404);
    expect((await db.tenant(B, (tx) => listSavedQueries(tx))).map((q) => q.id)).not.toContain(created.id);
    expect((await db.tenant(A, (tx) => listSavedQueries(tx))).map((q) => q.name)).toContain('Tenant A only');
    expect((await appErrorOf(() => db.tenant(A, (tx) => getSavedQuery(tx, 'not-a-uuid')))).status).toBe(404);
  });
});
