import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import type { Db } from '../db/index.ts';
import { assertWithinLimit, consumeUsage } from '../plans/plans.ts';
import { AppError } from '../errors/app-error.ts';
import {
  completeDownload,
  createDownload,
  failDownload,
  updateDownloadProgress,
  type Download,
} from '../downloads/downloads.ts';
import { checkQueryString } from '../http/query-params.ts';
import { getT, languageOf } from '../i18n/index.ts';
import { enqueueJob } from '../jobs/queue.ts';
import { PermanentJobError, registerJobHandler, type JobContext, type JobHandler } from '../jobs/worker.ts';
import { currencyDigits } from '../money/money.ts';
import { businessDate } from '../tenancy/tenant.ts';
import type { ListDef } from '../lists/definition.ts';
import { loadScopeSubject, resolveRowScope } from '../lists/row-scope.ts';
import { parseListState } from '../lists/url-state.ts';
import { withCustomColumns } from '../lists/custom-columns.ts';
import { assertScopeParamInScope } from '../auth/data-permissions.ts';
import { CONTENT_TYPES, EXPORT_FORMATS, writeListExport, type ExportFormat } from './write-list-export.ts';
import type { TenantsRow } from '../db/schema.generated.ts';

/**
 * "Export" on a list: a background job on the jobs queue that writes every matching row to CSV or
 * XLSX and lands in the user's downloads list, with progress. The job re-reads the user's data
 * permissions when it runs, so an export never shows rows the user may no longer see.
 */
export const LIST_EXPORT_JOB = 'exports.list';

export const exportPayloadSchema = z.object({
  downloadId: z.uuid(),
  userId: z.uuid(),
  list: z.string().min(1).max(64),
  /** The list page's query string (tab, filters, search, sort, columns, scope). */
  query: z.string().max(4_000),
  format: z.enum(EXPORT_FORMATS),
  language: z.string().max(16),
});
export type ExportPayload = z.infer<typeof exportPayloadSchema>;

export type ResolveList = (name: string) => ListDef | undefined;

/** Creates the download row and enqueues its job; answers the download (status 'queued'). */
export async function requestListExport(
  db: Db,
  args: {
    tenantId: string;
    userId: string;
    def: ListDef;
    query: string;
    format: ExportFormat;
    language: string;
    fileBaseName: string;
    businessDate: string;
  },
): Promise<Download> {
  // Validate the state now, so a bad link fails the request rather than the job.
  const raw = checkQueryString(args.query);
  if (raw) throw new AppError('BAD_REQUEST', `query: ${raw.param}: ${raw.message}`, { field: 'query' });
  await db.tenant(args.tenantId, async (tx) => {
    // With the tenant's customized-field columns (issue 13), which a query may name.
    const def = await withCustomColumns(tx, args.def, args.language);
    const { state, issues } = parseListState(def, new URLSearchParams(args.query));
    if (issues.length)
      throw new AppError('BAD_REQUEST', `${issues[0]!.param}: ${issues[0]!.message}`, { field: issues[0]!.param });
    // A scope naming another branch is refused now (403 on 'scope'), not turned into an empty file.
    await assertScopeParamInScope(
      tx,
      { ...(await loadScopeSubject(tx, args.userId)), language: args.language },
      state.scope,
    );
    // Refuse early when the plan's export limit is already reached; the unit itself is taken with the job below.
    await assertWithinLimit(tx, args.tenantId, 'exports');
  });
  const download = await createDownload(db, {
    tenantId: args.tenantId,
    userId: args.userId,
    kind: `${args.def.name}-export`,
    fileName: `${args.fileBaseName}-${args.businessDate}.${args.format}`,
    contentType: CONTENT_TYPES[args.format],
  });
  const payload: ExportPayload = {
    downloadId: download.id,
    userId: args.userId,
    list: args.def.name,
    query: args.query,
    format: args.format,
    language: args.language,
  };
  try {
    await db.tenant(args.tenantId, async (tx) => {
      // The plan's export limit, taken atomically with queueing (parallel requests cannot pass it).
      await consumeUsage(tx, args.tenantId, 'exports');
      await enqueueJob(tx, {
        name: LIST_EXPORT_JOB,
        tenantId: args.tenantId,
        payload,
        maxAttempts: 3,
        dedupeKey: `export:${download.id}`,
        createdBy: args.userId,
      });
    });
  } catch (error) {
    const isLimit = error instanceof AppError && error.code === 'LIMIT_REACHED';
    await failDownload(db, {
      tenantId: args.tenantId,
      id: download.id,
      error: isLimit ? error.message : 'The export could not be queued.',
    });
    throw error;
  }
  return download;
}

