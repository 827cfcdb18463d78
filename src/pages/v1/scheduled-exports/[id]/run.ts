import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { runNowCommand } from '#lib/scheduled-exports/commands.ts';
import { runJson } from '#lib/scheduled-exports/model.ts';

/** POST /v1/scheduled-exports/{id}/run → 202 the queued run (see GET …/runs for its outcome). */
export const POST: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), runNowCommand, {
    objectId: id,
    input: () => ({ id }),
    answer: (run) => ({ status: 202, body: runJson(run) }),
  });
};
