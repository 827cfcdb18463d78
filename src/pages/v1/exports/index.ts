import type { APIRoute } from 'astro';
import { z } from 'zod';
import { getT } from '#lib/i18n/index.ts';
import { localizePlanError } from '#lib/plans/plan-messages.ts';
import { allowedActions } from '#lib/auth/allowed-actions.ts';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { pageDb } from '../../../server/db.ts';
import { toDownloadJson } from '#lib/downloads/downloads.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { requestListExport } from '#lib/exports/export-job.ts';
import { ensureListExportJob } from '#lib/exports/register.ts';
import { EXPORT_FORMATS } from '#lib/exports/write-list-export.ts';
import { handle, json, readJson } from '#lib/http/respond.ts';
import { findList } from '#lib/lists/registry.ts';
import { businessDate } from '#lib/tenancy/tenant.ts';

const ExportRequest = z.object({
  list: z.string().min(1).max(64),
  /** The list's URL state (query string without '?'): tab, filters, search, sort, columns, scope. */
  query: z.string().max(4_000).default(''),
  format: z.enum(EXPORT_FORMATS),
});

/**
 * POST /v1/exports { list, query, format } → 202 the download (status 'queued'). A background job
 * writes every matching row (not only one page) under the caller's data permissions; progress and
 * the file appear in GET /v1/downloads.
 */
export const POST: APIRoute = ({ locals, request }) =>
  handle(locals.requestId, async () => {
    const principal = requirePrincipal(locals.principal);
    const body = await readJson(request, ExportRequest);
    const entry = findList(body.list);
    if (!entry || !locals.tenant) throw new AppError('NOT_FOUND', 'This list does not exist.', { field: 'list' });
    if (!allowedActions(principal, 'list', entry).export)
      throw new AppError('FORBIDDEN', 'You may not export this list.');
    const db = await pageDb();
    ensureListExportJob();
    const date = await db.tenant(principal.tenantId, (tx) => businessDate(tx, principal.tenantId));
    const t = await getT(locals.language ?? 'en');
    const download = await requestListExport(db, {
      tenantId: principal.tenantId,
      userId: principal.userId,
      def: entry.def,
      query: body.query,
      format: body.format,
      language: locals.language,
      fileBaseName: entry.fileBaseName,
      businessDate: date,
    }).catch((error: unknown) => {
      throw localizePlanError(t, error);
    });
    return json(toDownloadJson(download), { status: 202 });
  });
