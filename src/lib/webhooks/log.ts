/** The delivery log of an endpoint: its deliveries, newest first, each with its attempts. */
import type { Tx } from '../db/index.ts';
import type { WebhookAttemptsRow, WebhookDeliveriesRow } from '../db/schema.generated.ts';

export const LOG_PAGE_SIZE = 20;

export type WebhookAttempt = {
  id: string;
  attempt: number;
  isManual: boolean;
  startedAt: Date;
  durationMs: number;
  requestHeaders: Record<string, string>;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
};

export type WebhookDelivery = {
  id: string;
  eventId: string;
  eventType: string;
  msgId: string;
  payload: string;
  status: 'pending' | 'delivered' | 'failed' | 'cancelled';
  attempts: number;
  nextAttemptAt: Date | null;
  lastStatus: number | null;
  lastError: string | null;
  lastAttemptAt: Date | null;
  deliveredAt: Date | null;
  createdAt: Date;
  log: WebhookAttempt[];
};

type DeliveryRow = Omit<WebhookDeliveriesRow, 'tenant_id' | 'endpoint_id' | 'status'> & {
  status: WebhookDelivery['status'];
};
type AttemptRow = Omit<WebhookAttemptsRow, 'tenant_id' | 'endpoint_id' | 'request_headers'> & {
  request_headers: Record<string, string>;
};

/** One page (1-based) of an endpoint's deliveries with their attempts, and whether more follow. */
export async function listDeliveries(
  tx: Tx,
  endpointId: string,
  page = 1,
  pageSize = LOG_PAGE_SIZE,
): Promise<{ items: WebhookDelivery[]; page: number; hasMore: boolean }> {
  const rows = await tx.query<DeliveryRow>(
    `select id, event_id, event_type, msg_id, payload, status, attempts, next_attempt_at, last_status, last_error,
            last_attempt_at, delivered_at, created_at
       from webhook_deliveries where endpoint_id = $1
      order by created_at desc, id desc limit $2 offset $3`,
    [endpointId, pageSize + 1, (page - 1) * pageSize],
  );
  const shown = rows.slice(0, pageSize);
  const attempts = shown.length
    ? await tx.query<AttemptRow>(
        `select id, delivery_id, attempt, is_manual, started_at, duration_ms, request_headers, response_status,
                response_body, error
           from webhook_attempts where delivery_id = any($1::uuid[]) order by started_at, attempt`,
        [shown.map((r) => r.id)],
      )
    : [];
  const items = shown.map((r): WebhookDelivery => ({
    id: r.id,
    eventId: r.event_id,
    eventType: r.event_type,
    msgId: r.msg_id,
    payload: r.payload,
    status: r.status,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    lastStatus: r.last_status,
    lastError: r.last_error,
    lastAttemptAt: r.last_attempt_at,
    deliveredAt: r.delivered_at,
    createdAt: r.created_at,
    log: attempts
      .filter((a) => a.delivery_id === r.id)
      .map((a) => ({
        id: a.id,
        attempt: a.attempt,
        isManual: a.is_manual,
        startedAt: a.started_at,
        durationMs: a.duration_ms,
        requestHeaders: a.request_headers,
        responseStatus: a.response_status,
        responseBody: a.response_body,
        error: a.error,
      })),
  }));
  return { items, page, hasMore: rows.length > pageSize };
}
