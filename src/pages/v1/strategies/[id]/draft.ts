import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { encodeDraftCommand } from '#lib/strategies/commands.ts';
import { detailJson } from '#lib/strategies/strategies.ts';

/** PUT /v1/strategies/{id}/draft { terms } → the strategy; the open draft's terms (StrategyTerms), simulation and signatures reset. */
export const PUT: APIRoute = (context) => {
  const strategyId = context.params.id ?? '';
  return commandEndpoint(apiContext(context), encodeDraftCommand, {
    objectId: strategyId,
    input: (body) => ({ terms: (body as { terms?: unknown } | null)?.terms, strategyId }),
    answer: (detail) => ({ status: 200, body: detailJson(detail) }),
  });
};
