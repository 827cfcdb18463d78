import type { APIRoute } from 'astro';
import { apiContext, query } from '#lib/lending/api.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { getScheduledExport, listRuns, runJson } from '#lib/scheduled-exports/model.ts';

/** GET /v1/scheduled-exports/{id}/runs[?limit=1..200] → { items: runs newest first, each target's outcome }. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx, _actor, url) => {
    const e = await getScheduledExport(tx, context.params.id ?? '');
    const raw = url.searchParams.get('limit');
    const limit = raw === null ? 50 : Number(raw);
    if (!Number.isInteger(limit) || limit < 1 || limit > 200)
      throw new AppError('BAD_REQUEST', 'limit: a whole number from 1 to 200', { field: 'limit' });
    return { items: (await listRuns(tx, e.id, limit)).map(runJson) };
  });
