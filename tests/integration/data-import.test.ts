import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import ExcelJS from 'exceljs';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import { setDb, type Db, type Tx } from '#lib/db/index.ts';
import type { Principal } from '#lib/auth/principal.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { bodyLimitFor } from '#lib/http/body-limit.ts';
import { readUploadedFile } from '#lib/http/upload.ts';
import { submitApplication } from '#lib/lending/commands/submit-application.ts';
import { approveApplication } from '#lib/lending/commands/approve-application.ts';
import { disburseLoan } from '#lib/lending/commands/disburse-loan.ts';
import { repayLoan } from '#lib/lending/commands/repay-loan.ts';
import { createCustomer } from '#lib/lending/customers.ts';
import { MAX_IMPORT_BYTES, parseImportFile } from '#lib/data-import/file.ts';
import { createImport, processImport } from '#lib/data-import/imports.ts';
import { registerDataImportJobs } from '#lib/data-import/register.ts';
import { startWorker } from '#lib/jobs/worker.ts';
import type { ImportKind } from '#lib/data-import/kinds.ts';
import { USAGE_MEASURES, DATA_SOURCES, FLOW_LINKS } from '#lib/data-flow/registry.ts';
import { createLendingFixture, setBusinessDate, type LendingFixture } from '../support/lending-fixtures.ts';
import * as importsApi from '../../src/pages/v1/data-imports/index.ts';
import * as importApi from '../../src/pages/v1/data-imports/[id].ts';
import * as commitApi from '../../src/pages/v1/data-imports/[id]/commit.ts';

/** A customer CSV of `n` rows (`;` separated, with a BOM and quoted fields); `bad` breaks one row's date. */
function customerCsv(n: number, prefix: string, bad?: number): Uint8Array {
  const lines = ['\uFEFFCustomer ID;First name;Last name;E-mail;Date of birth;Phone'];
  for (let i = 1; i <= n; i++) {
    const date = i === bad ? '1990-02-30' : `19${50 + (i % 40)}-0${1 + (i % 9)}-1${i % 9}`;
    lines.push(
      `${prefix}-${i};"Ann ${i}";"Smith; Jr";ann${i}@example.test;${date};+3360000${String(i).padStart(4, '0')}`,
    );
  }
  return new TextEncoder().encode(lines.join('\r\n') + '\r\n');
}

