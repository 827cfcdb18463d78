import type { APIRoute } from 'astro';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { pageDb } from '../../../server/db.ts';
import { handle, json } from '#lib/http/respond.ts';
import { currentPlan } from '#lib/plans/plans.ts';

/** The tenant's plan features (name, supports_usage_limit, usage_unit, plans, usage). */
export const GET: APIRoute = ({ locals }) =>
  handle(locals.requestId, async () => {
    const principal = requirePrincipal(locals.principal);
    const db = await pageDb();
    return json(await db.tenant(principal.tenantId, (tx) => currentPlan(tx, principal.tenantId)));
  });
