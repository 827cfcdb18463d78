/**
 * The dispatcher: turns the tenant's committed domain events into deliveries, one per enabled
 * endpoint whose patterns match the event, each with its first send job, then moves the tenant's
 * cursor, all in one transaction (a crash before commit leaves the cursor where it was; the unique
 * (endpoint, event) key makes a second pass harmless). Run by the `webhooks.dispatch` job, which the
 * trigger of migration 1010 queues in every transaction that writes an event.
 */
import type { Db, Tx } from '../db/index.ts';
import type { WebhookCursorsRow, WebhookEndpointsRow } from '../db/schema.generated.ts';
import { eventMatches } from '../events/catalog.ts';
import { readCommittedEvents, type DomainEvent, type EventCursor } from '../events/outbox.ts';
import { enqueueJob } from '../jobs/queue.ts';

export const DISPATCH_JOB = 'webhooks.dispatch';
export const SEND_JOB = 'webhooks.send';
const BATCH = 500;

/** Queues the send job of a delivery's next attempt (or a manual one: resend, test event). */
export async function enqueueSend(
  tx: Tx,
  tenantId: string,
  deliveryId: string,
  options: { runAt?: Date; attempt?: number; manual?: boolean },
): Promise<void> {
  const key = options.manual
    ? `${SEND_JOB}:${tenantId}:${deliveryId}:manual:${crypto.randomUUID()}`
    : `${SEND_JOB}:${tenantId}:${deliveryId}:${options.attempt ?? 1}`;
  await enqueueJob(tx, {
    name: SEND_JOB,
    tenantId,
    payload: { deliveryId, ...(options.manual ? { manual: true } : {}) },
    runAt: options.runAt,
    // Job attempts only cover a worker dying or the database failing mid-send; HTTP failures are
    // the delivery's own retries (schedule.ts), each a new job.
    maxAttempts: 20,
    priority: 50,
    dedupeKey: key,
  });
}

/** The webhook payload of a domain event (Standard Webhooks: `{ type, timestamp, data }`). */
export function eventPayload(event: DomainEvent): string {
  return JSON.stringify({ type: event.type, timestamp: event.occurredAt, data: event.data });
}

/** Sets the cursor after the tenant's newest event (a tenant starting to use webhooks). */
export async function moveCursorToTail(tx: Tx, tenantId: string): Promise<void> {
  await tx.query(
    `insert into webhook_cursors (tenant_id, cursor_xid, cursor_seq)
     values ($1, (select xid from domain_events order by xid desc, seq desc limit 1),
                 (select seq from domain_events order by xid desc, seq desc limit 1))
     on conflict (tenant_id) do update set cursor_xid = excluded.cursor_xid, cursor_seq = excluded.cursor_seq,
       updated_at = now()`,
    [tenantId],
  );
}

type Endpoint = Pick<WebhookEndpointsRow, 'id' | 'event_types' | 'created_at'>;

async function lockCursor(tx: Tx, tenantId: string): Promise<EventCursor | null> {
  await tx.query(`insert into webhook_cursors (tenant_id) values ($1) on conflict (tenant_id) do nothing`, [tenantId]);
  // The row lock serialises dispatchers of one tenant (several servers, overlapping jobs).
  const [row] = await tx.query<Pick<WebhookCursorsRow, 'cursor_xid' | 'cursor_seq'> & { cursor_xid: string | null }>(
    `select cursor_xid::text as cursor_xid, cursor_seq::text as cursor_seq from webhook_cursors for update`,
  );
  return row?.cursor_xid ? { xid: row.cursor_xid, seq: String(row.cursor_seq) } : null;
}

/** One batch: answers how many events were read and deliveries made. */
async function dispatchBatch(
  tx: Tx,
  tenantId: string,
): Promise<{ events: number; deliveries: number; cursor: EventCursor | null }> {
  const cursor = await lockCursor(tx, tenantId);
  const events = await readCommittedEvents(tx, cursor, BATCH);
  if (events.length === 0) return { events: 0, deliveries: 0, cursor };
  const endpoints = await tx.query<Endpoint>(
    `select id, event_types, created_at from webhook_endpoints where is_enabled`,
  );
  let deliveries = 0;
  for (const event of events) {
    const occurred = Date.parse(event.occurredAt);
    for (const endpoint of endpoints) {
      // An endpoint receives the events of changes made after it was added.
      if (occurred < endpoint.created_at.getTime() - 1000) continue;
      if (!endpoint.event_types.some((pattern) => eventMatches(pattern, event.type))) continue;
      const [row] = await tx.query<{ id: string }>(
        `insert into webhook_deliveries (tenant_id, endpoint_id, event_id, event_type, msg_id, payload, next_attempt_at)
         values ($1, $2, $3, $4, $5, $6, now())
         on conflict (tenant_id, endpoint_id, event_id) do nothing returning id`,
        [tenantId, endpoint.id, event.id, event.type, `msg_${event.id}`, eventPayload(event)],
      );
      if (!row) continue;
      await enqueueSend(tx, tenantId, row.id, { attempt: 1 });
      deliveries++;
    }
  }
  const last = events.at(-1)!.cursor;
  await tx.query(`update webhook_cursors set cursor_xid = $1::xid8, cursor_seq = $2, updated_at = now()`, [
    last.xid,
    last.seq,
  ]);
  return { events: events.length, deliveries, cursor: last };
}

/**
 * Dispatches everything committed so far. When events committed after the cursor cannot be read yet
 * (an older transaction is still running, see src/lib/events/README.md), a follow-up dispatch is
 * queued a couple of seconds later, so they do not wait for the next change.
 */
export async function dispatchEvents(db: Db, tenantId: string): Promise<{ events: number; deliveries: number }> {
  let events = 0;
  let deliveries = 0;
  let cursor: EventCursor | null = null;
  for (;;) {
    const batch = await db.tenant(tenantId, (tx) => dispatchBatch(tx, tenantId));
    events += batch.events;
    deliveries += batch.deliveries;
    cursor = batch.cursor;
    if (batch.events < BATCH) break;
  }
  await db.tenant(tenantId, async (tx) => {
    const params: unknown[] = [];
    let after = '';
    if (cursor) {
      params.push(cursor.xid, cursor.seq);
      after = `where (xid, seq) > ($1::xid8, $2::bigint)`;
    }
    const [waiting] = await tx.query(`select 1 from domain_events ${after} limit 1`, params);
    if (waiting) {
      const slot = Math.floor(Date.now() / 2000);
      await enqueueJob(tx, {
        name: DISPATCH_JOB,
        tenantId,
        runAt: new Date((slot + 1) * 2000),
        priority: 20,
        maxAttempts: 10,
        dedupeKey: `${DISPATCH_JOB}:${tenantId}:later:${slot}`,
      });
    }
  });
  return { events, deliveries };
}
