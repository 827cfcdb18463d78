import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import type { Principal } from '#lib/auth/principal.ts';
import { decideAccess } from '#lib/auth/guard.ts';
import { listAudit } from '#lib/audit/record-audit.ts';
import { runCommand, type Command } from '#lib/http/command.ts';
import { actorFromPrincipal } from '#lib/lending/actor.ts';
import { commandEndpoint, type ApiContext } from '#lib/lending/api.ts';
import { getT } from '#lib/i18n/index.ts';
import {
  MAX_MISSING_KEYS_PER_TENANT,
  listMissingKeys,
  recordMissingKeys,
  tenantTranslator,
} from '#lib/i18n/translations.ts';
import {
  exportOverridesJson,
  importOverridesCommand,
  listCatalogue,
  parseImportFile,
  placeholders,
  removeOverrideCommand,
  setOverrideCommand,
} from '#lib/i18n/overrides.ts';
import { exportOverridesResponse, importInputFromRequest } from '#lib/i18n/overrides-http.ts';
import { completeDownload, createDownload, openDownload } from '#lib/downloads/downloads.ts';
import {
  deleteDownloadCommand,
  downloadFilterOptions,
  expireDownloads,
  getTenantDownload,
  listTenantDownloads,
  openTenantDownload,
} from '#lib/downloads/admin.ts';
import { DEMO_PLANS, setTenantPlan } from '#lib/plans/plans.ts';
import { listPlanChangeRequests, requestPlanChangeCommand } from '#lib/plans/change-requests.ts';
import {
  createContractCommand,
  editContractCommand,
  expiryWarning,
  getContract,
  listContracts,
  openContractDocument,
  setContractStatusCommand,
  uploadContractDocumentCommand,
} from '#lib/contracts/contracts.ts';
import { A, B, ids, principal, seedAccessFixtures } from './access-fixtures.ts';

const ADMIN_KEYS = [
  'admin.translations.view',
  'admin.translations.edit',
  'admin.downloads.view',
  'admin.downloads.delete',
  'admin.plan.view',
  'admin.plan.request',
  'admin.contracts.view',
  'admin.contracts.edit',
  'admin.contracts.update',
];

/** What the guard (the one permission point) answers for a caller with these keys. */
const guard = (method: string, p: string, authorities: string[]) => {
  const d = decideAccess({
    method,
    path: p,
    search: '',
    principal: { isAdmin: false, authorities, passwordChangeRequired: false },
  });
  return d.kind === 'api-error' ? d.status : d.kind;
};

const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

