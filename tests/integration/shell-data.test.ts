import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { countOpenErrorReports, createErrorReport, listErrorReports } from '#lib/errors/reports.ts';
import {
  completeDownload,
  createDownload,
  failDownload,
  listDownloads,
  openDownload,
  updateDownloadProgress,
} from '#lib/downloads/downloads.ts';
import {
  getTranslations,
  listMissingKeys,
  recordMissingKeys,
  setTranslationOverride,
  tenantTranslator,
} from '#lib/i18n/translations.ts';

// Fixed ids: two tenants in different currencies, two users in A, one in B.
const A = 'alpha-t1';
const B = 'beta-t1';
const ADA = '00000000-0000-4000-8000-00000000000a';
const BOB = '00000000-0000-4000-8000-00000000000b';
const CAROL = '00000000-0000-4000-8000-00000000000c';

describe.each(testDbKinds())('shell data on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let dataDir: string;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'shell-data-'));
    await db.owner(async (tx) => {
      await tx.query(`insert into tenants (id, slug, name, currency, business_date) values
        ('${A}', 'alpha', 'Alpha', 'EUR', '2026-01-15'), ('${B}', 'beta', 'Beta', 'USD', '2026-01-15')`);
      await tx.query(`insert into users (tenant_id, id, email, display_name) values
        ('${A}', '${ADA}', 'ada@alpha.test', 'Ada'), ('${A}', '${BOB}', 'bob@alpha.test', 'Bob'), ('${B}', '${CAROL}', 'carol@beta.test', 'Carol')`);
    });
  });
  afterAll(async () => {
    await drop?.();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  describe('error reports', () => {
    it('stores a report with its user and context, visible only to its tenant', async () => {
      await createErrorReport(db, {
        tenantId: A,
        userId: ADA,
        report: {
          message: 'HTTP 500 - Internal Server Error',
          stack: '{"error":{}}',
          context: {
            url: '/v1/loans',
            method: 'GET',
            page_url: 'http://x/loans',
            user_agent: 'UA',
            screen: { width: 1280, height: 800 },
            timestamp: '2026-01-15T10:00:00.000Z',
            module: 'LoansTable',
          },
          report_type: 'auto',
        },
      });
      const { items, total } = await listErrorReports(db, { tenantId: A });
      expect(total).toBe(1);
      expect(items[0]).toMatchObject({
        userId: ADA,
        userName: 'Ada',
        message: 'HTTP 500 - Internal Server Error',
        reportType: 'auto',
        isResolved: false,
      });
      expect(items[0].context).toMatchObject({
        method: 'GET',
        screen: { width: 1280, height: 800 },
        module: 'LoansTable',
      });
      expect((await listErrorReports(db, { tenantId: B })).total).toBe(0);
      expect(await countOpenErrorReports(db, A)).toBe(1);
    });

    it('refuses an empty message and unknown context fields, naming the field', async () => {
      await expect(
        createErrorReport(db, { tenantId: A, userId: ADA, report: { message: '  ', report_type: 'manual' } }),
      ).rejects.toThrow(/message/);
      await expect(
        createErrorReport(db, {
          tenantId: A,
          userId: ADA,
          report: { message: 'x', report_type: 'manual', context: { cookie: 'secret' } as never },
        }),
      ).rejects.toThrow(/cookie/);
      await expect(
        createErrorReport(db, { tenantId: A, userId: ADA, report: { message: 'x', report_type: 'other' as never } }),
      ).rejects.toThrow(/report_type/);
    });

    it('cuts an oversized stack instead of refusing the report', async () => {
      await createErrorReport(db, {
        tenantId: A,
        userId: null,
        report: { message: 'big', stack: 'x'.repeat(50_000), report_type: 'manual' },
      });
      const { items } = await listErrorReports(db, { tenantId: A });
      const big = items.find((r) => r.message === 'big')!;
      expect(big.stack.length).toBe(20_000);
      expect(big.userId).toBeNull();
    });
  });

  describe('downloads', () => {
    it('goes queued → running → done and only its owner can fetch the file', async () => {
      const d = await createDownload(db, {
        tenantId: A,
        userId: ADA,
        kind: 'loans-export',
        fileName: 'loans 2026/01.csv',
        contentType: 'text/csv',
      });
      expect(d).toMatchObject({ status: 'queued', progress: 0, fileName: 'loans 2026_01.csv' });
      expect((await updateDownloadProgress(db, { tenantId: A, id: d.id, progress: 40 })).progress).toBe(40);
      // Progress never goes backwards and 100 is reserved for a stored file.
      expect((await updateDownloadProgress(db, { tenantId: A, id: d.id, progress: 10 })).progress).toBe(40);
      expect((await updateDownloadProgress(db, { tenantId: A, id: d.id, progress: 100 })).progress).toBe(99);
      const done = await completeDownload(db, { tenantId: A, id: d.id, dataDir, content: 'id;amount\n1;10.50\n' });
      expect(done).toMatchObject({ status: 'done', progress: 100, sizeBytes: 18n });
      const opened = await openDownload(db, { tenantId: A, userId: ADA, id: d.id, dataDir });
      expect(fs.readFileSync(opened.path, 'utf8')).toBe('id;amount\n1;10.50\n');
      await expect(openDownload(db, { tenantId: A, userId: BOB, id: d.id, dataDir })).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
      await expect(openDownload(db, { tenantId: B, userId: CAROL, id: d.id, dataDir })).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
      await expect(updateDownloadProgress(db, { tenantId: A, id: d.id, progress: 50 })).rejects.toMatchObject({
        code: 'CONFLICT',
      });
    });

    it('lists only the user’s own downloads, newest first; a failed one keeps its error', async () => {
      const f = await createDownload(db, { tenantId: A, userId: BOB, kind: 'report', fileName: 'report.xlsx' });
      await failDownload(db, { tenantId: A, id: f.id, error: 'The query timed out.' });
      const bobs = await listDownloads(db, { tenantId: A, userId: BOB });
      expect(bobs.map((x) => [x.fileName, x.status, x.error])).toEqual([
        ['report.xlsx', 'failed', 'The query timed out.'],
      ]);
      await expect(openDownload(db, { tenantId: A, userId: BOB, id: f.id, dataDir })).rejects.toMatchObject({
        code: 'CONFLICT',
      });
      expect((await listDownloads(db, { tenantId: A, userId: ADA })).map((x) => x.userId)).toEqual([ADA]);
      expect(await listDownloads(db, { tenantId: B, userId: BOB })).toEqual([]);
    });

    it('refuses a blank file name and probing with a malformed id', async () => {
      await expect(createDownload(db, { tenantId: A, userId: ADA, kind: 'x', fileName: '...' })).rejects.toMatchObject({
        field: 'fileName',
      });
      await expect(
        openDownload(db, { tenantId: A, userId: ADA, id: '../../etc/passwd', dataDir }),
      ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });
  });

  describe('translations', () => {
    it('serves bundled texts with the tenant’s overrides on top, per tenant', async () => {
      await setTranslationOverride(db, {
        tenantId: A,
        language: 'fr',
        namespace: 'nav',
        key: 'sections.loans',
        value: 'Crédits',
      });
      const a = await getTranslations(db, { tenantId: A, language: 'fr', namespace: 'nav' });
      const b = await getTranslations(db, { tenantId: B, language: 'fr', namespace: 'nav' });
      expect((a.sections as Record<string, string>).loans).toBe('Crédits');
      expect((b.sections as Record<string, string>).loans).toBe('Prêts');
      expect((a.sections as Record<string, string>).admin).toBe('Administration');
      const t = await tenantTranslator(db, A, 'fr');
      expect(t('nav:sections.loans')).toBe('Crédits');
      expect((await tenantTranslator(db, B, 'fr'))('nav:sections.loans')).toBe('Prêts');
    });

    it('stores each missing key once, counting repeats', async () => {
      await recordMissingKeys(db, {
        tenantId: A,
        language: 'fr',
        namespace: 'common',
        keys: { 'home.newCard': 'New card' },
      });
      await recordMissingKeys(db, {
        tenantId: A,
        language: 'fr',
        namespace: 'common',
        keys: { 'home.newCard': 'New card', 'home.other': 'Other' },
      });
      expect(await listMissingKeys(db, A)).toEqual([
        { language: 'fr', namespace: 'common', key: 'home.newCard', fallback: 'New card', timesReported: 2 },
        { language: 'fr', namespace: 'common', key: 'home.other', fallback: 'Other', timesReported: 1 },
      ]);
      expect(await listMissingKeys(db, B)).toEqual([]);
      await expect(
        recordMissingKeys(db, { tenantId: A, language: 'fr', namespace: 'common', keys: { '<script>': 'x' } }),
      ).rejects.toThrow();
    });
  });
});
