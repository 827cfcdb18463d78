import type { APIRoute } from 'astro';
import { z } from 'zod';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { getSavedQuery, requestQueryExport } from '#lib/analytics/queries.ts';
import { listViewerOf } from '#lib/analytics/query-viewer.ts';
import { toDownloadJson } from '#lib/downloads/downloads.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { ensureListExportJob } from '#lib/exports/register.ts';
import { EXPORT_FORMATS } from '#lib/exports/write-list-export.ts';
import { handle, json, readJson } from '#lib/http/respond.ts';
import { getT } from '#lib/i18n/index.ts';
import { localizePlanError } from '#lib/plans/plan-messages.ts';
import { pageDb } from '../../../../../server/db.ts';

const ExportRequest = z.object({ format: z.enum(EXPORT_FORMATS) });

/**
 * POST /v1/analytics/queries/:id/export { format: 'csv' | 'xlsx' } → 202 the download (status
 * 'queued', its `id`): the lists' export job writes every row of the saved query under the caller's
 * data permissions; the file appears in GET /v1/downloads and the downloads list.
 */
export const POST: APIRoute = ({ locals, params, request }) =>
  handle(locals.requestId, async () => {
    const principal = requirePrincipal(locals.principal);
    if (!locals.tenant) throw new AppError('NOT_FOUND', 'This query does not exist.', { field: 'id' });
    const body = await readJson(request, ExportRequest);
    const db = await pageDb();
    const saved = await db.tenant(principal.tenantId, (tx) => getSavedQuery(tx, params.id ?? ''));
    ensureListExportJob();
    const t = await getT(locals.language ?? 'en');
    const download = await requestQueryExport(
      db,
      listViewerOf(principal, locals.tenant, locals.language),
      saved.definition,
      body.format,
      saved.name,
    ).catch((error: unknown) => {
      throw localizePlanError(t, error);
    });
    return json(toDownloadJson(download), { status: 202 });
  });