/**
 * Writes the file of a list export as `userId` sees the list now (their data permissions re-read, the
 * tenant's customized-field columns headed in `language`): the one producer of list and query files,
 * used by the manual export job below and by scheduled exports (src/lib/scheduled-exports).
 */
export async function writeListExportFile(
  db: Db,
  tenantId: string,
  payload: Pick<ExportPayload, 'userId' | 'list' | 'query' | 'format' | 'language'>,
  filePath: string,
  options: {
    resolveList: ResolveList;
    batchSize?: number;
    signal?: AbortSignal;
    onProgress?: (done: number, total: number) => Promise<void>;
  },
): Promise<{ rows: number; total: number }> {
  const registered = options.resolveList(payload.list);
  if (!registered) throw new PermanentJobError(`unknown list ${payload.list}`);
  const { rowScope, date, currency, def, state } = await db.tenant(tenantId, async (tx) => {
    // The tenant's customized-field columns, headed in the exporter's language (issue 13).
    const def = await withCustomColumns(tx, registered, languageOf(payload.language));
    const { state } = parseListState(def, new URLSearchParams(payload.query));
    const subject = await loadScopeSubject(tx, payload.userId);
    const [tenant] = await tx.query<Pick<TenantsRow, 'currency'>>('select currency from tenants where id = $1', [
      tenantId,
    ]);
    return {
      def,
      state,
      rowScope: await resolveRowScope(tx, subject, state.scope),
      date: await businessDate(tx, tenantId),
      currency: (tenant?.currency ?? 'EUR').trim(),
    };
  });
  const t = await getT(languageOf(payload.language));
  return writeListExport({
    run: (fn) => db.tenant(tenantId, fn),
    def,
    state,
    format: payload.format,
    filePath,
    tenantCurrency: currency,
    options: { businessDate: date, currencyDigits: currencyDigits(currency), rowScope },
    t: (key) => t(key),
    title: t(`lists:${def.name}.title`),
    batchSize: options.batchSize,
    signal: options.signal,
    onProgress: options.onProgress,
  });
}

/** The job's work, separated from registration so tests can run it with their own list registry. */
export function listExportHandler(options: {
  dataDir: string;
  resolveList: ResolveList;
  batchSize?: number;
}): JobHandler {
  return async (ctx: JobContext) => {
    const parsed = exportPayloadSchema.safeParse(ctx.payload);
    if (!parsed.success || !ctx.tenantId) throw new PermanentJobError('malformed export payload');
    const payload = parsed.data;
    const tenantId = ctx.tenantId;
    const { db } = ctx;
    const isLastAttempt = ctx.job.attempts >= ctx.job.maxAttempts;
    const tmpDir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'list-export-'));
    const filePath = path.join(tmpDir, `export.${payload.format}`);
    try {
      let lastPercent = -1;
      const result = await writeListExportFile(db, tenantId, payload, filePath, {
        resolveList: options.resolveList,
        batchSize: options.batchSize,
        signal: ctx.signal,
        onProgress: async (done, total) => {
          await ctx.progress(done, total);
          const percent = total === 0 ? 99 : Math.floor((done / total) * 100);
          // One downloads-row update per percent is plenty for a progress bar.
          if (percent !== lastPercent) {
            lastPercent = percent;
            await updateDownloadProgress(db, { tenantId, id: payload.downloadId, progress: percent });
          }
        },
      });
      const content = await fs.promises.readFile(filePath);
      await completeDownload(db, { tenantId, id: payload.downloadId, dataDir: options.dataDir, content });
      return { rows: result.rows };
    } catch (error) {
      const isPermanent = error instanceof PermanentJobError || (error instanceof AppError && error.status < 500);
      if (isPermanent || isLastAttempt) {
        await failDownload(db, {
          tenantId,
          id: payload.downloadId,
          error: error instanceof AppError ? error.message : 'The export failed.',
        }).catch(() => {});
      }
      throw isPermanent && !(error instanceof PermanentJobError)
        ? new PermanentJobError((error as Error).message, { cause: error })
        : error;
    } finally {
      await fs.promises.rm(tmpDir, { recursive: true, force: true });
    }
  };
}

/** Registers the export handler with the process-wide worker (idempotent). */
export function registerListExportJob(options: { dataDir: string; resolveList: ResolveList }): void {
  registerJobHandler(LIST_EXPORT_JOB, listExportHandler(options));
}
