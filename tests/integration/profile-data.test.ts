import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db, Tx } from '#lib/db/index.ts';
import { createCustomer } from '#lib/lending/customers.ts';
import { repayLoan } from '#lib/lending/commands/repay-loan.ts';
import { listAudit } from '#lib/audit/record-audit.ts';
import {
  deleteCustomerFile,
  getCustomerFile,
  listCustomerFiles,
  readCustomerFile,
  uploadCustomerFile,
} from '#lib/customer-files/files.ts';
import { importBankStatement, listStatementImports } from '#lib/bank-statements/import.ts';
import {
  creditAnalysis,
  optInHistory,
  repaymentBehaviour,
  transactionMetrics,
} from '#lib/customer-analytics/analytics.ts';
import { findDuplicateCustomers } from '#lib/customer-analytics/duplicates.ts';
import { addCustomer, type NewCustomerForm } from '#lib/customer-analytics/intake.ts';
import {
  collateralSummary,
  customerCollaterals,
  deleteCollateral,
  updateCollateral,
  visibleCollateral,
} from '#lib/customer-analytics/collaterals.ts';
import { createCollateral, linkCollateral } from '#lib/lending/collaterals.ts';
import { createLendingFixture, setBusinessDate, type LendingFixture } from '../support/lending-fixtures.ts';
import { refused } from '../support/refused.ts';

function body(text: string | Buffer, chunk = 64 * 1024): ReadableStream<Uint8Array> {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(new Uint8Array(bytes.subarray(offset, offset + chunk)));
      offset += chunk;
    },
  });
}

