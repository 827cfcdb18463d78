import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '#lib/auth/principal.ts';
import { setDb, type Db } from '#lib/db/index.ts';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import { formOf } from '#lib/forms/build.ts';
import {
  downloadSubmissionFileHttp,
  getSubmissionHttp,
  listSubmissionsHttp,
  exportSubmissionsHttp,
} from '#lib/forms/submissions-http.ts';
import { DEMO_TENANTS, seedDemo } from '#lib/seed/demo.ts';
import { currentUser } from '#lib/tenancy/users.ts';
import { actorFromPrincipal } from '#lib/lending/actor.ts';
import { createCustomer } from '#lib/lending/customers.ts';
import { insertForm, insertSubmission, insertSubmissionFile } from '../support/form-submissions.ts';

process.env.SESSION_SECRET ??= 'a-test-session-secret-that-is-long-enough-0123456789';

const A = DEMO_TENANTS.demo;
const B = DEMO_TENANTS.acme;

const V1 = formOf([
  {
    id: 'you',
    title: { en: 'You', fr: 'Vous' },
    fields: [
      {
        name: 'first',
        widget: 'text',
        label: { en: 'First name', fr: 'Prénom' },
        required: true,
        ui: { bind: 'customer.firstName' },
      },
      {
        name: 'last',
        widget: 'text',
        label: { en: 'Last name', fr: 'Nom' },
        required: true,
        ui: { bind: 'customer.lastName' },
      },
      { name: 'amount', widget: 'money', label: { en: 'Amount', fr: 'Montant' }, required: true },
      {
        name: 'purpose',
        widget: 'select',
        label: { en: 'Purpose', fr: 'Objet' },
        ui: {
          options: [
            { value: 'car', label: { en: 'A car', fr: 'Une voiture' } },
            { value: 'home', label: { en: 'Home works', fr: 'Des travaux' } },
          ],
        },
      },
      { name: 'employed', widget: 'checkbox', label: { en: 'Employed', fr: 'Salarié' } },
      { name: 'payslip', widget: 'file', label: { en: 'Payslip', fr: 'Fiche de paie' } },
    ],
  },
]);
// Version 2 renames a label (the old submissions keep version 1's).
const V2 = structuredClone(V1);
V2.ui.fields.amount.label = { en: 'Amount wanted', fr: 'Montant souhaité' };

async function principalOf(db: Db, tenantId: string, email: string): Promise<Principal> {
  const [row] = await db.tenant(tenantId, (tx) =>
    tx.query<{ id: string }>('select id::text as id from users where lower(email) = $1', [email]),
  );
  const user = await db.tenant(tenantId, (tx) => currentUser(tx, row.id));
  return {
    tenantId,
    userId: user.id,
    displayName: user.display_name,
    email: user.email,
    isAdmin: user.is_admin,
    authorities: user.authorities,
    dataPermissions: user.data_permissions,
    language: user.language,
    via: 'session',
    sessionId: null,
    passwordChangeRequired: false,
    sessionTimeout: user.session_timeout,
    idleTimeout: 60,
  };
}

