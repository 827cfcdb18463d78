import type { APIRoute } from 'astro';
import { assertInScope } from '#lib/auth/data-permissions.ts';
import { apiContext, query } from '#lib/lending/api.ts';
import { decisionJson } from '#lib/decisioning/binding-commands.ts';
import { listDecisions } from '#lib/decisioning/decisions.ts';

/** GET /v1/customers/{id}/decisions → { items }: every decision about the customer, newest first (another branch's: 404). */
export const GET: APIRoute = (context) => {
  const customerId = context.params.id ?? '';
  return query(apiContext(context), async (tx, _actor, _url, principal) => {
    await assertInScope(tx, principal, 'customer', customerId);
    return { items: (await listDecisions(tx, { customerId }, 200)).map(decisionJson) };
  });
};
