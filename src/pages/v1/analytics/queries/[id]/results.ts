import type { APIRoute } from 'astro';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { getSavedQuery, resultsJson, resultsPosition, runQuery } from '#lib/analytics/queries.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { handle, json } from '#lib/http/respond.ts';
import { pageDb } from '../../../../../server/db.ts';
import { listViewerOf } from '#lib/analytics/query-viewer.ts';

/**
 * GET /v1/analytics/queries/:id/results?cursor=&page=&limit= → one page of the saved query's rows
 * under the caller's data permissions, with the count (capped at 1,000). See resultsJson.
 */
export const GET: APIRoute = ({ locals, params, url }) =>
  handle(locals.requestId, async () => {
    const principal = requirePrincipal(locals.principal);
    if (!locals.tenant) throw new AppError('NOT_FOUND', 'This query does not exist.', { field: 'id' });
    for (const name of url.searchParams.keys())
      if (!['cursor', 'page', 'limit'].includes(name))
        throw new AppError('BAD_REQUEST', `${name}: unknown parameter`, { field: name });
    const position = resultsPosition(url.searchParams);
    const db = await pageDb();
    const saved = await db.tenant(principal.tenantId, (tx) => getSavedQuery(tx, params.id ?? ''));
    const viewer = listViewerOf(principal, locals.tenant, locals.language);
    const results = await runQuery(db, viewer, saved.definition, position);
    return json({ id: saved.id, name: saved.name, ...resultsJson(results, locals.tenant.currency) });
  });
