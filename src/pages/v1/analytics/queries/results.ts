import type { APIRoute } from 'astro';
import { z } from 'zod';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { resultsJson, resultsPosition, runQuery } from '#lib/analytics/queries.ts';
import { listViewerOf } from '#lib/analytics/query-viewer.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { handle, json, readJson } from '#lib/http/respond.ts';
import { pageDb } from '../../../../server/db.ts';

const AdHoc = z.object({
  definition: z.unknown(),
  cursor: z.string().max(600).nullable().optional(),
  page: z.number().int().optional(),
  limit: z.number().int().optional(),
});

/**
 * POST /v1/analytics/queries/results { definition, cursor?, page?, limit? } → one page of an unsaved
 * definition's rows (as GET /v1/analytics/queries/:id/results); 422 naming an unknown field.
 */
export const POST: APIRoute = ({ locals, request }) =>
  handle(locals.requestId, async () => {
    const principal = requirePrincipal(locals.principal);
    if (!locals.tenant) throw new AppError('FORBIDDEN', 'Sign in to a tenant.');
    const body = await readJson(request, AdHoc);
    const params = new URLSearchParams();
    if (body.cursor) params.set('cursor', body.cursor);
    if (body.page !== undefined) params.set('page', String(body.page));
    if (body.limit !== undefined) params.set('limit', String(body.limit));
    const viewer = listViewerOf(principal, locals.tenant, locals.language);
    const results = await runQuery(await pageDb(), viewer, body.definition, resultsPosition(params));
    return json(resultsJson(results, locals.tenant.currency));
  });
