import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { createRoleCommand } from '#lib/roles/commands.ts';
import { listRoles, roleJson } from '#lib/roles/roles.ts';

/** GET /v1/roles → { items }: every role of the tenant, the Administrator role first. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx) => ({ items: (await listRoles(tx)).map(roleJson) }));

/**
 * POST /v1/roles { name, description?, permissions: ["loans.customers.view", "loans.offers", "analytics"] }
 * → 201 the role. Unknown keys, a taken name (any case) and grants the caller does not hold are refused.
 */
export const POST: APIRoute = (context) =>
  commandEndpoint(apiContext(context), createRoleCommand, {
    answer: (role) => ({ status: 201, body: roleJson(role) }),
  });
