import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import type { Principal } from '#lib/auth/principal.ts';
import {
  analyticsHttp,
  downloadFileHttp,
  importStatementHttp,
  listFilesHttp,
  uploadFileHttp,
  type FilesApiContext,
} from '#lib/customer-files/http.ts';
import { listAudit } from '#lib/audit/record-audit.ts';
import { decideAccess } from '#lib/auth/guard.ts';
import { createLendingFixture, type LendingFixture } from '../support/lending-fixtures.ts';

const principalOf = (f: LendingFixture, authorities: string[]): Principal =>
  ({
    tenantId: f.tenantId,
    userId: 'officer',
    displayName: 'Officer',
    email: 'officer@example.test',
    isAdmin: false,
    authorities,
    dataPermissions: [],
    language: 'en',
    via: 'session',
    sessionId: null,
    passwordChangeRequired: false,
    sessionTimeout: 3600,
    idleTimeout: 3600,
  }) as Principal;

/** What the guard (the one permission point, before any endpoint runs) answers this caller. */
const guardStatus = (method: string, path: string, authorities: string[]) => {
  const decision = decideAccess({
    method,
    path,
    search: '',
    principal: { isAdmin: false, authorities, passwordChangeRequired: false },
  });
  return decision.kind === 'api-error' ? decision.status : decision.kind;
};

describe.each(testDbKinds())('customer files API on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  let root: string;
  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db);
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'files-api-'));
  });
  afterAll(async () => {
    await drop();
    fs.rmSync(root, { recursive: true, force: true });
  });
  const ctx = (authorities: string[], request: Request, fileId?: string): FilesApiContext => ({
    request,
    principal: principalOf(f, authorities),
    requestId: 'req-1',
    ip: '127.0.0.1',
    db,
    customerId: f.customerId,
    fileId,
    root,
  });
  const all = ['customer.files.view', 'customer.files.upload', 'customer.files.download'];
  const upload = (query: string, body: BodyInit, headers: Record<string, string>) =>
    new Request(`http://localhost/v1/customers/${f.customerId}/files?${query}`, {
      method: 'POST',
      body,
      headers,
      duplex: 'half',
    } as RequestInit);

  test('uploads are refused by type (400) or declared size (413) before reading, and without permission (403)', async () => {
    expect(guardStatus('POST', `/v1/customers/${f.customerId}/files`, ['customer.files.view'])).toBe(403);
    expect(guardStatus('POST', `/v1/customers/${f.customerId}/files`, ['customer.files.upload'])).toBe('allow');
    const badType = await uploadFileHttp(
      ctx(all, upload('kind=document&name=a.exe', 'MZ', { 'content-type': 'application/x-msdownload' })),
    );
    expect(badType.status).toBe(400);
    expect(await badType.json()).toMatchObject({ error: { code: 'BAD_REQUEST', field: 'file' } });
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>(
      {
        pull(c) {
          pulled++;
          c.enqueue(new Uint8Array(1024));
        },
      },
      { highWaterMark: 0 },
    );
    const tooBig = await uploadFileHttp(
      ctx(
        all,
        upload('kind=bureau_pdf&name=b.pdf', stream, {
          'content-type': 'application/pdf',
          'content-length': String(20 * 1024 * 1024),
        }),
      ),
    );
    expect(tooBig.status).toBe(413);
    expect(await tooBig.json()).toMatchObject({
      error: { code: 'PAYLOAD_TOO_LARGE', field: 'file', maxBytes: 10 * 1024 * 1024 },
    });
    expect(pulled).toBe(0);
  });

  test('upload 201, list, download with its headers (audited), 404 for a file of nobody', async () => {
    const created = await uploadFileHttp(
      ctx(all, upload('kind=document&name=note%20%C3%A9t%C3%A9.txt', 'hello world', { 'content-type': 'text/plain' })),
    );
    expect(created.status).toBe(201);
    const file = await created.json();
    expect(file).toMatchObject({ kind: 'document', fileName: 'note été.txt', sizeBytes: 11, hasExtractedText: false });
    const list = await listFilesHttp(ctx(all, new Request(`http://localhost/v1/customers/${f.customerId}/files`)));
    expect((await list.json()).items.map((x: { id: string }) => x.id)).toEqual([file.id]);
    const download = await downloadFileHttp(ctx(all, new Request('http://localhost/'), file.id));
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toBe(
      'attachment; filename="note _t_.txt"; filename*=UTF-8\'\'note%20%C3%A9t%C3%A9.txt',
    );
    expect(download.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await download.text()).toBe('hello world');
    expect((await db.tenant(f.tenantId, (tx) => listAudit(tx, 'customer_file', file.id))).map((a) => a.action)).toEqual(
      ['customer_file.upload', 'customer_file.download'],
    );
    expect(guardStatus('GET', `/v1/customers/${f.customerId}/files/${file.id}`, ['customer.files.view'])).toBe(403);
    expect(guardStatus('GET', `/v1/customers/${f.customerId}/files/${file.id}`, ['customer.files.download'])).toBe(
      'allow',
    );
    expect(
      (await downloadFileHttp(ctx(all, new Request('http://localhost/'), '00000000-0000-4000-8000-000000000000')))
        .status,
    ).toBe(404);
  });
});