describe.each(testDbKinds())('form submissions (admin list, detail, files, export) on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let admin: Principal;
  let adminB: Principal;
  let root: string;
  let formId: string;
  const ids: Record<string, string> = {};
  let fileId: string;
  let customerId: string;

  const ctx = (principal: Principal, url: string, language: 'en' | 'fr' = 'en') => ({
    request: new Request(`http://localhost${url}`),
    principal,
    requestId: 'req-submissions',
    ip: null,
    db,
    language,
    root,
  });
  const json = async (pending: Response | Promise<Response>) => {
    const response = await pending;
    return { status: response.status, body: await response.json() };
  };
  const list = (query = '', principal = admin) =>
    json(listSubmissionsHttp(ctx(principal, `/v1/application-forms/${formId}/submissions?${query}`), formId));

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    await seedDemo(db, { password: 'Submissions-Test-Passphrase-1' });
    setDb(db);
    admin = await principalOf(db, A, 'admin@demo.test');
    adminB = await principalOf(db, B, 'admin@acme.test');
    root = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'subs-files-'));
    formId = await insertForm(db, A, { slug: `subs-test-${kind}`, name: 'Personal loan', versions: [V1, V2] });
    customerId = (
      await db.tenant(A, (tx) =>
        createCustomer(tx, actorFromPrincipal(admin), {
          firstName: 'Zoe',
          lastName: 'Marten',
          nationalId: `NID-SUBS-${kind}`,
          phone: '+33100000001',
        }),
      )
    ).id;
    ids.old = await insertSubmission(db, A, {
      formId,
      version: 1,
      reference: 'REF-OLD-01',
      answers: { first: 'Ada', last: 'Lovelace', amount: '1500.50', purpose: 'car', employed: true },
      status: 'processed',
      customerMatch: 'created',
      outcome: 'approved',
      createdAt: '2026-01-05T10:00:00Z',
    });
    ids.review = await insertSubmission(db, A, {
      formId,
      version: 2,
      reference: 'REF-REV-02',
      answers: { first: 'Zoé', last: 'Martin', amount: '=1+2', purpose: 'home', payslip: 'x' },
      status: 'processed',
      customerId,
      customerMatch: 'review',
      customerDifferences: [{ field: 'phone', stored: '+33 1 00', submitted: '+33 6 11' }],
      outcome: 'referred',
      language: 'fr',
      createdAt: '2026-02-10T10:00:00Z',
    });
    ids.failed = await insertSubmission(db, A, {
      formId,
      version: 2,
      reference: 'REF-FAIL-03',
      answers: { first: '<script>alert(1)</script>', last: 'X', amount: '10' },
      status: 'failed',
      error: 'The product is closed',
      createdAt: '2026-03-01T10:00:00Z',
    });
    fileId = await insertSubmissionFile(db, A, root, {
      submissionId: ids.review,
      field: 'payslip',
      fileName: 'payslip "march".pdf',
      contentType: 'application/pdf',
      bytes: Buffer.from('%PDF-1.4 test payslip'),
    });
  });
  afterAll(async () => {
    await drop?.();
    if (root) await fs.promises.rm(root, { recursive: true, force: true });
  });

  it('lists newest first with the applicant, status, match, outcome and version', async () => {
    const { status, body } = await list();
    expect(status).toBe(200);
    expect(body.items.map((s: { reference: string }) => s.reference)).toEqual([
      'REF-FAIL-03',
      'REF-REV-02',
      'REF-OLD-01',
    ]);
    const [failed, review, old] = body.items;
    expect(old).toMatchObject({
      applicant: 'Ada Lovelace',
      status: 'processed',
      customerMatch: 'created',
      outcome: 'approved',
      formVersion: 1,
    });
    expect(failed).toMatchObject({ status: 'failed', outcome: null, formVersion: 2 });
    // The linked customer's name wins over the answers.
    expect(review.applicant).toBe('Zoe Marten');
    expect(review.customerId).toBe(customerId);
    expect(body.next).toBeNull();
  });

  it('filters by status, outcome, match, dates and reference or name; pages by keyset', async () => {
    const refs = async (query: string) => (await list(query)).body.items.map((s: { reference: string }) => s.reference);
    expect(await refs('status=failed')).toEqual(['REF-FAIL-03']);
    expect(await refs('outcome=approved')).toEqual(['REF-OLD-01']);
    expect(await refs('match=review')).toEqual(['REF-REV-02']);
    expect(await refs('from=2026-02-01&to=2026-02-28')).toEqual(['REF-REV-02']);
    expect(await refs('to=2026-01-05')).toEqual(['REF-OLD-01']);
    expect(await refs('q=ref-old')).toEqual(['REF-OLD-01']);
    expect(await refs('q=lovelace')).toEqual(['REF-OLD-01']);
    expect(await refs('q=%25')).toEqual([]);
    const first = await list('limit=2');
    expect(first.body.items).toHaveLength(2);
    const second = await list(`limit=2&after=${first.body.next}`);
    expect(second.body.items.map((s: { reference: string }) => s.reference)).toEqual(['REF-OLD-01']);
    expect(second.body.next).toBeNull();
  });

  it('refuses bad filters with a 400 naming the parameter, and other tenants or unknown forms with a 404', async () => {
    for (const [query, field] of [
      ['status=lost', 'status'],
      ['from=2026-02-30', 'from'],
      ['from=2026-03-01&to=2026-01-01', 'to'],
      ['after=bogus', 'after'],
      ['colour=red', 'colour'],
    ]) {
      const { status, body } = await list(query);
      expect(status, query).toBe(400);
      expect(body.error.field).toBe(field);
    }
    expect((await list('', adminB)).status).toBe(404);
    const unknown = await json(
      getSubmissionHttp(ctx(admin, '/'), formId, '00000000-0000-4000-8000-000000000000') as never,
    );
    expect(unknown.status).toBe(404);
    expect((await json(getSubmissionHttp(ctx(admin, '/'), 'nope', ids.old))).status).toBe(404);
    expect((await json(getSubmissionHttp(ctx(adminB, '/'), formId, ids.old))).status).toBe(404);
  });

  it('shows one submission with the version it used, its files, customer and differences', async () => {
    const { status, body } = await json(getSubmissionHttp(ctx(admin, '/'), formId, ids.review));
    expect(status).toBe(200);
    expect(body).toMatchObject({
      reference: 'REF-REV-02',
      formVersion: 2,
      language: 'fr',
      customerMatch: 'review',
      customerDifferences: [{ field: 'phone', stored: '+33 1 00', submitted: '+33 6 11' }],
      customer: { id: customerId },
    });
    expect(body.document.ui.fields.amount.label.en).toBe('Amount wanted');
    expect(body.files).toEqual([
      expect.objectContaining({
        id: fileId,
        field: 'payslip',
        contentType: 'application/pdf',
        href: expect.stringContaining(fileId),
      }),
    ]);
    const old = await json(getSubmissionHttp(ctx(admin, '/'), formId, ids.old));
    expect(old.body.document.ui.fields.amount.label.en).toBe('Amount');
    const failed = await json(getSubmissionHttp(ctx(admin, '/'), formId, ids.failed));
    expect(failed.body).toMatchObject({ status: 'failed', error: 'The product is closed' });
  });

  it('streams a file as an attachment with its type, audited; another submission’s file is 404', async () => {
    const response = await downloadSubmissionFileHttp(ctx(admin, '/'), { formId, submissionId: ids.review, fileId });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(Buffer.from(await response.arrayBuffer()).toString()).toBe('%PDF-1.4 test payslip');
    const [audit] = await db.tenant(A, (tx) =>
      tx.query<{ object_id: string; actor_id: string }>(
        `select object_id, actor_id from audit_log where action = 'form_submission_file.download' order by occurred_at desc limit 1`,
      ),
    );
    expect(audit).toMatchObject({ object_id: fileId, actor_id: admin.userId });
    const wrong = await downloadSubmissionFileHttp(ctx(admin, '/'), { formId, submissionId: ids.old, fileId });
    expect(wrong.status).toBe(404);
    const otherTenant = await downloadSubmissionFileHttp(ctx(adminB, '/'), {
      formId,
      submissionId: ids.review,
      fileId,
    });
    expect(otherTenant.status).toBe(404);
  });

  it('exports the filtered list as CSV with the answers as columns (labels, choices, neutralised formulas)', async () => {
    const response = await exportSubmissionsHttp(
      ctx(admin, `/v1/application-forms/${formId}/submissions?format=csv&status=processed`),
      formId,
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(response.headers.get('content-disposition')).toMatch(/^attachment;.*\.csv/);
    const text = (await response.text()).replace(/^\uFEFF/, '');
    const [header, ...rows] = text.trim().split('\r\n');
    expect(header).toBe(
      'Reference,Date,Applicant,Status,Customer,Outcome,Form version,First name,Last name,Amount wanted,Purpose,Employed,Payslip',
    );
    expect(rows).toHaveLength(2);
    expect(rows[1]).toContain('REF-OLD-01');
    expect(rows[1]).toContain('1500.50');
    expect(rows[1]).toContain('A car');
    expect(rows[1]).toContain('Yes');
    expect(rows[0]).toContain("'=1+2");
    expect(rows[0]).toContain('Home works');
  });

  it('exports XLSX in French', async () => {
    const response = await exportSubmissionsHttp(
      ctx(admin, `/v1/application-forms/${formId}/submissions?format=xlsx`, 'fr'),
      formId,
    );
    expect(response.status).toBe(200);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load((await response.arrayBuffer()) as never);
    const sheet = book.worksheets[0];
    expect(sheet.getRow(1).getCell(1).value).toBe('Référence');
    expect(sheet.getRow(1).getCell(10).value).toBe('Montant souhaité');
    expect(sheet.rowCount).toBe(4);
    expect(sheet.getRow(4).getCell(11).value).toBe('Une voiture');
  });
});
