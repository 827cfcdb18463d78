import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { requirePrincipal } from '../auth/principal.ts';
import { getDb, type Db, type Tx } from '../db/index.ts';
import { EXPORT_FORMATS, CONTENT_TYPES } from '../exports/write-list-export.ts';
import { contentDisposition } from '../http/content-disposition.ts';
import { fileResponse } from '../http/file-response.ts';
import { errorResponse } from '../http/respond.ts';
import { getT } from '../i18n/index.ts';
import { actorFromPrincipal } from '../lending/actor.ts';
import { query, type ApiContext } from '../lending/api.ts';
import { writeSubmissionsExport } from './submissions-export.ts';
import {
  PAGE_SIZE,
  getFormSummary,
  getSubmission,
  listSubmissions,
  readSubmissionFilter,
  submissionFileForDownload,
  submissionJson,
} from './submissions.ts';

/**
 * The HTTP glue of a form's submissions (kept out of Astro so tests call it with plain Requests).
 * Who may call is the guard's decision (route manifest: administrators).
 */

/** The tenant's time zone (date filters are calendar days there). */
export async function tenantTimeZone(tx: Tx): Promise<string> {
  const [row] = await tx.query<{ time_zone: string }>('select time_zone from tenants limit 1');
  return row?.time_zone ?? 'UTC';
}

/** GET /v1/application-forms/:id/submissions?status&outcome&match&from&to&q&after&limit */
export function listSubmissionsHttp(ctx: ApiContext, formId: string): Promise<Response> {
  return query(ctx, async (tx, _actor, url) => {
    const { filter, reader } = readSubmissionFilter(url.searchParams, ['after', 'limit']);
    const form = await getFormSummary(tx, formId);
    const page = await listSubmissions(tx, form.id, filter, {
      after: reader.cursor('after'),
      limit: reader.int('limit', { min: 1, max: 200, fallback: PAGE_SIZE }),
      timeZone: await tenantTimeZone(tx),
    });
    return { form: { id: form.id, name: form.name }, filter, ...page };
  });
}

/** GET /v1/application-forms/:id/submissions/:submissionId */
export function getSubmissionHttp(ctx: ApiContext, formId: string, submissionId: string): Promise<Response> {
  return query(ctx, async (tx) => submissionJson(await getSubmission(tx, formId, submissionId)));
}

/** GET /v1/application-forms/:id/submissions/:submissionId/files/:fileId → the stored file, audited. */
export async function downloadSubmissionFileHttp(
  ctx: ApiContext & { root?: string },
  ids: { formId: string; submissionId: string; fileId: string },
): Promise<Response> {
  try {
    const principal = requirePrincipal(ctx.principal);
    const actor = actorFromPrincipal(principal, { ip: ctx.ip, requestId: ctx.requestId });
    const db: Db = ctx.db ?? (await getDb());
    const { file, filePath } = await db.tenant(principal.tenantId, (tx) =>
      submissionFileForDownload(tx, actor, ids, ctx.root),
    );
    return fileResponse(filePath, {
      contentType: file.content_type,
      fileName: file.file_name,
      sizeBytes: file.size_bytes,
    });
  } catch (error) {
    return errorResponse(error, ctx.requestId, ctx.language);
  }
}

/**
 * GET /v1/application-forms/:id/submissions/export?format=csv|xlsx&<filters> → every matching
 * submission as an attachment. Written to a private temporary file with the project's writers, then
 * streamed; the file is unlinked as soon as it is open (nothing stays on disk).
 */
export async function exportSubmissionsHttp(ctx: ApiContext, formId: string): Promise<Response> {
  let filePath: string | null = null;
  try {
    const principal = requirePrincipal(ctx.principal);
    const { filter, reader } = readSubmissionFilter(new URL(ctx.request.url).searchParams, ['format']);
    const format = reader.oneOf('format', EXPORT_FORMATS) ?? 'csv';
    const db: Db = ctx.db ?? (await getDb());
    const run = <T>(fn: (tx: Tx) => Promise<T>) => db.tenant(principal.tenantId, fn);
    const form = await run((tx) => getFormSummary(tx, formId));
    const timeZone = await run(tenantTimeZone);
    const language = ctx.language ?? 'en';
    const t = await getT(language);
    const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'submissions-'));
    filePath = path.join(dir, `export.${format}`);
    await writeSubmissionsExport({ run, form, filter, format, filePath, language, timeZone, t: (key) => t(key) });
    const handle = await fs.promises.open(filePath, 'r');
    const { size } = await handle.stat();
    await fs.promises.rm(dir, { recursive: true, force: true });
    filePath = null;
    const stream = Readable.toWeb(handle.createReadStream()) as unknown as ReadableStream;
    const stamp = new Date().toISOString().slice(0, 10);
    return new Response(stream, {
      headers: {
        'content-type': CONTENT_TYPES[format],
        'content-length': String(size),
        'content-disposition': contentDisposition('attachment', `submissions-${form.slug}-${stamp}.${format}`),
        'cache-control': 'private, no-store',
        'x-content-type-options': 'nosniff',
      },
    });
  } catch (error) {
    if (filePath) await fs.promises.rm(path.dirname(filePath), { recursive: true, force: true });
    return errorResponse(error, ctx.requestId, ctx.language);
  }
}