describe.each(testDbKinds())('bank statement and analytics API on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  let root: string;
  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db, { businessDate: '2026-04-10' });
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'statements-api-'));
  });
  afterAll(async () => {
    await drop();
    fs.rmSync(root, { recursive: true, force: true });
  });
  const ctx = (authorities: string[], request: Request): FilesApiContext => ({
    request,
    principal: principalOf(f, authorities),
    requestId: 'req-2',
    ip: '127.0.0.1',
    db,
    customerId: f.customerId,
    root,
  });
  const post = (csv: string) =>
    new Request(`http://localhost/v1/customers/${f.customerId}/bank-statements?name=q1.csv`, {
      method: 'POST',
      body: csv,
      headers: { 'content-type': 'text/csv' },
    });
  const may = ['customer.files.upload', 'customer.bank_statements.view', 'customer.profile.view'];

  test('422 with the faulty rows and nothing stored; 201 then 409 for the same file; analytics reflect it', async () => {
    const bad = await importStatementHttp(ctx(may, post('date,amount\n2026-01-01,10\n2026-01-02,ten\n')));
    expect(bad.status).toBe(422);
    expect(await bad.json()).toEqual({
      error: {
        code: 'UNPROCESSABLE',
        message: 'The statement was not imported: 1 row(s) have errors',
        field: 'file',
        errorCount: 1,
        rows: [{ row: 3, field: 'amount', message: 'Amount must be an amount written with digits, such as 10.50.' }],
      },
    });
    const csv =
      'date,amount\n2026-01-01,1000.00\n2026-01-03,-250.10\n2026-02-01,1000.00\n2026-03-01,1000.00\n2026-03-02,-99.99\n';
    const ok = await importStatementHttp(ctx(may, post(csv)));
    expect(ok.status).toBe(201);
    expect(await ok.json()).toMatchObject({
      rowCount: 5,
      firstDate: '2026-01-01',
      lastDate: '2026-03-02',
      currency: 'USD',
    });
    expect((await importStatementHttp(ctx(may, post(csv)))).status).toBe(409);
    // Importing needs both the upload and the statements permission (an implied key of the permission module).
    expect(
      guardStatus('POST', `/v1/customers/${f.customerId}/bank-statements`, ['customer.bank_statements.view']),
    ).toBe(403);
    expect(guardStatus('POST', `/v1/customers/${f.customerId}/bank-statements`, ['customer.files.upload'])).toBe(403);
    expect(guardStatus('POST', `/v1/customers/${f.customerId}/bank-statements`, may)).toBe('allow');
    const analytics = await analyticsHttp(ctx(may, new Request('http://localhost/')));
    const body = await analytics.json();
    expect(body.metrics).toMatchObject({
      averageInflow: '100000',
      averageOutflow: '11669',
      averageNetFlow: '88330',
      lastBalance: '264991',
      regularityBp: 10000,
    });
    expect(body.creditAnalysis).toBeNull();
    const withCredit = await (
      await analyticsHttp(ctx([...may, 'customer.credit_analysis.view'], new Request('http://localhost/')))
    ).json();
    expect(withCredit.creditAnalysis).toMatchObject({
      monthsAnalysed: 3,
      monthlyDebtService: '0',
      affordableInstallment: '40000',
      verdict: 'affordable',
    });
  });
});