describe.each(testDbKinds())('data upload on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  const t = <T>(fn: (tx: Tx) => Promise<T>) => db.tenant(f.tenantId, fn);
  const count = async (sql: string) => (await t((tx) => tx.query<{ n: number }>(sql)))[0].n;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    setDb(db);
    f = await createLendingFixture(db, { businessDate: '2026-06-15' });
  });
  afterAll(async () => drop());

  async function upload(kindName: ImportKind, bytes: Uint8Array, name = 'file.csv') {
    const parsed = await parseImportFile(bytes);
    return t((tx) => createImport(tx, f.admin, { kind: kindName, fileName: name, bytes, parsed }));
  }

  test('10,000 customers with one bad row: dry run and commit refuse the whole file naming row 7,342; the fixed file imports once', async () => {
    const before = await count(`select count(*)::int as n from customers`);
    const bad = await upload('customers', customerCsv(10_000, 'BIG', 7_341), 'customers.csv');
    expect(bad.total_rows).toBe(10_000);
    // Header is row 1, so the 7,341st customer is row 7,342 of the file.
    for (const mode of ['dry_run', 'commit'] as const) {
      const out = await processImport(db, f.admin, bad.id, mode);
      expect(out.status).toBe('refused');
      expect(out.errorCount).toBe(1);
      expect(out.errors[0]).toMatchObject({ row: 7_342, column: 'Date of birth', key: 'date.invalid' });
      expect(out.created).toBe(0);
    }
    expect(await count(`select count(*)::int as n from customers`)).toBe(before);

    const good = await upload('customers', customerCsv(10_000, 'BIG'), 'customers-fixed.csv');
    const first = await processImport(db, f.admin, good.id, 'commit');
    expect(first).toMatchObject({ status: 'imported', created: 10_000, skipped: 0, errorCount: 0 });
    expect(await count(`select count(*)::int as n from customers where external_id like 'BIG-%'`)).toBe(10_000);
    const [c] = await t((tx) =>
      tx.query<{ first_name: string; last_name: string; date_of_birth: string }>(
        `select first_name, last_name, to_char(date_of_birth, 'YYYY-MM-DD') as date_of_birth from customers where external_id = 'BIG-7341'`,
      ),
    );
    expect(c).toEqual({ first_name: 'Ann 7341', last_name: 'Smith; Jr', date_of_birth: '1971-07-16' });

    const again = await upload('customers', customerCsv(10_000, 'BIG'), 'customers-fixed.csv');
    expect(again.is_duplicate_file).toBe(true);
    const second = await processImport(db, f.admin, again.id, 'commit');
    expect(second).toMatchObject({ status: 'imported', created: 0, skipped: 10_000, errorCount: 0 });
    expect(await count(`select count(*)::int as n from customers where external_id like 'BIG-%'`)).toBe(10_000);
    // Each created customer published its event through the command (the outbox).
    expect(
      await count(`select count(*)::int as n from domain_events where type like 'customer.%' and object_id in
                     (select id::text from customers where external_id like 'BIG-%')`),
    ).toBe(10_000);
  }, 600_000);

  test('XLSX: a missing required field refuses the file naming its row; the fixed workbook imports once; =cmd cells stay text', async () => {
    const workbook = async (missingAt?: number) => {
      const wb = new ExcelJS.Workbook();
      const ws = wb.addWorksheet('Customers');
      ws.addRow(['external_id', 'first_name', 'last_name', 'national_id']);
      for (let i = 1; i <= 300; i++)
        ws.addRow([
          `X-${i}`,
          i === 5 ? "=cmd|' /C calc'!A0" : `Xavier ${i}`,
          i === missingAt ? '' : `Lee ${i}`,
          `NX${i}`,
        ]);
      ws.addRow(['X-301', '@SUM(1+1)', { formula: 'HYPERLINK("http://evil.test","x")' }, 'NX301']);
      return new Uint8Array(await wb.xlsx.writeBuffer());
    };
    const bad = await upload('customers', await workbook(120), 'customers.xlsx');
    const refused = await processImport(db, f.admin, bad.id, 'commit');
    expect(refused.status).toBe('refused');
    expect(refused.errors).toEqual([
      expect.objectContaining({ row: 121, column: 'last_name', key: 'dataimport.required' }),
    ]);
    expect(await count(`select count(*)::int as n from customers where external_id like 'X-%'`)).toBe(0);

    const good = await upload('customers', await workbook(), 'customers.xlsx');
    expect(good.file_type).toBe('xlsx');
    expect(await processImport(db, f.admin, good.id, 'commit')).toMatchObject({ created: 301, skipped: 0 });
    const again = await upload('customers', await workbook(), 'customers (copy).xlsx');
    expect(await processImport(db, f.admin, again.id, 'commit')).toMatchObject({ created: 0, skipped: 301 });
    const rows = await t((tx) =>
      tx.query<{ external_id: string; first_name: string; last_name: string }>(
        `select external_id, first_name, last_name from customers where external_id in ('X-5', 'X-301') order by external_id`,
      ),
    );
    expect(rows).toEqual([
      { external_id: 'X-301', first_name: '@SUM(1+1)', last_name: '=HYPERLINK("http://evil.test","x")' },
      { external_id: 'X-5', first_name: "=cmd|' /C calc'!A0", last_name: 'Lee 5' },
    ]);
    // A CSV formula cell stays text too.
    const csv = await upload(
      'customers',
      new TextEncoder().encode('external_id,first_name,last_name\nF-1,"=cmd|\' /C calc\'!A0",+1+1\n'),
    );
    await processImport(db, f.admin, csv.id, 'commit');
    const [formula] = await t((tx) =>
      tx.query<{ first_name: string; last_name: string }>(
        `select first_name, last_name from customers where external_id = 'F-1'`,
      ),
    );
    expect(formula).toEqual({ first_name: "=cmd|' /C calc'!A0", last_name: '+1+1' });
  }, 120_000);

  test('loans with history replayed through the engine have the balances of the same loans made with the commands', async () => {
    await upload(
      'customers',
      new TextEncoder().encode('external_id,first_name,last_name\nL-C1,Lin,One\nL-C2,Lin,Two\n'),
    ).then((row) => processImport(db, f.admin, row.id, 'commit'));
    const loansCsv = [
      'external_id,customer_external_id,product,principal,number_of_repayments,disbursed_on,repayments',
      'LN-1,L-C1,EMI12,1200.00,12,2026-01-10,"2026-02-10=106.62|2026-03-10=106.62|2026-04-20=50.00"',
      'LN-2,L-C2,EMI12,5000.00,6,2026-03-01,',
    ].join('\n');
    const loans = await upload('loans', new TextEncoder().encode(loansCsv), 'loans.csv');
    const dry = await processImport(db, f.admin, loans.id, 'dry_run');
    expect(dry).toMatchObject({ status: 'checked', created: 2 });
    expect(
      await count(
        `select count(*)::int as n from loans where application_id in (select id from loan_applications where form_data->>'source' = 'import')`,
      ),
    ).toBe(0);
    const done = await processImport(db, f.admin, loans.id, 'commit');
    expect(done).toMatchObject({ status: 'imported', created: 2, firstDate: '2026-01-10', lastDate: '2026-03-01' });
    // The business date is where it was.
    expect(
      (await t((tx) => tx.query<{ d: string }>(`select to_char(business_date, 'YYYY-MM-DD') as d from tenants`)))[0].d,
    ).toBe('2026-06-15');

    // A repayment file against the imported loan (by its external id), then the same file again.
    const repayCsv = 'external_id;loan;amount;date\nR-1;LN-2;900.00;2026-04-01\nR-2;LN-2;900.00;2026-05-01\n';
    const repay = await upload('repayments', new TextEncoder().encode(repayCsv), 'repayments.csv');
    expect(await processImport(db, f.admin, repay.id, 'commit')).toMatchObject({ created: 2 });
    const repayAgain = await upload('repayments', new TextEncoder().encode(repayCsv), 'repayments.csv');
    expect(await processImport(db, f.admin, repayAgain.id, 'commit')).toMatchObject({ created: 0, skipped: 2 });

    // The same two loans through the commands, at the same dates.
    const made: string[] = [];
    for (const spec of [
      {
        principal: '1200.00',
        n: 12,
        on: '2026-01-10',
        pays: [
          ['2026-02-10', '106.62'],
          ['2026-03-10', '106.62'],
          ['2026-04-20', '50.00'],
        ],
      },
      {
        principal: '5000.00',
        n: 6,
        on: '2026-03-01',
        pays: [
          ['2026-04-01', '900.00'],
          ['2026-05-01', '900.00'],
        ],
      },
    ]) {
      await setBusinessDate(db, f.tenantId, spec.on);
      const customer = await t((tx) => createCustomer(tx, f.maker, { firstName: 'Cmd', lastName: spec.on }));
      const { application, loanId } = await t((tx) =>
        submitApplication(tx, f.maker, {
          customerId: customer.id,
          productId: f.productId,
          principal: spec.principal,
          numberOfRepayments: spec.n,
          expectedDisbursementDate: spec.on,
        }),
      );
      await t((tx) => approveApplication(tx, f.checker, application.id));
      await t((tx) => disburseLoan(tx, f.maker, { loanId, date: spec.on }));
      await setBusinessDate(db, f.tenantId, '2026-06-15');
      for (const [date, amount] of spec.pays) await t((tx) => repayLoan(tx, f.maker, { loanId, amount, date }));
      made.push(loanId);
    }
    const state = (loanId: string) =>
      t(async (tx) => ({
        loan: (
          await tx.query(
            `select status, principal, to_char(disbursed_on, 'YYYY-MM-DD') as disbursed_on, credit_balance from loans where id = $1`,
            [loanId],
          )
        )[0],
        installments: await tx.query(
          `select number, to_char(due_date, 'YYYY-MM-DD') as due, principal_due, interest_due, principal_paid, interest_paid,
                  fee_paid, penalty_paid from loan_installments where loan_id = $1 order by number`,
          [loanId],
        ),
        transactions: await tx.query(
          `select type, to_char(transaction_date, 'YYYY-MM-DD') as date, amount, principal_portion, interest_portion
             from loan_transactions where loan_id = $1 order by transaction_date, seq`,
          [loanId],
        ),
      }));
    const imported = await t((tx) =>
      tx.query<{ natural_key: string; object_id: string }>(
        `select natural_key, object_id from data_import_keys where kind = 'loan' order by natural_key`,
      ),
    );
    expect(imported.map((k) => k.natural_key)).toEqual(['LN-1', 'LN-2']);
    for (let i = 0; i < 2; i++) {
      const a = await state(imported[i].object_id);
      expect(a.transactions.length).toBeGreaterThan(1);
      expect(a).toEqual(await state(made[i]));
    }
  }, 120_000);

  test('bank transactions and references: unknown customers and bad amounts are named by row; good lines import once', async () => {
    const badCsv =
      'external_id,customer_external_id,date,amount,description\nB-1,L-C1,2026-05-02,250.00,Salary\nB-2,NOPE,2026-05-03,-12.5x,Groceries\n';
    const bad = await upload('bank_transactions', new TextEncoder().encode(badCsv));
    const out = await processImport(db, f.admin, bad.id, 'dry_run');
    expect(out.status).toBe('refused');
    expect(out.errors.map((e) => [e.row, e.column])).toEqual([
      [3, 'customer_external_id'],
      [3, 'amount'],
    ]);
    const goodCsv =
      'external_id,customer_external_id,date,amount,description\nB-1,L-C1,2026-05-02,250.00,Salary\nB-2,L-C1,2026-05-03,-12.50,Groceries\n';
    const good = await upload('bank_transactions', new TextEncoder().encode(goodCsv));
    expect(await processImport(db, f.admin, good.id, 'commit')).toMatchObject({ created: 2 });
    const lines = await t((tx) =>
      tx.query<{ amount: bigint; balance_after: bigint; source: string }>(
        `select amount, balance_after, source from customer_bank_transactions order by booked_on`,
      ),
    );
    expect(lines).toEqual([
      { amount: 25000n, balance_after: 25000n, source: 'import' },
      { amount: -1250n, balance_after: 23750n, source: 'import' },
    ]);
    const again = await upload('bank_transactions', new TextEncoder().encode(goodCsv));
    expect(await processImport(db, f.admin, again.id, 'commit')).toMatchObject({ created: 0, skipped: 2 });
  });

  test('a branch-scoped importer cannot write bank lines (or loans) for a customer of another branch', async () => {
    const [a, b] = await t(async (tx) => {
      const ids: string[] = [];
      for (const code of ['RV-A', 'RV-B'])
        ids.push(
          (
            await tx.query<{ id: string }>(
              `insert into hierarchy_nodes (tenant_id, level, code, name) values ($1, 'branch', $2, $2) returning id`,
              [f.tenantId, code],
            )
          )[0].id,
        );
      await createCustomer(tx, f.admin, { externalId: 'SC-A', firstName: 'In', lastName: 'Scope', branchId: ids[0] });
      await createCustomer(tx, f.admin, { externalId: 'SC-B', firstName: 'Out', lastName: 'Scope', branchId: ids[1] });
      return ids;
    });
    expect(a).not.toBe(b);
    const scoped = { ...f.admin, isAdmin: false, dataPermissions: [{ field: 'branch', value: 'RV-A' }] };
    const csv =
      'external_id,customer_external_id,date,amount,description\nSB-1,SC-A,2026-05-02,10.00,Mine\nSB-2,SC-B,2026-05-02,99.00,Theirs\n';
    const up = await upload('bank_transactions', new TextEncoder().encode(csv));
    const out = await processImport(db, scoped, up.id, 'commit');
    expect(out.status).toBe('refused');
    expect(out.errors.map((e) => [e.row, e.column])).toEqual([[3, 'customer_external_id']]);
    expect(
      await count(`select count(*)::int as n from customer_bank_transactions b join customers c on c.id = b.customer_id
                    where c.external_id = 'SC-B'`),
    ).toBe(0);
    // The same file by an unrestricted administrator names no error.
    const again = await upload('bank_transactions', new TextEncoder().encode(csv));
    expect(await processImport(db, f.admin, again.id, 'dry_run')).toMatchObject({ status: 'checked' });
  });

  test('the API: oversize is 413 before reading, a wrong type is 400, hostile names stay text, a commit is a job', async () => {
    expect(bodyLimitFor('/v1/data-imports?kind=customers')).toBeGreaterThanOrEqual(MAX_IMPORT_BYTES);
    expect(bodyLimitFor('/v1/data-imports?kind=customers')).toBeLessThan(MAX_IMPORT_BYTES + 1024 * 1024);
    const admin: Principal = {
      tenantId: f.tenantId,
      userId: f.admin.userId,
      displayName: 'Admin',
      email: 'admin@example.test',
      isAdmin: true,
      authorities: [],
      dataPermissions: [],
      language: 'en',
      via: 'session',
      sessionId: null,
      passwordChangeRequired: false,
      sessionTimeout: 60,
      idleTimeout: 60,
    } as Principal;
    const call = async (
      handler: unknown,
      path: string,
      init: { body?: BodyInit; headers?: Record<string, string>; method?: string } = {},
      params: Record<string, string> = {},
    ) => {
      const request = new Request(`http://localhost${path}`, {
        method: init.method ?? 'POST',
        ...init,
        duplex: 'half',
      } as RequestInit);
      const response = await (handler as (c: never) => Promise<Response>)({
        request,
        params,
        clientAddress: '127.0.0.1',
        locals: { principal: admin, requestId: 'r', language: 'en' },
      } as never);
      return { status: response.status, body: await response.json() };
    };
    // A declared length over the limit: refused before a byte is read.
    let read = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        read += 65536;
        controller.enqueue(new Uint8Array(65536));
      },
    });
    const declared = await call(importsApi.POST, '/v1/data-imports?kind=customers&name=big.csv', {
      body: endless,
      headers: { 'content-type': 'text/csv', 'content-length': String(MAX_IMPORT_BYTES + 1) },
    });
    expect(declared.status).toBe(413);
    expect(read).toBeLessThanOrEqual(65536 * 2);
    // No declared length: refused as soon as it passes the limit.
    await expect(
      readUploadedFile(
        new Request('http://localhost/v1/data-imports', {
          method: 'POST',
          body: new ReadableStream({
            pull(c) {
              c.enqueue(new Uint8Array(1024 * 1024));
            },
          }),
          headers: { 'content-type': 'text/csv' },
          duplex: 'half',
        } as RequestInit),
        MAX_IMPORT_BYTES,
      ),
    ).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });

    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    const wrong = await call(importsApi.POST, '/v1/data-imports?kind=customers&name=customers.csv', {
      body: png,
      headers: { 'content-type': 'text/csv' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({ field: 'file' });
    const fakeZip = await call(importsApi.POST, '/v1/data-imports?kind=customers&name=customers.xlsx', {
      body: new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3]),
      headers: { 'content-type': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' },
    });
    expect(fakeZip.status).toBe(400);
    expect(await parseImportFile(new Uint8Array([0xff, 0xfe, 0x41])).catch((e: AppError) => e.status)).toBe(400);

    const hostile = '<img src=x onerror=alert(1)>.csv';
    const form = new FormData();
    form.set('kind', 'customers');
    form.set('file', new Blob(['external_id,first_name,last_name\nAPI-1,Api,User\n'], { type: 'text/csv' }), hostile);
    const created = await call(importsApi.POST, '/v1/data-imports', { body: form });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      fileName: hostile,
      status: 'uploaded',
      totalRows: 1,
      suggestedMapping: { external_id: 'external_id', first_name: 'first_name', last_name: 'last_name' },
    });
    const queued = await call(
      commitApi.POST,
      `/v1/data-imports/${created.body.id}/commit`,
      {
        body: JSON.stringify({ mapping: { external_id: 'external_id', first_name: 'first_name' } }),
        headers: { 'content-type': 'application/json' },
      },
      { id: created.body.id },
    );
    expect(queued.status).toBe(400);
    expect(queued.body.error.field).toBe('mapping.last_name');
    const ok = await call(
      commitApi.POST,
      `/v1/data-imports/${created.body.id}/commit`,
      {
        body: JSON.stringify({}),
        headers: { 'content-type': 'application/json' },
      },
      { id: created.body.id },
    );
    expect(ok.body).toMatchObject({ status: 'queued' });
    expect(ok.status).toBe(202);
    expect(ok.body.status).toBe('queued');
    const jobs = await db.system((tx) =>
      tx.query<{ name: string; payload: { importId: string; mode: string } }>(
        `select name, payload from jobs where name = 'data_import.run'`,
      ),
    );
    expect(jobs.map((j) => [j.payload.importId, j.payload.mode])).toEqual([[created.body.id, 'commit']]);
    const state = await call(
      importApi.GET,
      `/v1/data-imports/${created.body.id}`,
      { method: 'GET' },
      { id: created.body.id },
    );
    expect(state.body).toMatchObject({ status: 'queued', progress: { done: 0, total: 1 } });
    // The job runs the import with the uploader as the actor.
    registerDataImportJobs();
    const worker = startWorker(db, { pollMs: 20, concurrency: 1 });
    try {
      await worker.idle();
    } finally {
      await worker.stop();
    }
    const after = await call(
      importApi.GET,
      `/v1/data-imports/${created.body.id}`,
      { method: 'GET' },
      { id: created.body.id },
    );
    expect(after.body).toMatchObject({ status: 'imported', created: 1, skipped: 0, progress: { done: 1, total: 1 } });
    const [apiUser] = await t((tx) =>
      tx.query<{ n: number }>(
        `select count(*)::int as n from audit_log where action = 'customer.create' and actor_id = $1 and object_id in (select id::text from customers where external_id = 'API-1')`,
        [f.admin.userId],
      ),
    );
    expect(apiUser.n).toBe(1);
  });

  test('two imports of the same file at once create its rows once', async () => {
    const bytes = customerCsv(50, 'RACE');
    const a = await upload('customers', bytes);
    const b = await upload('customers', bytes);
    const [ra, rb] = await Promise.all([
      processImport(db, f.admin, a.id, 'commit'),
      processImport(db, f.admin, b.id, 'commit'),
    ]);
    expect([ra.status, rb.status]).toEqual(['imported', 'imported']);
    expect(ra.created + rb.created).toBe(50);
    expect(ra.skipped + rb.skipped).toBe(50);
    expect(await count(`select count(*)::int as n from customers where external_id like 'RACE-%'`)).toBe(50);
  });

  test('the data-flow registry reads the imports', async () => {
    const links = FLOW_LINKS.filter((l) => l.id.startsWith('imports.') || l.id.startsWith('buckets.'));
    const since = new Date(Date.now() - 86_400_000);
    const states = await t((tx) => Promise.all(links.map((l) => l.read(tx, since))));
    expect(states[0].volume).toBeGreaterThan(10_000);
    const source = DATA_SOURCES.find((s) => s.id === 'imports')!;
    const coverage = await t((tx) => source.read(tx));
    expect(coverage.from).toBe('2026-01-10');
    const month = new Date().toISOString().slice(0, 7);
    const usage = await t((tx) =>
      Promise.all(USAGE_MEASURES.filter((m) => m.id.startsWith('imports.')).map((m) => m.read(tx, [month]))),
    );
    expect(usage[0][month]).toBeGreaterThan(10_000);
    expect(usage[1][month]).toBeGreaterThan(5);
  });
});
