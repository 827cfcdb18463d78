import type { APIRoute } from 'astro';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { pageDb } from '../../../server/db.ts';
import { handle, json } from '#lib/http/respond.ts';
import { listAdministrators } from '#lib/tenancy/users.ts';

/** The tenant's administrators (display_name, email), for the 403 page. */
export const GET: APIRoute = ({ locals }) =>
  handle(locals.requestId, async () => {
    const principal = requirePrincipal(locals.principal);
    const db = await pageDb();
    return json(await db.tenant(principal.tenantId, (tx) => listAdministrators(tx)));
  });
