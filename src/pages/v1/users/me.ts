import type { APIRoute } from 'astro';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { pageDb } from '../../../server/db.ts';
import { handle, json } from '#lib/http/respond.ts';
import { currentUser } from '#lib/tenancy/users.ts';

/** The current user with exactly the fields of the user contract (src/lib/tenancy/users.ts). */
export const GET: APIRoute = ({ locals }) =>
  handle(locals.requestId, async () => {
    const principal = requirePrincipal(locals.principal);
    const db = await pageDb();
    return json(await db.tenant(principal.tenantId, (tx) => currentUser(tx, principal.userId)));
  });
