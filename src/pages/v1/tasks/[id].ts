import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { deleteTaskCommand, updateTaskCommand, withTaskId } from '#lib/tasks/commands.ts';
import { getTask } from '#lib/tasks/tasks.ts';

/** GET /v1/tasks/{id} → the task (404 when missing or outside the caller's scope). */
export const GET: APIRoute = (context) =>
  query(apiContext(context), (tx, actor) => getTask(tx, actor, context.params.id ?? ''));

/**
 * PATCH /v1/tasks/{id} { expectedRevision, title?, description?, status?, priority?, dueDate?,
 * assigneeUserId? | assigneeNodeId?, customerId?, loanId?, applicationId?, offerId? } → the task
 * (409 when the revision is stale).
 */
export const PATCH: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), updateTaskCommand, {
    objectId: id,
    input: withTaskId(id),
    answer: (task) => ({ status: 200, body: task }),
  });
};

/** DELETE /v1/tasks/{id} { expectedRevision? } → { id }. */
export const DELETE: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), deleteTaskCommand, {
    objectId: id,
    input: withTaskId(id),
    answer: (out) => ({ status: 200, body: out }),
  });
};
