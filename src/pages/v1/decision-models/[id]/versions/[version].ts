import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { updateVersionCommand, versionJson, withModelId } from '#lib/decisioning/commands.ts';

/** PATCH /v1/decision-models/{id}/versions/{n} { content, testCases? } → the version; 409 `version_in_use` once used. */
export const PATCH: APIRoute = (context) => {
  const modelId = context.params.id ?? '';
  const version = context.params.version ?? '';
  return commandEndpoint(apiContext(context), updateVersionCommand, {
    objectId: modelId,
    input: withModelId(modelId, { version }),
    answer: (row) => ({ status: 200, body: versionJson(row) }),
  });
};
