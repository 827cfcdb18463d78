import type { APIRoute } from 'astro';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { deleteQueryCommand, getSavedQuery, saveQueryCommand } from '#lib/analytics/queries.ts';
import { handle, json } from '#lib/http/respond.ts';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { pageDb } from '../../../../server/db.ts';

/** GET /v1/analytics/queries/:id → the query (404 when unknown, or another tenant's). */
export const GET: APIRoute = ({ locals, params }) =>
  handle(locals.requestId, async () => {
    const principal = requirePrincipal(locals.principal);
    return json(await (await pageDb()).tenant(principal.tenantId, (tx) => getSavedQuery(tx, params.id ?? '')));
  });

const body = (raw: unknown) => (raw && typeof raw === 'object' ? raw : {});

/**
 * PUT /v1/analytics/queries/:id { name, description, definition, revision } → the query with its next
 * revision; 409 when `revision` is not the current one (someone saved in between).
 */
export const PUT: APIRoute = (context) =>
  commandEndpoint(apiContext(context), saveQueryCommand, {
    objectId: context.params.id ?? null,
    input: (raw) => ({ revision: null, ...body(raw), id: context.params.id ?? '' }),
    answer: (query) => ({ status: 200, body: query }),
  });

/** DELETE /v1/analytics/queries/:id (optional ?revision=n: only if still current) → { id }. */
export const DELETE: APIRoute = (context) =>
  commandEndpoint(apiContext(context), deleteQueryCommand, {
    objectId: context.params.id ?? null,
    readInput: async () => ({ id: context.params.id ?? '', revision: context.url.searchParams.get('revision') }),
    answer: (output) => ({ status: 200, body: output }),
  });
