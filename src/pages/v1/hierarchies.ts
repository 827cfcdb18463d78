import type { APIRoute } from 'astro';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { pageDb } from '../../server/db.ts';
import { handle, json } from '#lib/http/respond.ts';
import { listHierarchies } from '#lib/tenancy/hierarchies.ts';

/** The tenant's region → branch → officer trees the caller may scope to. */
export const GET: APIRoute = ({ locals }) =>
  handle(locals.requestId, async () => {
    const principal = requirePrincipal(locals.principal);
    const db = await pageDb();
    return json({ items: await db.tenant(principal.tenantId, (tx) => listHierarchies(tx, principal)) });
  });
