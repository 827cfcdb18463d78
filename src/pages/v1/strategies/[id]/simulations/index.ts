import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { generateSimulationCommand } from '#lib/strategies/commands.ts';
import { detailJson } from '#lib/strategies/strategies.ts';

/** POST /v1/strategies/{id}/simulations → 202 { simulationId, strategy }: the draft's simulation, queued as a job. */
export const POST: APIRoute = (context) => {
  const strategyId = context.params.id ?? '';
  return commandEndpoint(apiContext(context), generateSimulationCommand, {
    objectId: strategyId,
    input: () => ({ strategyId }),
    answer: (detail) => ({ status: 202, body: { simulationId: detail.simulationId, strategy: detailJson(detail) } }),
  });
};
