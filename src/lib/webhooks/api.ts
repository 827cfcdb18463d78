/** JSON shapes of /v1/webhooks (the endpoint files stay thin). */
import { AppError } from '../errors/app-error.ts';
import type { Tx } from '../db/index.ts';
import { QueryReader } from '../http/query-params.ts';
import { getWebhook, webhookJson } from './endpoints.ts';
import { listDeliveries, type WebhookDelivery } from './log.ts';

export function deliveryJson(d: WebhookDelivery) {
  return {
    id: d.id,
    eventId: d.eventId,
    eventType: d.eventType,
    webhookId: d.msgId,
    status: d.status,
    attempts: d.attempts,
    nextAttemptAt: d.nextAttemptAt,
    lastStatus: d.lastStatus,
    lastError: d.lastError,
    lastAttemptAt: d.lastAttemptAt,
    deliveredAt: d.deliveredAt,
    createdAt: d.createdAt,
    payload: d.payload,
    log: d.log.map((a) => ({
      attempt: a.attempt,
      manual: a.isManual,
      startedAt: a.startedAt,
      durationMs: a.durationMs,
      request: { headers: a.requestHeaders },
      response: a.responseStatus === null ? null : { status: a.responseStatus, body: a.responseBody },
      error: a.error,
    })),
  };
}

export async function webhookOrNotFound(tx: Tx, id: string) {
  const endpoint = await getWebhook(tx, id);
  if (!endpoint) throw new AppError('NOT_FOUND', 'This webhook does not exist.');
  return endpoint;
}

/** GET /v1/webhooks/{id}/deliveries?page=&pageSize= */
export async function deliveriesPage(tx: Tx, id: string, url: URL) {
  const endpoint = await webhookOrNotFound(tx, id);
  const q = new QueryReader(url.searchParams, ['page', 'pageSize']);
  const page = q.int('page', { min: 1, max: 100_000, fallback: 1 });
  const pageSize = q.int('pageSize', { min: 1, max: 100, fallback: 20 });
  const { items, hasMore } = await listDeliveries(tx, endpoint.id, page, pageSize);
  return { items: items.map(deliveryJson), page, pageSize, hasMore };
}

export { webhookJson };
