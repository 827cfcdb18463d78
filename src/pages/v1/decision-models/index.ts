import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { createModelCommand, modelJson, summaryJson, versionJson } from '#lib/decisioning/commands.ts';
import { listModels } from '#lib/decisioning/models.ts';

/** GET /v1/decision-models → { items }: every model with its latest version, whether one is in use and its test status. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx) => ({ items: (await listModels(tx)).map(summaryJson) }));

/**
 * POST /v1/decision-models { name, kind?, description?, content?, testCases? } → 201 { model, version }.
 * A JDM document posted as { name, content } is an imported graph; a kind without content starts from
 * that kind's template. The test cases run first: a failing one is a 422 with `details.report`.
 */
export const POST: APIRoute = (context) =>
  commandEndpoint(apiContext(context), createModelCommand, {
    answer: ({ model, version }) => ({ status: 201, body: { model: modelJson(model), version: versionJson(version) } }),
  });
