import type { Tx } from '../db/index.ts';
import { stringify } from '../http/respond.ts';
import type { DomainEventsRow } from '../db/schema.generated.ts';

/**
 * The outbox: `domain_events` rows written in the transaction of the change they describe
 * (migrations/1000_domain_events.sql). `recordAudit` calls `writeDomainEvent` for every published
 * action (src/lib/events/catalog.ts); nothing else inserts events.
 */

/** An event as consumers see it; `data` is what the audit trail recorded of the change. */
export type DomainEvent = {
  seq: string;
  id: string;
  type: string;
  objectType: string;
  objectId: string | null;
  actorId: string | null;
  occurredAt: string;
  data: Record<string, unknown>;
  /** Commit-order cursor of this event: pass it back as `after` to read the events that follow. */
  cursor: EventCursor;
};

/** A position in the commit-safe order of a tenant's events. */
export type EventCursor = { xid: string; seq: string };

export type NewDomainEvent = {
  tenantId: string;
  type: string;
  objectType: string;
  objectId: string | null;
  actorId: string | null;
  data: Record<string, unknown>;
};

/** Inserts one event in the caller's transaction (only `recordAudit` calls this). */
export async function writeDomainEvent(tx: Tx, event: NewDomainEvent): Promise<string> {
  const [row] = await tx.query<Pick<DomainEventsRow, 'id'>>(
    `insert into domain_events (tenant_id, type, object_type, object_id, actor_id, data)
     values ($1, $2, $3, $4, $5, $6::jsonb) returning id`,
    [event.tenantId, event.type, event.objectType, event.objectId, event.actorId, stringify(event.data)],
  );
  return row.id;
}

type EventRow = Pick<DomainEventsRow, 'id' | 'type' | 'object_type' | 'object_id' | 'actor_id' | 'data'> & {
  seq: string;
  xid: string;
  occurred_at: string;
};

function toEvent(row: EventRow): DomainEvent {
  return {
    seq: row.seq,
    id: row.id,
    type: row.type,
    objectType: row.object_type,
    objectId: row.object_id,
    actorId: row.actor_id,
    occurredAt: row.occurred_at,
    data: (row.data ?? {}) as Record<string, unknown>,
    cursor: { xid: row.xid, seq: row.seq },
  };
}

const COLUMNS = `seq::text as seq, xid::text as xid, id, type, object_type, object_id, actor_id,
  to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as occurred_at, data`;

/**
 * The tenant's committed events after `after` (null: from the start), oldest first, at most `limit`.
 * Only events whose transaction is older than every transaction still running are returned, in
 * (xid, seq) order: an event whose transaction commits later always sorts after the cursor of
 * everything returned now, so a consumer that stores the last cursor never skips one.
 */
export async function readCommittedEvents(
  tx: Tx,
  after: EventCursor | null,
  limit: number,
  filter: { since?: string } = {},
): Promise<DomainEvent[]> {
  const params: unknown[] = [limit];
  const where = [`xid < pg_snapshot_xmin(pg_current_snapshot())`];
  if (after) {
    params.push(after.xid, after.seq);
    where.push(`(xid, seq) > ($${params.length - 1}::xid8, $${params.length}::bigint)`);
  }
  if (filter.since) {
    params.push(filter.since);
    where.push(`occurred_at >= $${params.length}::timestamptz`);
  }
  const rows = await tx.query<EventRow>(
    `select ${COLUMNS} from domain_events where ${where.join(' and ')} order by xid, seq limit $1`,
    params,
  );
  return rows.map(toEvent);
}

/** One event by id (null when it is not this tenant's). */
export async function getDomainEvent(tx: Tx, id: string): Promise<DomainEvent | null> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return null;
  const [row] = await tx.query<EventRow>(`select ${COLUMNS} from domain_events where id = $1`, [id]);
  return row ? toEvent(row) : null;
}

/** The cursor just before the first event at or after `since` (replaying from a point in time). */
export async function cursorBefore(tx: Tx, since: string): Promise<EventCursor | null> {
  const [row] = await tx.query<{ xid: string; seq: string }>(
    `select xid::text as xid, seq::text as seq from domain_events where occurred_at < $1::timestamptz
      order by xid desc, seq desc limit 1`,
    [since],
  );
  return row ?? null;
}
