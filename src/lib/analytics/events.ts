/**
 * First-party analytics: the 'login' event after a sign-in with a remembered origin and the
 * page-view events named by the route manifest, stored in analytics_events (migration 0010).
 */
import type { Db, Tx } from '../db/index.ts';
import { logger } from '../observability/log.ts';

export type AnalyticsEvent = {
  tenantId: string;
  /** 'login', or a page-view name from the route manifest ('page_view:/loans/customers'). */
  name: string;
  userId: string | null;
  /** Path without query string. */
  path?: string | null;
  properties?: Record<string, unknown>;
  occurredAt?: Date;
};

const MAX_NAME = 200;
const MAX_PATH = 2000;

function values(events: readonly AnalyticsEvent[]): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const rows = events.map((e) => {
    params.push(
      e.tenantId,
      e.name.slice(0, MAX_NAME),
      e.userId,
      e.path?.slice(0, MAX_PATH) ?? null,
      JSON.stringify(e.properties ?? {}),
      e.occurredAt ?? new Date(),
    );
    const n = params.length;
    return `($${n - 5}, $${n - 4}, $${n - 3}::uuid, $${n - 2}, $${n - 1}::jsonb, $${n})`;
  });
  return {
    sql: `insert into analytics_events (tenant_id, name, user_id, path, properties, occurred_at) values ${rows.join(', ')}`,
    params,
  };
}

/**
 * Records events inside the caller's tenant transaction (e.g. the 'login' event in the sign-in
 * transaction). All events must belong to the transaction's tenant: row-level security refuses others.
 */
export async function recordEvent(tx: Tx, event: AnalyticsEvent | readonly AnalyticsEvent[]): Promise<void> {
  const list = Array.isArray(event) ? (event as readonly AnalyticsEvent[]) : [event as AnalyticsEvent];
  if (list.length === 0) return;
  const { sql, params } = values(list);
  await tx.query(sql, params);
}

/**
 * Batches page views so a page render never waits for an insert: events queue in memory and are
 * written every `flushMs` (or at `maxBatch`), one multi-row insert per tenant. A failed write is
 * logged and dropped — analytics must never break or slow a page.
 */
export class EventBuffer {
  private queue: AnalyticsEvent[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private readonly getDb: () => Promise<Db>;
  private readonly flushMs: number;
  private readonly maxBatch: number;

  constructor(getDb: () => Promise<Db>, options: { flushMs?: number; maxBatch?: number } = {}) {
    this.getDb = getDb;
    this.flushMs = options.flushMs ?? 2000;
    this.maxBatch = options.maxBatch ?? 200;
  }

  push(event: AnalyticsEvent): void {
    this.queue.push({ ...event, occurredAt: event.occurredAt ?? new Date() });
    if (this.queue.length >= this.maxBatch) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.flushMs);
      this.timer.unref?.();
    }
  }

  /** Writes everything queued so far; resolves when it is stored (tests and shutdown await it). */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const batch = this.queue;
    this.queue = [];
    this.flushing = this.flushing.then(async () => {
      if (batch.length === 0) return;
      const byTenant = new Map<string, AnalyticsEvent[]>();
      for (const e of batch) byTenant.set(e.tenantId, [...(byTenant.get(e.tenantId) ?? []), e]);
      try {
        const db = await this.getDb();
        for (const [tenantId, events] of byTenant) await db.tenant(tenantId, (tx) => recordEvent(tx, events));
      } catch (error) {
        logger.warn('analytics events dropped', {
          count: batch.length,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    });
    return this.flushing;
  }
}

/** Reads a tenant's events, newest first (admin screens, tests). */
export async function listEvents(
  tx: Tx,
  options: { name?: string; limit?: number } = {},
): Promise<{ name: string; user_id: string | null; path: string | null; occurred_at: Date }[]> {
  return tx.query(
    `select name, user_id, path, occurred_at from analytics_events where ($1::text is null or name = $1) order by occurred_at desc, id desc limit $2`,
    [options.name ?? null, options.limit ?? 100],
  );
}
