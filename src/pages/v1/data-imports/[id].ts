import type { APIRoute } from 'astro';
import { apiContext, query } from '#lib/lending/api.ts';
import { getImport, importJson, importProgress, mappingFor } from '#lib/data-import/imports.ts';

/** GET /v1/data-imports/{id} → the import: status (queued, running, checked, refused, imported, failed), progress, counts, row errors. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx) => {
    const row = await getImport(tx, context.params.id ?? '');
    return { ...importJson(row, await importProgress(tx, row)), suggestedMapping: await mappingFor(tx, row) };
  });
