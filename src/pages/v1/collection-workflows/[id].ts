import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { deleteWorkflowCommand, getWorkflow, updateWorkflowCommand, withWorkflowId } from '#lib/collection/admin.ts';

/** GET /v1/collection-workflows/{id} → the workflow (404 for an unknown id or another tenant's). */
export const GET: APIRoute = (context) => query(apiContext(context), (tx) => getWorkflow(tx, context.params.id ?? ''));

/** PATCH /v1/collection-workflows/{id} { expectedRevision?, name?, bucketId?, enabled?, steps? } → the workflow (409 when stale). */
export const PATCH: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), updateWorkflowCommand, {
    objectId: id,
    input: withWorkflowId(id),
    answer: (w) => ({ status: 200, body: w }),
  });
};

/** DELETE /v1/collection-workflows/{id} { expectedRevision? } → { id }. */
export const DELETE: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), deleteWorkflowCommand, {
    objectId: id,
    input: withWorkflowId(id),
    answer: (out) => ({ status: 200, body: out }),
  });
};
