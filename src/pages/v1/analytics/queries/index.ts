import type { APIRoute } from 'astro';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { listSavedQueries, saveQueryCommand } from '#lib/analytics/queries.ts';
import { handle, json } from '#lib/http/respond.ts';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { pageDb } from '../../../../server/db.ts';

/** GET /v1/analytics/queries → { items }: the tenant's saved queries by name (src/lib/analytics/queries.ts). */
export const GET: APIRoute = ({ locals }) =>
  handle(locals.requestId, async () => {
    const principal = requirePrincipal(locals.principal);
    const items = await (await pageDb()).tenant(principal.tenantId, (tx) => listSavedQueries(tx));
    return json({ items });
  });

/**
 * POST /v1/analytics/queries { name, description, definition: { dataset, tab, filters, columns, sort,
 * scope } } → 201 the query; an unknown dataset, column or filter is a 422 naming the field.
 */
export const POST: APIRoute = (context) =>
  commandEndpoint(apiContext(context), saveQueryCommand, {
    input: (body) => ({ ...(body && typeof body === 'object' ? body : {}), id: null, revision: null }),
    answer: (query) => ({ status: 201, body: query }),
  });
