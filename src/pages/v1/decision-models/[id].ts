import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { modelWithVersions, saveModelCommand, versionJson, withModelId } from '#lib/decisioning/commands.ts';

/** GET /v1/decision-models/{id} → the model with every version (newest first). */
export const GET: APIRoute = (context) =>
  query(apiContext(context), (tx) => modelWithVersions(tx, context.params.id ?? ''));

/**
 * PUT /v1/decision-models/{id} { content, testCases?, description?, baseVersion? } → { version,
 * superseded, previous }: edits the latest version while unused, else saves the work as a new version.
 */
export const PUT: APIRoute = (context) => {
  const modelId = context.params.id ?? '';
  return commandEndpoint(apiContext(context), saveModelCommand, {
    objectId: modelId,
    input: withModelId(modelId),
    answer: (saved) => ({ status: 200, body: { ...saved, version: versionJson(saved.version) } }),
  });
};
