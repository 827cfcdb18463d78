import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { evaluateModelCommand, withModelId } from '#lib/decisioning/commands.ts';

/**
 * POST /v1/decision-models/{id}/evaluate { input, version? } → { result, trace, version, ms }: a test
 * run of the latest version (or version n). It marks no version used.
 */
export const POST: APIRoute = (context) => {
  const modelId = context.params.id ?? '';
  return commandEndpoint(apiContext(context), evaluateModelCommand, {
    objectId: modelId,
    input: withModelId(modelId),
    answer: (evaluation) => ({ status: 200, body: evaluation }),
  });
};
