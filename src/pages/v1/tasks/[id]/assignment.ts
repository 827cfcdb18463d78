import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { assignTaskCommand, withTaskId } from '#lib/tasks/commands.ts';

/** POST /v1/tasks/{id}/assignment { assigneeUserId | assigneeNodeId, expectedRevision? } → the task (loans.tasks.manage). */
export const POST: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), assignTaskCommand, {
    objectId: id,
    input: withTaskId(id),
    answer: (task) => ({ status: 200, body: task }),
  });
};
