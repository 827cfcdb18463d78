import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { addVersionCommand, versionJson, withModelId } from '#lib/decisioning/commands.ts';

/** POST /v1/decision-models/{id}/versions { content, testCases? } → 201 the new version (always supersedes). */
export const POST: APIRoute = (context) => {
  const modelId = context.params.id ?? '';
  return commandEndpoint(apiContext(context), addVersionCommand, {
    objectId: modelId,
    input: withModelId(modelId),
    answer: (version) => ({ status: 201, body: versionJson(version) }),
  });
};
