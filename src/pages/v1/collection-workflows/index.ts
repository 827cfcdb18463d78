import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { createWorkflowCommand, listWorkflows } from '#lib/collection/admin.ts';

/** GET /v1/collection-workflows → { items }: every collection workflow with its bucket and steps. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx) => ({ items: await listWorkflows(tx) }));

/**
 * POST /v1/collection-workflows { name, bucketId, enabled?, steps } → 201 the workflow. Steps:
 * [{ id?, offsetDays, action: create_task|send_template|escalate|assign, params, when?: 'promise_broken' }].
 */
export const POST: APIRoute = (context) =>
  commandEndpoint(apiContext(context), createWorkflowCommand, { answer: (w) => ({ status: 201, body: w }) });