describe.each(testDbKinds())('admin platform on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let dataDir: string;
  const a = ids(1);
  let admin: Principal;
  let officer: Principal;
  let analyst: Principal;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    await seedAccessFixtures(db);
    await db.owner((tx) => setTenantPlan(tx, A, DEMO_PLANS.growth));
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'admin-platform-'));
    admin = principal(A, a.admin, 'administrator', { language: 'en' });
    officer = principal(A, a.officer, 'loan_officer', { language: 'en' });
    // A staff member given only the platform keys (not an administrator).
    analyst = principal(A, a.analyst, 'analyst', { isAdmin: false, authorities: ADMIN_KEYS, language: 'en' });
  });
  afterAll(async () => {
    await drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const run = <I, O>(who: Principal, command: Command<I, O>, input: unknown, language: 'en' | 'fr' = 'en') =>
    runCommand(
      {
        db,
        actor: actorFromPrincipal(who),
        permissionSubject: who,
        language,
        objectId: (input as { id?: string } | null)?.id ?? null,
      },
      command,
      () => input,
    );

  // ---------------------------------------------------------------------------------------------
  describe('translations', () => {
    test('placeholders are read from i18next interpolations', () => {
      expect(placeholders('Page {{page}} of {{ pages }}, {{value, number}}')).toEqual(['page', 'pages', 'value']);
    });

    test('an override is checked: unknown key, placeholders, length; then shown by the tenant translator', async () => {
      await expect(
        run(analyst, setOverrideCommand, { language: 'en', namespace: 'nav', key: 'admin.nope', value: 'x' }),
      ).rejects.toMatchObject({ status: 400, field: 'key' });
      await expect(
        run(analyst, setOverrideCommand, { language: 'en', namespace: 'nope', key: 'admin.users', value: 'x' }),
      ).rejects.toMatchObject({ status: 400, field: 'namespace' });
      await expect(
        run(analyst, setOverrideCommand, {
          language: 'en',
          namespace: 'nav',
          key: 'admin.users',
          value: 'x'.repeat(2001),
        }),
      ).rejects.toMatchObject({ status: 400, field: 'value' });
      const missing = run(
        analyst,
        setOverrideCommand,
        {
          language: 'fr',
          namespace: 'common',
          key: 'pager.pageOf',
          value: 'Page {{page}}',
        },
        'fr',
      );
      await expect(missing).rejects.toMatchObject({ status: 400, field: 'value' });
      await expect(missing).rejects.toThrow('{{pages}}');
      await expect(
        run(officer, setOverrideCommand, { language: 'en', namespace: 'nav', key: 'admin.users', value: 'Staff' }),
      ).rejects.toMatchObject({ status: 403 });

      await run(analyst, setOverrideCommand, {
        language: 'en',
        namespace: 'nav',
        key: 'admin.users',
        value: '<b>Staff</b>',
      });
      const t = await tenantTranslator(db, A, 'en');
      // Stored and served as plain text (pages escape it when rendering).
      expect(t('nav:admin.users')).toBe('<b>Staff</b>');
      expect((await tenantTranslator(db, B, 'en'))('nav:admin.users')).toBe('Users');
      const audit = await db.tenant(A, (tx) => listAudit(tx, 'translation_override', 'en/nav/admin.users'));
      expect(audit.map((x) => [x.action, x.before, x.after])).toEqual([
        ['translation_override.set', null, { value: '<b>Staff</b>' }],
      ]);

      await run(analyst, removeOverrideCommand, { language: 'en', namespace: 'nav', key: 'admin.users' });
      expect((await tenantTranslator(db, A, 'en'))('nav:admin.users')).toBe('Users');
      await expect(
        run(analyst, removeOverrideCommand, { language: 'en', namespace: 'nav', key: 'admin.users' }),
      ).rejects.toMatchObject({ status: 404 });
    });

    test('reported keys that are bundled texts, groups of them or under a text are ignored, and never overridable', async () => {
      const report = (namespace: 'nav' | 'common', keys: Record<string, string>) =>
        recordMissingKeys(db, { tenantId: A, language: 'en', namespace, keys });
      // `admin` is a group of nav (admin.users…), `admin.users` a text, `admin.users.x` lies under it.
      expect(await report('nav', { admin: 'x', 'admin.users': 'x', 'admin.users.x': 'x' })).toBe(0);
      expect((await listMissingKeys(db, A)).filter((m) => m.namespace === 'nav')).toEqual([]);
      // Even a row reported before this rule cannot make a group overridable (setPath would replace the subtree).
      await db.tenant(A, (tx) =>
        tx.query(
          `insert into translation_missing_keys (tenant_id, language, namespace, key, fallback) values ($1, 'en', 'nav', 'admin', 'x')`,
          [A],
        ),
      );
      const group = run(analyst, setOverrideCommand, { language: 'en', namespace: 'nav', key: 'admin', value: 'Hi' });
      await expect(group).rejects.toMatchObject({ status: 400, field: 'key' });
      await expect(group).rejects.toThrow(/names a group of texts/);
      await expect(
        run(analyst, setOverrideCommand, { language: 'en', namespace: 'nav', key: 'admin.users.x', value: 'Hi' }),
      ).rejects.toMatchObject({ status: 400, field: 'key' });
      await db.tenant(A, (tx) => tx.query(`delete from translation_missing_keys where namespace = 'nav'`));
    });

    test('missing keys are capped per tenant: past the cap new keys are dropped and logged, known ones still counted', async () => {
      expect(MAX_MISSING_KEYS_PER_TENANT).toBe(2000);
      // Fill tenant B up to the cap, one row short.
      await db.tenant(B, (tx) =>
        tx.query(
          `insert into translation_missing_keys (tenant_id, language, namespace, key, fallback)
           select $1, 'en', 'common', 'flood.k' || n, 'x' from generate_series(1, $2::int - 1) as n`,
          [B, MAX_MISSING_KEYS_PER_TENANT],
        ),
      );
      const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
      try {
        const stored = await recordMissingKeys(db, {
          tenantId: B,
          language: 'en',
          namespace: 'common',
          keys: { 'flood.new1': 'a', 'flood.new2': 'b', 'flood.new3': 'c', 'flood.k1': 'x' },
        });
        expect(stored).toBe(2); // one new key fits, the known one is counted, two are dropped
        const line = stderr.mock.calls.map((c) => String(c[0])).find((l) => l.includes('new keys dropped'));
        expect(JSON.parse(line!)).toMatchObject({ level: 'warn', tenant_id: B, dropped: 2, limit: 2000 });
      } finally {
        stderr.mockRestore();
      }
      const rows = await listMissingKeys(db, B);
      expect(rows).toHaveLength(MAX_MISSING_KEYS_PER_TENANT);
      expect(rows.find((r) => r.key === 'flood.new1')).toBeDefined();
      expect(rows.find((r) => r.key === 'flood.new2')).toBeUndefined();
      expect(rows.find((r) => r.key === 'flood.k1')?.timesReported).toBe(2);
      await db.tenant(B, (tx) => tx.query(`delete from translation_missing_keys where key like 'flood.%'`));
    });

    test('a key browsers reported missing may be overridden and is listed first', async () => {
      await recordMissingKeys(db, {
        tenantId: A,
        language: 'fr',
        namespace: 'common',
        keys: { 'brand.newThing': 'New' },
      });
      const page = await db.tenant(A, (tx) => listCatalogue(tx, { page: 1, pageSize: 50 }));
      expect(page.items[0]).toMatchObject({ namespace: 'common', key: 'brand.newThing', en: null, fr: null });
      expect(page.items[0].reported[0]).toMatchObject({ language: 'fr', timesReported: 1 });
      expect(page.total).toBeGreaterThan(300);
      await run(analyst, setOverrideCommand, {
        language: 'fr',
        namespace: 'common',
        key: 'brand.newThing',
        value: 'Zorglub nouveau',
      });
      // …only in the language it was reported for.
      await expect(
        run(analyst, setOverrideCommand, { language: 'en', namespace: 'common', key: 'brand.newThing', value: 'New' }),
      ).rejects.toMatchObject({ field: 'key' });
      const found = await db.tenant(A, (tx) => listCatalogue(tx, { search: 'zorglub', page: 1, pageSize: 50 }));
      expect(found.items.map((e) => e.key)).toEqual(['brand.newThing']);
      const frSearch = await db.tenant(A, (tx) =>
        listCatalogue(tx, { namespace: 'platform', search: 'Téléchargements', page: 1, pageSize: 50 }),
      );
      expect(frSearch.items.map((e) => e.key)).toContain('downloads.title');
      await run(analyst, removeOverrideCommand, { language: 'fr', namespace: 'common', key: 'brand.newThing' });
    });

    test('import applies all rows or none, with row-level errors', async () => {
      const t = await getT('en');
      const rows = await parseImportFile(t, {
        format: 'json',
        bytes: new TextEncoder().encode(
          JSON.stringify([
            { language: 'en', namespace: 'nav', key: 'admin.roles', value: 'Job roles' },
            { language: 'en', namespace: 'nav', key: 'admin.missing', value: 'x' },
            { language: 'fr', namespace: 'common', key: 'pager.pageOf', value: 'Page {{page}}' },
            { language: 'de', namespace: 'nav', key: 'admin.roles', value: 'Rollen' },
          ]),
        ),
      });
      const refused = run(analyst, importOverridesCommand, { rows });
      await expect(refused).rejects.toMatchObject({
        status: 400,
        details: {
          rows: [
            { row: 2, field: 'key' },
            { row: 3, field: 'value' },
            { row: 4, field: 'language' },
          ],
        },
      });
      expect(await db.tenant(A, (tx) => exportOverridesJson(tx))).toEqual({});

      // Through the HTTP adapter: the same refusal as JSON with its rows, nothing applied.
      const ctx = (request: Request): ApiContext => ({
        request,
        principal: analyst,
        requestId: 'r',
        ip: null,
        db,
        language: 'en',
      });
      const bad = await commandEndpoint(
        ctx(jsonRequest({ en: { nav: { 'admin.roles': 'x', 'admin.zzz': 'y' } } })),
        importOverridesCommand,
        {
          readInput: (r) => importInputFromRequest(r, 'en'),
          answer: (o) => ({ status: 200, body: o }),
        },
      );
      expect(bad.status).toBe(400);
      expect((await bad.json()).error.rows).toEqual([
        { row: 2, field: 'key', message: expect.stringContaining('nav:admin.zzz') },
      ]);

      const good = await commandEndpoint(
        ctx(jsonRequest({ en: { nav: { 'admin.roles': 'Job roles', admin: { permissions: '=SUM(A1)' } } } })),
        importOverridesCommand,
        { readInput: (r) => importInputFromRequest(r, 'en'), answer: (o) => ({ status: 200, body: o }) },
      );
      expect(good.status).toBe(200);
      expect(await good.json()).toEqual({ imported: 2 });
      expect(await db.tenant(A, (tx) => exportOverridesJson(tx))).toEqual({
        en: { nav: { 'admin.roles': 'Job roles', 'admin.permissions': '=SUM(A1)' } },
      });
    });

    test('export round trip: JSON and XLSX (formulas neutralised, read back as text)', async () => {
      const ctx = (url: string): ApiContext => ({
        request: new Request(url),
        principal: analyst,
        requestId: 'r',
        ip: null,
        db,
      });
      const json = await exportOverridesResponse(ctx('http://x/v1/translation-overrides/export?format=json'));
      expect(json.headers.get('content-disposition')).toMatch(/attachment; filename="translations-.*\.json"/);
      const exported = await json.json();
      expect(exported.en.nav['admin.permissions']).toBe('=SUM(A1)');

      const xlsx = await exportOverridesResponse(ctx('http://x/v1/translation-overrides/export?format=xlsx'));
      const bytes = new Uint8Array(await xlsx.arrayBuffer());
      const book = new ExcelJS.Workbook();
      await book.xlsx.load(Buffer.from(bytes) as unknown as ArrayBuffer);
      const sheet = book.worksheets[0];
      const cells = sheet
        .getSheetValues()
        .filter(Boolean)
        .map((r) => (r as unknown[]).slice(1));
      expect(cells[0]).toEqual(['language', 'namespace', 'key', 'value']);
      expect(cells).toContainEqual(['en', 'nav', 'admin.permissions', "'=SUM(A1)"]);
      expect(sheet.getCell('D2').formula ?? sheet.getCell('D3').formula).toBeUndefined();

      // Wipe, then import the XLSX back (multipart, as the browser sends it): same overrides.
      await run(analyst, removeOverrideCommand, { language: 'en', namespace: 'nav', key: 'admin.roles' });
      await run(analyst, removeOverrideCommand, { language: 'en', namespace: 'nav', key: 'admin.permissions' });
      const form = new FormData();
      form.set('file', new File([bytes], 'translations.xlsx'));
      const request = new Request('http://x/v1/translation-overrides/import', { method: 'POST', body: form });
      const imported = await commandEndpoint(
        { request, principal: analyst, requestId: 'r', ip: null, db, language: 'en' },
        importOverridesCommand,
        { readInput: (r) => importInputFromRequest(r, 'en'), answer: (o) => ({ status: 200, body: o }) },
      );
      expect(imported.status).toBe(200);
      expect(await db.tenant(A, (tx) => exportOverridesJson(tx))).toEqual(exported);

      // A formula cell in an uploaded sheet is text, never evaluated; a wrong header is refused whole.
      const evil = new ExcelJS.Workbook();
      const s = evil.addWorksheet('x');
      s.addRow(['language', 'namespace', 'key', 'value']);
      s.addRow(['en', 'nav', 'admin.roles', { formula: '1+1', result: 2 }]);
      const t = await getT('en');
      const rows = await parseImportFile(t, { format: 'xlsx', bytes: new Uint8Array(await evil.xlsx.writeBuffer()) });
      expect(rows).toEqual([{ row: 2, language: 'en', namespace: 'nav', key: 'admin.roles', value: '=1+1' }]);
      const wrong = new ExcelJS.Workbook();
      wrong.addWorksheet('x').addRow(['lang', 'ns']);
      await expect(
        parseImportFile(t, { format: 'xlsx', bytes: new Uint8Array(await wrong.xlsx.writeBuffer()) }),
      ).rejects.toMatchObject({ field: 'file' });
      await expect(parseImportFile(t, { format: 'json', bytes: new Uint8Array(300 * 1024) })).rejects.toMatchObject({
        status: 413,
      });
    });

    test('routes: view and edit keys decide', () => {
      expect(guard('GET', '/v1/translation-overrides', ['admin.translations.view'])).toBe('allow');
      expect(guard('PUT', '/v1/translation-overrides/en/nav/admin.users', ['admin.translations.view'])).toBe(403);
      expect(guard('PUT', '/v1/translation-overrides/en/nav/admin.users', ['admin.translations.edit'])).toBe('allow');
      expect(guard('POST', '/v1/translation-overrides/import', ['admin.translations.view'])).toBe(403);
      expect(guard('GET', '/admin/platform/translations', ['loans.customers.view'])).toBe('forbidden');
    });
  });

  // ---------------------------------------------------------------------------------------------
  describe('downloads', () => {
    test('owner, administrator and another user; delete removes row and file, audited', async () => {
      const d = await createDownload(db, {
        tenantId: A,
        userId: a.officer,
        kind: 'loans-export',
        fileName: 'loans.csv',
        contentType: 'text/csv',
      });
      expect(d.expiresAt.getTime() - d.createdAt.getTime()).toBeCloseTo(30 * 86_400_000, -4);
      await completeDownload(db, { tenantId: A, id: d.id, dataDir, content: 'a,b\n' });
      // The owner reads it through the per-user route; another user does not even see it.
      expect((await openDownload(db, { tenantId: A, userId: a.officer, id: d.id, dataDir })).download.id).toBe(d.id);
      await expect(openDownload(db, { tenantId: A, userId: a.analyst, id: d.id, dataDir })).rejects.toMatchObject({
        status: 404,
      });
      // The administrators' route needs admin.downloads.view, and reads any file of the tenant (not another tenant's).
      expect(guard('GET', `/v1/admin/downloads/${d.id}/file`, ['loans.loans.view'])).toBe(403);
      expect(guard('GET', `/v1/admin/downloads/${d.id}/file`, ['admin.downloads.view'])).toBe('allow');
      const opened = await openTenantDownload(db, { tenantId: A, id: d.id, dataDir, viewer: analyst });
      expect(fs.readFileSync(opened.path, 'utf8')).toBe('a,b\n');
      await expect(openTenantDownload(db, { tenantId: B, id: d.id, dataDir, viewer: analyst })).rejects.toMatchObject({
        status: 404,
      });
      const list = await db.tenant(A, (tx) =>
        listTenantDownloads(tx, analyst, { kind: 'loans-export', page: 1, pageSize: 50 }),
      );
      expect(list.items.map((x) => [x.fileName, x.userName])).toEqual([['loans.csv', 'A Officer']]);

      // Delete: admin.downloads.delete only (the owner without it is refused), row and bytes gone.
      expect(guard('DELETE', `/v1/downloads/${d.id}`, ['admin.downloads.view'])).toBe(403);
      expect(guard('DELETE', `/v1/downloads/${d.id}`, ['admin.downloads.delete'])).toBe('allow');
      await expect(run(officer, deleteDownloadCommand(dataDir), { id: d.id })).rejects.toMatchObject({ status: 403 });
      await run(analyst, deleteDownloadCommand(dataDir), { id: d.id });
      expect(fs.existsSync(opened.path)).toBe(false);
      await expect(openTenantDownload(db, { tenantId: A, id: d.id, dataDir, viewer: analyst })).rejects.toMatchObject({
        status: 404,
      });
      const audit = await db.tenant(A, (tx) => listAudit(tx, 'download', d.id));
      expect(audit.map((x) => [x.action, x.outcome])).toEqual([
        ['download.delete', 'denied'],
        ['download.delete', 'success'],
      ]);
      expect(audit[1].before).toMatchObject({ fileName: 'loans.csv', userId: a.officer });
      await expect(run(analyst, deleteDownloadCommand(dataDir), { id: d.id })).rejects.toMatchObject({ status: 404 });
    });

    test('a viewer restricted by data permissions sees, opens and deletes only their own files', async () => {
      // The platform keys, but a data scope of one branch: the tenant-wide view is not theirs.
      const scoped = { ...analyst, userId: a.officer, dataPermissions: [{ field: 'branch', value: 'A-B1' }] };
      const theirs = await createDownload(db, {
        tenantId: A,
        userId: a.officer,
        kind: 'scope-test',
        fileName: 'mine.csv',
      });
      const wide = await createDownload(db, { tenantId: A, userId: a.admin, kind: 'scope-test', fileName: 'all.csv' });
      await completeDownload(db, { tenantId: A, id: theirs.id, dataDir, content: 'mine' });
      await completeDownload(db, { tenantId: A, id: wide.id, dataDir, content: 'everything' });

      const seen = await db.tenant(A, (tx) =>
        listTenantDownloads(tx, scoped, { kind: 'scope-test', page: 1, pageSize: 50 }),
      );
      expect(seen).toMatchObject({ total: 1, ownOnly: true });
      expect(seen.items.map((x) => x.fileName)).toEqual(['mine.csv']);
      const filters = await db.tenant(A, (tx) => downloadFilterOptions(tx, scoped));
      expect(filters.users.map((u) => u.id)).toEqual([a.officer]);
      // Another user's file is the same 404 as an unknown one, for its detail, bytes and deletion.
      await expect(db.tenant(A, (tx) => getTenantDownload(tx, wide.id, scoped))).rejects.toMatchObject({ status: 404 });
      await expect(openTenantDownload(db, { tenantId: A, id: wide.id, dataDir, viewer: scoped })).rejects.toMatchObject(
        { status: 404 },
      );
      await expect(run(scoped, deleteDownloadCommand(dataDir), { id: wide.id })).rejects.toMatchObject({ status: 404 });
      const own = await openTenantDownload(db, { tenantId: A, id: theirs.id, dataDir, viewer: scoped });
      expect(fs.readFileSync(own.path, 'utf8')).toBe('mine');

      // Unrestricted viewers (no data permissions, administrators) keep the tenant-wide view.
      for (const viewer of [analyst, admin]) {
        const all = await db.tenant(A, (tx) =>
          listTenantDownloads(tx, viewer, { kind: 'scope-test', page: 1, pageSize: 50 }),
        );
        expect(all).toMatchObject({ total: 2, ownOnly: false });
      }
      const adminWithScope = { ...admin, dataPermissions: [{ field: 'branch', value: 'A-B1' }] };
      expect(
        (await openTenantDownload(db, { tenantId: A, id: wide.id, dataDir, viewer: adminWithScope })).download.id,
      ).toBe(wide.id);
      await run(scoped, deleteDownloadCommand(dataDir), { id: theirs.id });
      await run(analyst, deleteDownloadCommand(dataDir), { id: wide.id });
    });

    test('expired files are deleted by the expiry job', async () => {
      const d = await createDownload(db, { tenantId: A, userId: a.admin, kind: 'report', fileName: 'old.pdf' });
      await completeDownload(db, { tenantId: A, id: d.id, dataDir, content: 'x' });
      const keep = await createDownload(db, { tenantId: A, userId: a.admin, kind: 'report', fileName: 'new.pdf' });
      expect(await expireDownloads(db, dataDir, new Date(Date.now() + 31 * 86_400_000))).toBe(2);
      await expect(openTenantDownload(db, { tenantId: A, id: d.id, dataDir, viewer: analyst })).rejects.toMatchObject({
        status: 404,
      });
      void keep;
      expect(await expireDownloads(db, dataDir)).toBe(0);
    });
  });

  // ---------------------------------------------------------------------------------------------
  describe('plan', () => {
    test('a change request is recorded for the provider, audited; features are checked', async () => {
      await expect(run(admin, requestPlanChangeCommand, { features: [], message: '' })).rejects.toMatchObject({
        field: 'features',
      });
      await expect(run(admin, requestPlanChangeCommand, { features: ['teleport'] })).rejects.toMatchObject({
        field: 'features',
      });
      await expect(run(officer, requestPlanChangeCommand, { features: ['users'] })).rejects.toMatchObject({
        status: 403,
      });
      const created = await run(admin, requestPlanChangeCommand, { features: 'users', message: 'We hire 80 people.' });
      expect(created).toMatchObject({ features: ['users'], status: 'requested', requestedByName: 'A Admin' });
      expect((await db.tenant(A, (tx) => listPlanChangeRequests(tx))).map((r) => r.id)).toEqual([created.id]);
      expect(await db.tenant(B, (tx) => listPlanChangeRequests(tx))).toEqual([]);
      const [audit] = await db.tenant(A, (tx) => listAudit(tx, 'plan_change_request', created.id));
      expect(audit).toMatchObject({
        action: 'plan_change.request',
        after: { features: ['users'], status: 'requested' },
      });
      // Administrators only, as the plan page (spec §6): the admin.plan.* keys alone do not open the API.
      expect(guard('POST', '/v1/plan-change-requests', ['admin.plan.view', 'admin.plan.request'])).toBe(403);
      expect(guard('GET', '/v1/plan-change-requests', ['admin.plan.view', 'admin.plan.request'])).toBe(403);
      expect(guard('POST', '/v1/plan-change-requests', ADMIN_KEYS)).toBe(403);
      expect(guard('GET', '/admin/plan-contracts/plan', ADMIN_KEYS)).toBe('forbidden');
    });
  });

  // ---------------------------------------------------------------------------------------------
  describe('contracts', () => {
    test('create, edit, status, new document version; PDF checked by its bytes; audited', async () => {
      const create = createContractCommand(dataDir);
      const fields = {
        title: 'Service agreement',
        reference: 'SA-2026-01',
        startsOn: '2026-01-01',
        endsOn: '2026-12-31',
        notes: '',
        signatories: [{ name: 'Jane Roe', title: 'CEO', signedOn: '2025-12-20' }],
      };
      await expect(
        run(analyst, create, {
          ...fields,
          document: { fileName: 'x.pdf', bytes: new Uint8Array(Buffer.from('MZ not a pdf')) },
        }),
      ).rejects.toMatchObject({ status: 400, field: 'document' });
      await expect(run(analyst, create, { ...fields, endsOn: '2025-01-01', document: null })).rejects.toMatchObject({
        field: 'endsOn',
      });
      await expect(run(analyst, create, { ...fields, startsOn: '2026-02-30', document: null })).rejects.toMatchObject({
        field: 'startsOn',
      });
      await expect(
        run(analyst, create, { ...fields, signatories: [{ name: ' ', title: '', signedOn: null }], document: null }),
      ).rejects.toMatchObject({ field: 'signatories[0].name' });
      await expect(run(officer, create, { ...fields, document: null })).rejects.toMatchObject({ status: 403 });
      const tooBig = new Uint8Array(10 * 1024 * 1024 + 1);
      tooBig.set(Buffer.from('%PDF-'));
      await expect(
        run(analyst, create, { ...fields, document: { fileName: 'big.pdf', bytes: tooBig } }),
      ).rejects.toMatchObject({
        status: 413,
      });

      const c = await run(analyst, create, { ...fields, document: { fileName: 'sa.pdf', bytes: new Uint8Array(PDF) } });
      expect(c).toMatchObject({ status: 'draft', reference: 'SA-2026-01', document: { name: 'sa.pdf', version: 1 } });
      expect(c.signatories).toEqual([{ name: 'Jane Roe', title: 'CEO', signedOn: '2025-12-20' }]);
      await expect(run(analyst, create, { ...fields, document: null })).rejects.toMatchObject({ field: 'reference' });

      const doc = await db.tenant(A, (tx) => openContractDocument(tx, dataDir, c.id));
      expect(fs.readFileSync(doc.path)).toEqual(PDF);
      await expect(db.tenant(B, (tx) => getContract(tx, c.id))).rejects.toMatchObject({ status: 404 });

      const edited = await run(analyst, editContractCommand, {
        ...fields,
        id: c.id,
        title: 'Master agreement',
        signatories: [],
      });
      expect(edited).toMatchObject({ title: 'Master agreement', signatories: [] });
      // Status and documents are `update`; fields are `edit`.
      const onlyEdit = { ...analyst, authorities: ['admin.contracts.view', 'admin.contracts.edit'] } as Principal;
      await expect(run(onlyEdit, setContractStatusCommand, { id: c.id, status: 'active' })).rejects.toMatchObject({
        status: 403,
      });
      await expect(run(analyst, setContractStatusCommand, { id: c.id, status: 'paused' })).rejects.toMatchObject({
        field: 'status',
      });
      const active = await run(analyst, setContractStatusCommand, { id: c.id, status: 'active' });
      expect(active.status).toBe('active');
      expect(expiryWarning(active, '2026-12-01')).toEqual({ kind: 'ends-soon', days: 30 });
      expect(expiryWarning(active, '2027-01-02')).toEqual({ kind: 'past-end', days: 2 });
      expect(expiryWarning(active, '2026-06-01')).toBeNull();

      const upload = uploadContractDocumentCommand(dataDir);
      await expect(
        run(analyst, upload, {
          id: c.id,
          document: { fileName: 'v2.pdf', bytes: new Uint8Array(Buffer.from('<html>')) },
        }),
      ).rejects.toMatchObject({ field: 'document' });
      const v2 = await run(analyst, upload, { id: c.id, document: { fileName: 'v2.pdf', bytes: new Uint8Array(PDF) } });
      expect(v2.document).toMatchObject({ name: 'v2.pdf', version: 2 });
      expect((await db.tenant(A, (tx) => listContracts(tx))).map((x) => x.reference)).toEqual(['SA-2026-01']);

      const audit = await db.tenant(A, (tx) => listAudit(tx, 'contract', c.id));
      expect(audit.filter((x) => x.outcome === 'success').map((x) => x.action)).toEqual([
        'contract.create',
        'contract.edit',
        'contract.status',
        'contract.document',
      ]);
      expect(audit.find((x) => x.action === 'contract.edit')).toMatchObject({
        before: { title: 'Service agreement' },
        after: { title: 'Master agreement' },
      });

      expect(guard('PATCH', `/v1/contracts/${c.id}`, ['admin.contracts.update'])).toBe(403);
      expect(guard('PATCH', `/v1/contracts/${c.id}`, ['admin.contracts.edit'])).toBe('allow');
      expect(guard('PUT', `/v1/contracts/${c.id}/document`, ['admin.contracts.edit'])).toBe(403);
      expect(guard('PUT', `/v1/contracts/${c.id}/document`, ['admin.contracts.update'])).toBe('allow');
      expect(guard('GET', `/v1/contracts/${c.id}/document`, ['admin.contracts.view'])).toBe('allow');
      expect(guard('GET', '/admin/plan-contracts/contracts', ['loans.loans.view'])).toBe('forbidden');
    });
  });
});

function jsonRequest(body: unknown): Request {
  return new Request('http://x/v1/translation-overrides/import', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}
