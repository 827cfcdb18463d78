import type { APIRoute } from 'astro';
import { pageDb } from '../../../../server/db.ts';
import { handle, json, readJson } from '#lib/http/respond.ts';
import { customViewInputSchema, deleteCustomView, getCustomView, updateCustomView } from '#lib/lists/custom-views.ts';
import { listAccess } from '#lib/lists/access.ts';

/** GET /v1/custom-views/:list/:id → the view (own or shared; someone else's personal view is 404). */
export const GET: APIRoute = ({ locals, params }) =>
  handle(locals.requestId, async () => {
    const { principal, entry, actor } = listAccess(locals.principal, params.list, locals.requestId);
    return json(
      await (
        await pageDb()
      ).tenant(principal.tenantId, (tx) => getCustomView(tx, actor, entry.def.name, params.id ?? '')),
    );
  });

/** PATCH /v1/custom-views/:list/:id (the whole view) → the view; only its owner (403 otherwise). */
export const PATCH: APIRoute = ({ locals, params, request }) =>
  handle(locals.requestId, async () => {
    const { principal, entry, actor } = listAccess(locals.principal, params.list, locals.requestId);
    const body = await readJson(request, customViewInputSchema);
    return json(
      await (
        await pageDb()
      ).tenant(principal.tenantId, (tx) => updateCustomView(tx, actor, entry.def, params.id ?? '', body)),
    );
  });

/** DELETE /v1/custom-views/:list/:id → 204; only its owner. */
export const DELETE: APIRoute = ({ locals, params }) =>
  handle(locals.requestId, async () => {
    const { principal, entry, actor } = listAccess(locals.principal, params.list, locals.requestId);
    await (
      await pageDb()
    ).tenant(principal.tenantId, (tx) => deleteCustomView(tx, actor, entry.def.name, params.id ?? ''));
    return new Response(null, { status: 204 });
  });
