import type { APIRoute } from 'astro';
import { apiContext, query } from '#lib/lending/api.ts';
import { deliveriesPage } from '#lib/webhooks/api.ts';

/**
 * GET /v1/webhooks/{id}/deliveries?page=1&pageSize=20 → { items: [{ id, eventType, webhookId, status,
 * attempts, nextAttemptAt, payload, log: [{ attempt, manual, startedAt, durationMs, request, response, error }] }], hasMore }.
 */
export const GET: APIRoute = (context) =>
  query(apiContext(context), (tx, _actor, url) => deliveriesPage(tx, context.params.id ?? '', url));
