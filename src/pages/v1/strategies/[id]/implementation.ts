import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { implementStrategyCommand } from '#lib/strategies/commands.ts';
import { detailJson } from '#lib/strategies/strategies.ts';

/** POST /v1/strategies/{id}/implementation → the strategy, live with the validated draft (the previous live version superseded). */
export const POST: APIRoute = (context) => {
  const strategyId = context.params.id ?? '';
  return commandEndpoint(apiContext(context), implementStrategyCommand, {
    objectId: strategyId,
    input: () => ({ strategyId }),
    answer: (detail) => ({ status: 200, body: detailJson(detail) }),
  });
};
