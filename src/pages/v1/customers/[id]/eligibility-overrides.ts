import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { forceEligibilityCommand, listEligibilityOverrides, overrideJson } from '#lib/strategies/eligibility.ts';

/** GET /v1/customers/{id}/eligibility-overrides → { items }: the customer's overrides, open first. */
export const GET: APIRoute = (context) => {
  const customerId = context.params.id ?? '';
  return query(apiContext(context), async (tx, _actor, _url, principal) => ({
    items: (await listEligibilityOverrides(tx, principal, customerId)).map(overrideJson),
  }));
};

/**
 * POST /v1/customers/{id}/eligibility-overrides { reason, strategyId? } → 201 the override: the next
 * origination of that strategy (or of any live strategy) offers to this customer even if the model refuses.
 */
export const POST: APIRoute = (context) => {
  const customerId = context.params.id ?? '';
  return commandEndpoint(apiContext(context), forceEligibilityCommand, {
    objectId: customerId,
    input: (body) => ({ ...(body && typeof body === 'object' ? body : {}), customerId }),
    answer: (row) => ({ status: 201, body: overrideJson(row) }),
  });
};
