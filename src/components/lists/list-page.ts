import type { AstroGlobal } from 'astro';
import { z } from 'zod';
import { allowedActions } from '#lib/auth/allowed-actions.ts';
import { pageDb } from '../../server/db.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { requestListExport } from '#lib/exports/export-job.ts';
import { EXPORT_FORMATS } from '#lib/exports/write-list-export.ts';
import { ensureListExportJob } from '#lib/exports/register.ts';
import { findList, type ListEntry } from '#lib/lists/registry.ts';
import { serveList, type ServedList } from '#lib/lists/serve.ts';
import { logger } from '#lib/observability/log.ts';
import { businessDate } from '#lib/tenancy/tenant.ts';

/**
 * Astro glue of a list page (GET renders, POST `_action=export` queues an export and goes to the
 * downloads list). The decisions live in src/lib/lists and src/lib/exports.
 */
export type ListPageResult =
  | { kind: 'redirect'; location: string }
  | {
      kind: 'ok';
      entry: ListEntry;
      served: ServedList;
      canEditViews: boolean;
      currency: string;
      timeZone?: string;
      notice: string | null;
    }
  | { kind: 'error'; entry: ListEntry; status: number; message: string | null };

const exportFormSchema = z.object({ format: z.enum(EXPORT_FORMATS), query: z.string().max(4_000) });

export async function loadListPage(Astro: AstroGlobal, listName: string): Promise<ListPageResult> {
  const entry = findList(listName);
  if (!entry) throw new Error(`unknown list ${listName}`);
  const { principal, tenant, language } = Astro.locals;
  if (!principal || !tenant)
    return {
      kind: 'redirect',
      location: `/user/login?redirect=${encodeURIComponent(Astro.url.pathname + Astro.url.search)}`,
    };
  const db = await pageDb();
  let notice: string | null = null;
  if (Astro.request.method === 'POST') {
    try {
      const form = await Astro.request.formData();
      if (form.get('_action') !== 'export') throw new AppError('BAD_REQUEST', 'Unknown action.', { field: '_action' });
      const input = exportFormSchema.parse({ format: form.get('format'), query: form.get('query') ?? '' });
      ensureListExportJob();
      const date = await db.tenant(tenant.id, (tx) => businessDate(tx, tenant.id));
      await requestListExport(db, {
        tenantId: tenant.id,
        userId: principal.userId,
        def: entry.def,
        query: input.query,
        format: input.format,
        language,
        fileBaseName: entry.fileBaseName,
        businessDate: date,
      });
      return { kind: 'redirect', location: '/loans/user/downloads-list' };
    } catch (error) {
      logger.warn('list export refused', { list: listName, request_id: Astro.locals.requestId, error: String(error) });
      notice = 'lists:common.exportFailed';
      // A refused export answers with its status (403 for a scope outside the data permissions), the list below it.
      if (error instanceof AppError && error.status < 500) Astro.response.status = error.status;
    }
  }
  try {
    const served = await serveList(
      db,
      {
        tenantId: tenant.id,
        userId: principal.userId,
        isAdmin: principal.isAdmin,
        dataPermissions: principal.dataPermissions,
        currency: tenant.currency,
        language,
      },
      entry,
      Astro.url.searchParams,
    );
    return {
      kind: 'ok',
      entry,
      served,
      currency: tenant.currency,
      timeZone: tenant.timeZone,
      notice,
      canEditViews: allowedActions(principal, 'list', entry).editViews,
    };
  } catch (error) {
    const status = error instanceof AppError ? error.status : 500;
    if (status >= 500)
      logger.error('list failed', { list: listName, request_id: Astro.locals.requestId, error: String(error) });
    return { kind: 'error', entry, status, message: error instanceof AppError ? error.message : null };
  }
}
