import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { bindingJson, createBindingCommand } from '#lib/decisioning/binding-commands.ts';
import { listBindings, liveOfferModels } from '#lib/decisioning/bindings.ts';

/**
 * GET /v1/decision-bindings → { items, offerGeneration }: every binding, and (read-only) the live
 * strategies whose model versions generate offers (configured on the strategy pages).
 */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx) => ({
    items: (await listBindings(tx)).map(bindingJson),
    offerGeneration: (await liveOfferModels(tx)).map((s) => ({
      strategyId: s.strategy_id,
      strategyName: s.strategy_name,
      strategyVersion: s.version,
      modelName: s.model_name,
      modelVersion: s.model_version,
    })),
  }));

/**
 * POST /v1/decision-bindings { name, point, modelId, versionId, inputs, mapping, rejectAction?, enabled? }
 * → 201 the binding. Another tenant's model is a 404; a second enabled binding on a point is a 409.
 */
export const POST: APIRoute = (context) =>
  commandEndpoint(apiContext(context), createBindingCommand, {
    answer: (binding) => ({ status: 201, body: bindingJson(binding) }),
  });
