import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { validateLiveCommand } from '#lib/strategies/commands.ts';
import { detailJson } from '#lib/strategies/strategies.ts';

/** POST /v1/strategies/{id}/live-validation → the strategy; the post-go-live check of its live version. */
export const POST: APIRoute = (context) => {
  const strategyId = context.params.id ?? '';
  return commandEndpoint(apiContext(context), validateLiveCommand, {
    objectId: strategyId,
    input: () => ({ strategyId }),
    answer: (detail) => ({ status: 200, body: detailJson(detail) }),
  });
};
