import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { completeTaskCommand, withTaskId } from '#lib/tasks/commands.ts';

/** POST /v1/tasks/{id}/completion { expectedRevision? } → the task, marked done. */
export const POST: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), completeTaskCommand, {
    objectId: id,
    input: withTaskId(id),
    answer: (task) => ({ status: 200, body: task }),
  });
};
