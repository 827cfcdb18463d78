import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { listDownloads, openDownload } from '#lib/downloads/downloads.ts';
import { LIST_EXPORT_JOB, listExportHandler, requestListExport } from '#lib/exports/export-job.ts';
import { getJob } from '#lib/jobs/queue.ts';
import { startWorker, type JobHandler } from '#lib/jobs/worker.ts';
import { BRANCH_A, BRANCH_B, createPeopleTable, peopleList } from './lists-fixture.ts';

const TENANT = 'alpha-t1';
const ADMIN = '20000000-0000-4000-8000-000000000001';
const OFFICER = '20000000-0000-4000-8000-000000000002';
const ROWS = 50_000;
/** Names a spreadsheet would run as formulas; row n (1-based) gets DANGEROUS[n % 100] when defined. */
const DANGEROUS: Record<number, string> = {
  1: '=HYPERLINK("http://evil.test","click")',
  2: '+1+1',
  3: '-2+3',
  4: '@SUM(A1:A2)',
  5: '\tTabbed',
  6: '\rReturn',
};

/** Reads RFC 4180 CSV (quoted fields may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let isQuoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (isQuoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') isQuoted = false;
      else field += c;
    } else if (c === '"') isQuoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  if (field || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

describe.each(testDbKinds())('list export of 50,000 rows on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let dataDir: string;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'exports-test-'));
    await db.owner((tx) =>
      tx.query(
        `insert into tenants (id, slug, name, currency, business_date) values ('${TENANT}', 'alpha', 'Alpha', 'EUR', '2026-03-15')`,
      ),
    );
    await createPeopleTable(db);
    await db.tenant(TENANT, async (tx) => {
      await tx.query(
        `insert into users (tenant_id, id, email, display_name) values ($1, $2, 'admin@a.test', 'Admin'), ($1, $3, 'officer@a.test', 'Officer')`,
        [TENANT, ADMIN, OFFICER],
      );
      await tx.query(
        `insert into roles (tenant_id, id, name, is_admin) values ($1, '30000000-0000-4000-8000-000000000001', 'Admin', true)`,
        [TENANT],
      );
      await tx.query(
        `insert into user_roles (tenant_id, user_id, role_id) values ($1, $2, '30000000-0000-4000-8000-000000000001')`,
        [TENANT, ADMIN],
      );
      await tx.query(
        `insert into hierarchy_nodes (tenant_id, id, level, code, name) values ($1, $2, 'branch', 'BR-A', 'Branch A'), ($1, $3, 'branch', 'BR-B', 'Branch B')`,
        [TENANT, BRANCH_A, BRANCH_B],
      );
      await tx.query(
        `insert into user_data_permissions (tenant_id, user_id, field, value) values ($1, $2, 'branch', 'BR-A')`,
        [TENANT, OFFICER],
      );
      await tx.query(
        `insert into list_test_people (tenant_id, id, name, phone, status, amount, currency, opened_on, dpd, note, branch_id)
         select $1, ('10000000-0000-4000-8000-' || lpad(to_hex(n), 12, '0'))::uuid,
                'Person ' || lpad(n::text, 6, '0'), '+33' || n, case when n % 5 = 0 then 'closed' else 'active' end,
                n * 101, 'EUR', date '2026-01-01' + (n % 60), n % 9,
                case n % 100 when 1 then $2 when 2 then $3 when 3 then $4 when 4 then $5 when 5 then $6 when 6 then $7 end,
                case when n % 2 = 0 then $8::uuid else $9::uuid end
           from generate_series(1, ${ROWS}) as n`,
        [
          TENANT,
          DANGEROUS[1],
          DANGEROUS[2],
          DANGEROUS[3],
          DANGEROUS[4],
          DANGEROUS[5],
          DANGEROUS[6],
          BRANCH_A,
          BRANCH_B,
        ],
      );
    });
  });
  afterAll(async () => {
    await drop?.();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function runExport(userId: string, query: string, format: 'csv' | 'xlsx') {
    const download = await requestListExport(db, {
      tenantId: TENANT,
      userId,
      def: peopleList,
      query,
      format,
      language: 'fr-FR',
      fileBaseName: 'people',
      businessDate: '2026-03-15',
    });
    expect(download.status).toBe('queued');
    const progress: { done: number; total: number; downloadPercent: number }[] = [];
    const inner = listExportHandler({
      dataDir,
      resolveList: (name) => (name === 'people' ? peopleList : undefined),
      batchSize: 2_000,
    });
    const handler: JobHandler = (ctx) =>
      inner({
        ...ctx,
        async progress(done, total) {
          await ctx.progress(done, total);
          const [row] = await db.tenant(TENANT, (tx) =>
            tx.query<{ progress: number }>('select progress from downloads where id = $1', [download.id]),
          );
          progress.push({ done: Number(done), total: Number(total), downloadPercent: row!.progress });
        },
      });
    const worker = startWorker(db, { handlers: new Map([[LIST_EXPORT_JOB, handler]]), pollMs: 20, concurrency: 1 });
    await worker.idle();
    await worker.stop();
    const [done] = await listDownloads(db, { tenantId: TENANT, userId });
    expect(done!.id).toBe(download.id);
    const opened = await openDownload(db, { tenantId: TENANT, userId, id: download.id, dataDir });
    return { download: opened.download, file: opened.path, progress };
  }

  it('writes every matching row to CSV as a job with progress, formula cells neutralised', async () => {
    const { download, file, progress } = await runExport(ADMIN, 'cols=note,amount,opened_on,is_vip', 'csv');
    expect(download.status).toBe('done');
    expect(download.progress).toBe(100);
    expect(download.fileName).toBe('people-2026-03-15.csv');
    expect(download.contentType).toBe('text/csv; charset=utf-8');
    expect(progress[0]).toEqual({ done: 0, total: ROWS, downloadPercent: 0 });
    expect(progress.at(-1)).toMatchObject({ done: ROWS, total: ROWS });
    expect(progress.length).toBe(ROWS / 2_000 + 1);
    // The downloads list showed intermediate progress while the job ran.
    expect(progress.some((p) => p.downloadPercent > 0 && p.downloadPercent < 100)).toBe(true);

    const text = fs.readFileSync(file, 'utf8');
    expect(text.startsWith('\uFEFF')).toBe(true);
    const rows = parseCsv(text.slice(1));
    expect(rows.length).toBe(ROWS + 1);
    expect(rows[0]).toEqual(['x.name', 'x.note', 'x.amount', 'x.opened', 'x.vip']);
    // Sorted by name: row i is person i. Amounts are exact decimals (n × 101 cents).
    expect(rows[1]).toEqual(['Person 000001', `'${DANGEROUS[1]}`, '1.01', '2026-01-02', 'Non']);
    expect(rows[2]!.slice(0, 3)).toEqual(['Person 000002', "'+1+1", '2.02']);
    expect(rows[3]![1]).toBe("'-2+3");
    expect(rows[4]![1]).toBe("'@SUM(A1:A2)");
    expect(rows[5]![1]).toBe("'\tTabbed");
    expect(rows[6]![1]).toBe("'\rReturn");
    expect(rows[ROWS]).toEqual([`Person 0${ROWS}`, '', '50500.00', '2026-01-21', 'Non']);
    // No cell anywhere starts a formula.
    expect(
      rows
        .slice(1)
        .flat()
        .filter((cell) => /^[=+@\t\r]/.test(cell) || /^-[^0-9]/.test(cell)),
    ).toEqual([]);
  });

  it('writes the same rows to XLSX that exceljs reads back, with numbers as numbers and no formula', async () => {
    const { download, file } = await runExport(ADMIN, 'cols=note,amount,opened_on', 'xlsx');
    expect(download.status).toBe('done');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(file);
    const sheet = workbook.worksheets[0]!;
    expect(sheet.rowCount).toBe(ROWS + 1);
    expect(sheet.getRow(1).values).toEqual([undefined, 'x.name', 'x.note', 'x.amount', 'x.opened']);
    const first = sheet.getRow(2);
    expect(first.getCell(1).value).toBe('Person 000001');
    expect(first.getCell(2).value).toBe(`'${DANGEROUS[1]}`);
    expect(first.getCell(3).value).toBe(1.01);
    expect(first.getCell(3).numFmt).toBe('0.00');
    expect(first.getCell(4).value).toEqual(new Date('2026-01-02T00:00:00Z'));
    expect(sheet.getRow(3).getCell(2).value).toBe("'+1+1");
    expect(sheet.getRow(5).getCell(2).value).toBe("'@SUM(A1:A2)");
    expect(sheet.getRow(ROWS + 1).getCell(3).value).toBe(50500);
    let formulas = 0;
    sheet.eachRow((row) =>
      row.eachCell((cell) => {
        if (cell.type === ExcelJS.ValueType.Formula) formulas++;
      }),
    );
    expect(formulas).toBe(0);
  });

  it('exports only the tab, filters and rows the user may see', async () => {
    const { file, progress } = await runExport(OFFICER, 'tab=overdue&f.status=closed&sort=-amount&cols=amount', 'csv');
    const rows = parseCsv(fs.readFileSync(file, 'utf8').slice(1)).slice(1);
    // Branch A holds even n; closed is n % 5 = 0; overdue is n % 9 > 0.
    const expected = Array.from({ length: ROWS }, (_, i) => i + 1)
      .filter((n) => n % 2 === 0 && n % 5 === 0 && n % 9 > 0)
      .reverse();
    expect(rows.map((r) => r[0])).toEqual(expected.map((n) => `Person ${String(n).padStart(6, '0')}`));
    expect(progress.at(-1)).toMatchObject({ done: expected.length, total: expected.length });
  });

  it('refuses a malformed list state before queueing anything', async () => {
    await expect(
      requestListExport(db, {
        tenantId: TENANT,
        userId: ADMIN,
        def: peopleList,
        query: 'sort=password',
        format: 'csv',
        language: 'en',
        fileBaseName: 'people',
        businessDate: '2026-03-15',
      }),
    ).rejects.toThrow(/sort/);
    const job = await getJob(db, 999_999);
    expect(job).toBeNull();
  });
});
