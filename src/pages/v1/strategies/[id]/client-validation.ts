import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { validateDraftClientCommand } from '#lib/strategies/commands.ts';
import { detailJson } from '#lib/strategies/strategies.ts';

/** POST /v1/strategies/{id}/client-validation → the strategy; the client's signature of the simulated draft (not by the provider's signer). */
export const POST: APIRoute = (context) => {
  const strategyId = context.params.id ?? '';
  return commandEndpoint(apiContext(context), validateDraftClientCommand, {
    objectId: strategyId,
    input: () => ({ strategyId }),
    answer: (detail) => ({ status: 200, body: detailJson(detail) }),
  });
};
