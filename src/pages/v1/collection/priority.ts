import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { getPriority, savePriorityCommand } from '#lib/collection/admin.ts';

/** GET /v1/collection/priority → { weightAmount, weightDays, weightBrokenPromises, revision }. */
export const GET: APIRoute = (context) => query(apiContext(context), (tx) => getPriority(tx));

/** PUT /v1/collection/priority { weightAmount, weightDays, weightBrokenPromises, expectedRevision? } → the weights (≥ 0; 409 when stale). */
export const PUT: APIRoute = (context) =>
  commandEndpoint(apiContext(context), savePriorityCommand, { answer: (p) => ({ status: 200, body: p }) });
