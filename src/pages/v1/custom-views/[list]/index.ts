import type { APIRoute } from 'astro';
import { pageDb } from '../../../../server/db.ts';
import { handle, json, readJson } from '#lib/http/respond.ts';
import { createCustomView, customViewInputSchema, listCustomViews } from '#lib/lists/custom-views.ts';
import { listAccess } from '#lib/lists/access.ts';

/** GET /v1/custom-views/:list → { items }: the caller's views and the shared ones. */
export const GET: APIRoute = ({ locals, params }) =>
  handle(locals.requestId, async () => {
    const { principal, entry, actor } = listAccess(locals.principal, params.list, locals.requestId);
    const items = await (await pageDb()).tenant(principal.tenantId, (tx) => listCustomViews(tx, actor, entry.def.name));
    return json({ items });
  });

/** POST /v1/custom-views/:list { name, columns, filters, sort, tab, isShared } → 201 the view. */
export const POST: APIRoute = ({ locals, params, request }) =>
  handle(locals.requestId, async () => {
    const { principal, entry, actor } = listAccess(locals.principal, params.list, locals.requestId);
    const body = await readJson(request, customViewInputSchema);
    const view = await (
      await pageDb()
    ).tenant(principal.tenantId, (tx) => createCustomView(tx, actor, entry.def, body));
    return json(view, { status: 201 });
  });