function bureauPdf(): Buffer {
  const data = zlib.deflateSync(
    Buffer.from('BT /F1 12 Tf 72 720 Td (Bureau score: 688) Tj T* (Defaults: 0) Tj ET', 'latin1'),
  );
  return Buffer.concat([
    Buffer.from(`%PDF-1.4\n4 0 obj\n<< /Length ${data.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'),
    data,
    Buffer.from('\nendstream\nendobj\n%%EOF\n'),
  ]);
}

const filesIn = (dir: string) =>
  fs.existsSync(dir)
    ? fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length
    : 0;

describe.each(testDbKinds())('customer files, bank statements and analytics on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  let root: string;
  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db, { businessDate: '2026-01-15' });
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'customer-files-'));
  });
  afterAll(async () => {
    await drop();
    fs.rmSync(root, { recursive: true, force: true });
  });
  const t = <T>(fn: (tx: Tx) => Promise<T>) => db.tenant(f.tenantId, fn);
  const opts = () => ({ root });

  test('type and declared size are refused before the body is read; a body over the limit is cut at the limit; nothing is stored', async () => {
    let pulled = 0;
    const watched = new ReadableStream<Uint8Array>(
      {
        pull(c) {
          pulled++;
          c.enqueue(new Uint8Array(10));
        },
      },
      { highWaterMark: 0 },
    );
    const base = { customerId: f.customerId, kind: 'document', body: watched };
    expect(
      await refused(
        uploadCustomerFile(
          db,
          f.maker,
          { ...base, fileName: 'run.exe', contentType: 'application/x-msdownload', declaredLength: 10 },
          opts(),
        ),
      ),
    ).toMatchObject({ code: 'BAD_REQUEST', field: 'file' });
    expect(
      await refused(
        uploadCustomerFile(
          db,
          f.maker,
          { ...base, fileName: 'id.pdf', contentType: 'application/pdf', declaredLength: 50 * 1024 * 1024 },
          opts(),
        ),
      ),
    ).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413, field: 'file' });
    expect(pulled).toBe(0);
    const big = Buffer.alloc(2 * 1024 * 1024 + 1, 0x41);
    expect(
      await refused(
        importBankStatement(
          db,
          f.maker,
          {
            customerId: f.customerId,
            fileName: 's.csv',
            contentType: 'text/csv',
            declaredLength: null,
            body: body(big),
          },
          opts(),
        ),
      ),
    ).toMatchObject({ status: 413 });
    expect(filesIn(root)).toBe(0);
    expect(await t((tx) => listCustomerFiles(tx, f.customerId))).toEqual([]);
  });

  test('upload, list, read back, delete — each audited; a bureau PDF keeps its extracted text', async () => {
    const doc = await uploadCustomerFile(
      db,
      f.maker,
      {
        customerId: f.customerId,
        kind: 'document',
        fileName: '../../etc/passwd.txt',
        contentType: 'text/plain',
        declaredLength: 5,
        body: body('hello'),
      },
      opts(),
    );
    expect(doc).toMatchObject({ kind: 'document', file_name: 'passwd.txt', size_bytes: 5, extracted_text: null });
    expect(doc.storage_key.startsWith(`${f.tenantId}/${f.customerId}/`)).toBe(true);
    const pdf = await uploadCustomerFile(
      db,
      f.maker,
      {
        customerId: f.customerId,
        kind: 'bureau_pdf',
        fileName: 'bureau.pdf',
        contentType: 'application/pdf',
        declaredLength: null,
        body: body(bureauPdf(), 7),
      },
      opts(),
    );
    expect(pdf.extracted_text).toBe('Bureau score: 688\nDefaults: 0');
    expect(
      await refused(
        uploadCustomerFile(
          db,
          f.maker,
          {
            customerId: f.customerId,
            kind: 'bureau_pdf',
            fileName: 'fake.pdf',
            contentType: 'application/pdf',
            declaredLength: null,
            body: body('not a pdf'),
          },
          opts(),
        ),
      ),
    ).toMatchObject({ field: 'file' });
    expect((await t((tx) => listCustomerFiles(tx, f.customerId))).map((x) => x.file_name).sort()).toEqual([
      'bureau.pdf',
      'passwd.txt',
    ]);
    const again = await t((tx) => getCustomerFile(tx, f.customerId, doc.id, null));
    expect((await readCustomerFile(again, root)).toString()).toBe('hello');
    await deleteCustomerFile(db, f.maker, f.customerId, doc.id, opts());
    expect(await refused(t((tx) => getCustomerFile(tx, f.customerId, doc.id, null)))).toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(filesIn(root)).toBe(1);
    const trail = await t((tx) => listAudit(tx, 'customer_file', doc.id));
    expect(trail.map((a) => a.action)).toEqual(['customer_file.upload', 'customer_file.delete']);
    expect(trail[1].before).toMatchObject({ fileName: 'passwd.txt', sizeBytes: 5 });
  });

  test("a customer outside the caller's hierarchy scope is not found for files", async () => {
    const other = await t((tx) => createCustomer(tx, f.admin, { firstName: 'Out', lastName: 'Side' }));
    // A branch data permission naming a code that exists nowhere allows nothing (fail closed).
    const scoped = { ...f.maker, dataPermissions: [{ field: 'branch', value: 'NO-SUCH-BRANCH' }] };
    expect(
      await refused(
        uploadCustomerFile(
          db,
          scoped,
          {
            customerId: other.id,
            kind: 'document',
            fileName: 'a.txt',
            contentType: 'text/plain',
            declaredLength: 1,
            body: body('a'),
          },
          { root },
        ),
      ),
    ).toMatchObject({ code: 'NOT_FOUND' });
  });

  test('a bank statement with one bad row imports nothing and reports the rows; a good one feeds the monthly metrics once', async () => {
    const upload = (csv: string, name = 'jan-mar.csv') =>
      importBankStatement(
        db,
        f.maker,
        {
          customerId: f.customerId,
          fileName: name,
          contentType: 'text/csv',
          declaredLength: csv.length,
          body: body(csv),
        },
        opts(),
      );
    const bad = await refused(
      upload(
        'date,amount,description\n2026-01-01,2000.00,Salary\n2026-01-32,-10.00,Oops\n2026-01-03,12.345,Too precise\n',
      ),
    );
    expect(bad).toMatchObject({ code: 'UNPROCESSABLE', field: 'file' });
    expect(bad.details).toEqual({
      errorCount: 2,
      rows: [
        { row: 3, field: 'date', message: 'date must be a calendar date YYYY-MM-DD' },
        { row: 4, field: 'amount', message: 'Amount can have at most 2 decimal places.' },
      ],
    });
    expect(
      await t((tx) => tx.query(`select 1 from customer_bank_transactions where customer_id = $1`, [f.customerId])),
    ).toEqual([]);
    const csv = [
      'date,amount,description,category',
      '2026-01-01,2000.00,Salary,salary',
      '2026-01-05,-800.00,Rent,rent',
      '2026-01-20,-150.25,Groceries,groceries',
      '2026-02-01,2000.00,Salary,salary',
      '2026-02-05,-800.00,Rent,rent',
      '2026-03-01,2000.00,Salary,salary',
      '2026-03-05,-800.00,Rent,rent',
      '2026-03-06,-449.75,Market,groceries',
    ].join('\n');
    const { import: imported } = await upload(csv);
    expect(imported).toMatchObject({
      row_count: 8,
      first_date: '2026-01-01',
      last_date: '2026-03-06',
      currency: 'USD',
    });
    expect(await refused(upload(csv, 'again.csv'))).toMatchObject({ code: 'CONFLICT' });
    expect(await t((tx) => listStatementImports(tx, f.customerId))).toHaveLength(1);
    const metrics = await t((tx) => transactionMetrics(tx, f.customerId));
    expect(
      metrics.months.map((m) => [
        m.month,
        m.inflow,
        m.outflow,
        m.net_flow,
        m.closing_balance,
        m.min_balance,
        m.transaction_count,
      ]),
    ).toEqual([
      ['2026-01-01', 200_000n, 95_025n, 104_975n, 104_975n, 104_975n, 3],
      ['2026-02-01', 200_000n, 80_000n, 120_000n, 224_975n, 224_975n, 2],
      ['2026-03-01', 200_000n, 124_975n, 75_025n, 300_000n, 300_000n, 3],
    ]);
    expect(metrics).toMatchObject({
      averageInflow: 200_000n,
      averageOutflow: 100_000n,
      averageNetFlow: 100_000n,
      lastBalance: 300_000n,
      regularityBp: 10000,
    });
    const trail = await t((tx) => listAudit(tx, 'customer', f.customerId));
    expect(trail.find((a) => a.action === 'bank_statement.import')?.after).toMatchObject({
      rowCount: 8,
      inflow: '600000',
      outflow: '300000',
    });
  });

  test("repayment behaviour and the credit analysis come from the engine's installments and the metrics", async () => {
    const { loanId } = await f.disbursedLoan({ principal: '1200.00', numberOfRepayments: 12 });
    const due = await t((tx) =>
      tx.query<{ number: number; total: bigint }>(
        `select number, (principal_due + interest_due)::int8 as total from loan_installments where loan_id = $1 order by number`,
        [loanId],
      ),
    );
    expect(due[0].total).toBe(10_662n);
    await setBusinessDate(db, f.tenantId, '2026-02-15');
    await t((tx) => repayLoan(tx, f.checker, { loanId, amount: '106.62' }));
    await setBusinessDate(db, f.tenantId, '2026-04-20');
    await t((tx) => repayLoan(tx, f.checker, { loanId, amount: '106.62' }));
    const behaviour = await t((tx) => repaymentBehaviour(tx, f.customerId, '2026-04-20'));
    // 15 Feb paid on time; 15 Mar paid 36 days late; 15 Apr still open, 5 days late.
    expect(behaviour).toMatchObject({
      dueCount: 3,
      onTimeCount: 1,
      lateCount: 2,
      openLateCount: 1,
      onTimeRateBp: 3333,
      averageDaysLate: 20.5,
      maxDaysLate: 36,
    });
    expect(behaviour.byMonth.map((m) => [m.month, m.dueCount, m.onTimeCount, m.averageDaysLate])).toEqual([
      ['2026-02-01', 1, 1, 0],
      ['2026-03-01', 1, 0, 36],
      ['2026-04-01', 1, 0, 5],
    ]);
    const analysis = await t((tx) => creditAnalysis(tx, f.customerId, '2026-04-20'));
    const outstanding = due.reduce((s, d) => s + d.total, 0n) - 21_324n;
    expect(analysis).toMatchObject({
      currency: 'USD',
      monthsAnalysed: 3,
      averageInflow: 200_000n,
      averageOutflow: 100_000n,
      activeLoanCount: 1,
      monthlyDebtService: 10_662n,
      debtServiceRatioBp: 533,
      affordableInstallment: 69_338n,
      verdict: 'affordable',
      outstandingDebt: outstanding,
    });
    expect(outstanding).toBe(106_618n);
  });

  test('duplicates: same national id (spacing and case ignored) or same phone digits', async () => {
    const found = await t((tx) =>
      findDuplicateCustomers(tx, { nationalId: ` nid-${f.tenantId} `.toUpperCase(), phone: null }),
    );
    expect(found).toEqual([expect.objectContaining({ id: f.customerId, field: 'nationalId' })]);
    expect(await t((tx) => findDuplicateCustomers(tx, { phone: '+33 1 00 00 00 00' }))).toEqual([
      expect.objectContaining({ id: f.customerId, field: 'phone' }),
    ]);
    expect(await t((tx) => findDuplicateCustomers(tx, { phone: '+33 9 99', nationalId: 'nope' }))).toEqual([]);
  });
});

describe.each(testDbKinds())('adding a customer on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db, { businessDate: '2026-01-15' });
  });
  afterAll(() => drop());
  const form = (patch: Partial<NewCustomerForm> = {}): NewCustomerForm => ({
    firstName: 'Grace',
    lastName: 'Hopper',
    nationalId: '',
    phone: '',
    email: '',
    dateOfBirth: '',
    segment: '',
    isOptedOut: false,
    optOutReason: '',
    isDuplicateConfirmed: false,
    ...patch,
  });

  test('each invalid field is named; nothing is created', async () => {
    expect(await refused(addCustomer(db, f.maker, form({ firstName: ' ' })))).toMatchObject({ field: 'firstName' });
    expect(await refused(addCustomer(db, f.maker, form()))).toMatchObject({
      field: 'phone',
      message: 'Give a phone number or a national ID',
    });
    expect(await refused(addCustomer(db, f.maker, form({ phone: 'call me' })))).toMatchObject({ field: 'phone' });
    expect(await refused(addCustomer(db, f.maker, form({ phone: '+1 555 0100', email: 'nope' })))).toMatchObject({
      field: 'email',
    });
    expect(
      await refused(addCustomer(db, f.maker, form({ phone: '+1 555 0100', dateOfBirth: '2026-02-30' }))),
    ).toMatchObject({ field: 'dateOfBirth' });
    expect(
      await refused(addCustomer(db, f.maker, form({ phone: '+1 555 0100', dateOfBirth: '2026-01-15' }))),
    ).toMatchObject({ field: 'dateOfBirth' });
    expect(await refused(addCustomer(db, f.maker, form({ phone: '+1 555 0100', isOptedOut: true })))).toMatchObject({
      field: 'optOutReason',
    });
    const [{ count }] = await db.tenant(f.tenantId, (tx) =>
      tx.query<{ count: number }>(`select count(*)::int as count from customers`),
    );
    expect(count).toBe(1);
  });

  test('a used national ID is refused; a shared phone asks for confirmation; opting out keeps the reason in the history', async () => {
    expect(await refused(addCustomer(db, f.maker, form({ nationalId: `nid-${f.tenantId}` })))).toMatchObject({
      code: 'ALREADY_EXISTS',
      field: 'nationalId',
    });
    const asked = await addCustomer(db, f.maker, form({ phone: '+33 1 00 00 00 00' }));
    expect(asked).toEqual({
      kind: 'duplicates',
      matches: [expect.objectContaining({ id: f.customerId, field: 'phone' })],
    });
    const created = await addCustomer(
      db,
      f.maker,
      form({
        phone: '+33 1 00 00 00 00',
        isDuplicateConfirmed: true,
        isOptedOut: true,
        optOutReason: 'Asked by phone',
      }),
    );
    if (created.kind !== 'created') throw new Error('expected a customer');
    expect(created.customer).toMatchObject({
      first_name: 'Grace',
      opt_in_status: 'opted_out',
      phone: '+33 1 00 00 00 00',
    });
    const history = await db.tenant(f.tenantId, (tx) => optInHistory(tx, created.customer.id));
    // Both rows are written in one transaction (same timestamp), so compare them as a set.
    expect(history.map((h) => [h.status, h.reason]).sort()).toEqual([
      ['opted_in', 'created'],
      ['opted_out', 'Asked by phone'],
    ]);
    const trail = await db.tenant(f.tenantId, (tx) => listAudit(tx, 'customer', created.customer.id));
    expect(trail.map((a) => a.action).sort()).toEqual(['customer.create', 'customer.opt_out']);
  });
});

describe.each(testDbKinds())('collaterals on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db, { businessDate: '2026-01-15' });
  });
  afterAll(() => drop());
  const t = <T>(fn: (tx: Tx) => Promise<T>) => db.tenant(f.tenantId, fn);

  test('loan-to-value from the active linked loan; edit audited with before and after; delete refused while it secures an open loan', async () => {
    const c = await t((tx) =>
      createCollateral(tx, f.maker, {
        customerId: f.customerId,
        type: 'vehicle',
        currency: 'USD',
        value: '2400.00',
        valuationDate: '2026-01-10',
      }),
    );
    const { loanId } = await f.disbursedLoan({ principal: '1200.00', numberOfRepayments: 12 });
    await t((tx) => linkCollateral(tx, f.maker, loanId, c.id));
    expect(await t((tx) => customerCollaterals(tx, f.customerId))).toEqual([
      expect.objectContaining({ id: c.id, linked_loans: 1, secured_principal: 120_000n, ltv_bp: 5000 }),
    ]);
    expect(
      await refused(
        t((tx) =>
          updateCollateral(
            tx,
            f.maker,
            c.id,
            { type: 'boat', description: '', value: '1', valuationDate: '2026-01-10' },
            '2026-01-15',
          ),
        ),
      ),
    ).toMatchObject({ field: 'type' });
    expect(
      await refused(
        t((tx) =>
          updateCollateral(
            tx,
            f.maker,
            c.id,
            { type: 'vehicle', description: '', value: '1.001', valuationDate: '2026-01-10' },
            '2026-01-15',
          ),
        ),
      ),
    ).toMatchObject({ field: 'value' });
    expect(
      await refused(
        t((tx) =>
          updateCollateral(
            tx,
            f.maker,
            c.id,
            { type: 'vehicle', description: '', value: '10', valuationDate: '2026-02-01' },
            '2026-01-15',
          ),
        ),
      ),
    ).toMatchObject({ field: 'valuationDate' });
    await t((tx) =>
      updateCollateral(
        tx,
        f.maker,
        c.id,
        { type: 'vehicle', description: 'Van', value: '1600.00', valuationDate: '2026-01-14' },
        '2026-01-15',
      ),
    );
    expect(await t((tx) => collateralSummary(tx, c.id))).toMatchObject({
      value: 160_000n,
      description: 'Van',
      valuation_date: '2026-01-14',
      ltv_bp: 7500,
    });
    const trail = await t((tx) => listAudit(tx, 'collateral', c.id));
    expect(trail.find((a) => a.action === 'collateral.update')).toMatchObject({
      before: { value: '240000', type: 'vehicle' },
      after: { value: '160000', description: 'Van' },
    });
    expect(await refused(t((tx) => deleteCollateral(tx, f.maker, c.id)))).toMatchObject({ code: 'CONFLICT' });
    expect(await t((tx) => visibleCollateral(tx, c.id, ['00000000-0000-4000-8000-000000000001']))).toBeNull();
    const spare = await t((tx) =>
      createCollateral(tx, f.maker, {
        customerId: f.customerId,
        type: 'deposit',
        currency: 'USD',
        value: '50.00',
        valuationDate: '2026-01-10',
      }),
    );
    await t((tx) => deleteCollateral(tx, f.maker, spare.id));
    expect(await t((tx) => collateralSummary(tx, spare.id))).toBeNull();
    expect((await t((tx) => listAudit(tx, 'collateral', spare.id))).map((a) => a.action)).toContain(
      'collateral.delete',
    );
  });
});
