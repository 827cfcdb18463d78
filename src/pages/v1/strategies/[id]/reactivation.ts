import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { reactivateStrategyCommand } from '#lib/strategies/commands.ts';
import { detailJson } from '#lib/strategies/strategies.ts';

/** POST /v1/strategies/{id}/reactivation → the strategy, live again with its live version. */
export const POST: APIRoute = (context) => {
  const strategyId = context.params.id ?? '';
  return commandEndpoint(apiContext(context), reactivateStrategyCommand, {
    objectId: strategyId,
    input: () => ({ strategyId }),
    answer: (detail) => ({ status: 200, body: detailJson(detail) }),
  });
};
