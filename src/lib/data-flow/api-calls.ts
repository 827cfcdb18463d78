import type { Db, Tx } from '../db/index.ts';
import { logger } from '../observability/log.ts';

/**
 * The per-tenant, per-month count of /v1 requests (resource usage, "API calls").
 *
 * Where it is counted: the guard step (src/server/middleware/guard.ts) calls `apiCalls.count(...)` for
 * every /v1 request it lets through to an endpoint for a signed-in user or API token — the same place
 * page views are recorded. Refused requests (401/403/404/405 from the guard) are not counted: they
 * never reach the product. A count is a Map increment in memory; `flush` adds the totals to
 * `api_call_counts` (migration 1050) with one upsert per tenant and month, every FLUSH_MS or once
 * MAX_PENDING requests are waiting, so a request never waits for a write. A server that dies loses at
 * most the last few seconds of counts; several servers each add their own totals (the upsert adds).
 * The month is the tenant's local month (its time zone), like every month on the usage page.
 */
const FLUSH_MS = 5000;
const MAX_PENDING = 500;

/** 'YYYY-MM-01' of `at` in an IANA time zone (UTC when the zone is unknown). */
export function localMonth(at: Date, timeZone: string | null | undefined): string {
  try {
    const day = new Intl.DateTimeFormat('en-CA', {
      timeZone: timeZone || 'UTC',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    }).format(at);
    return `${day.slice(0, 7)}-01`;
  } catch {
    return `${at.toISOString().slice(0, 7)}-01`;
  }
}

/** Adds calls to a tenant's months inside its transaction (the flush, and tests). */
export async function addApiCalls(tx: Tx, tenantId: string, byMonth: ReadonlyMap<string, number>): Promise<void> {
  for (const [month, calls] of byMonth) {
    await tx.query(
      `insert into api_call_counts (tenant_id, month, calls) values ($1, $2::date, $3)
       on conflict (tenant_id, month) do update set calls = api_call_counts.calls + excluded.calls, updated_at = now()`,
      [tenantId, month, calls],
    );
  }
}

export class ApiCallCounter {
  private pending = new Map<string, Map<string, number>>();
  private size = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private readonly getDb: () => Promise<Db>;
  private readonly flushMs: number;
  private readonly maxPending: number;

  constructor(getDb: () => Promise<Db>, options: { flushMs?: number; maxPending?: number } = {}) {
    this.getDb = getDb;
    this.flushMs = options.flushMs ?? FLUSH_MS;
    this.maxPending = options.maxPending ?? MAX_PENDING;
  }

  /** Counts one request of the tenant, in the tenant's month at `at`. */
  count(tenantId: string, timeZone: string | null | undefined, at = new Date()): void {
    const month = localMonth(at, timeZone);
    const months = this.pending.get(tenantId) ?? new Map<string, number>();
    months.set(month, (months.get(month) ?? 0) + 1);
    this.pending.set(tenantId, months);
    this.size++;
    if (this.size >= this.maxPending) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.flushMs);
      this.timer.unref?.();
    }
  }

  /** Requests counted and not yet written. */
  get waiting(): number {
    return this.size;
  }

  /** Writes what is counted so far; resolves once stored. A failed write is logged and its counts dropped. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const batch = this.pending;
    this.pending = new Map();
    this.size = 0;
    this.flushing = this.flushing.then(async () => {
      if (batch.size === 0) return;
      try {
        const db = await this.getDb();
        for (const [tenantId, months] of batch) await db.tenant(tenantId, (tx) => addApiCalls(tx, tenantId, months));
      } catch (error) {
        logger.warn('api call counts dropped', { error: error instanceof Error ? error.message : String(error) });
      }
    });
    return this.flushing;
  }
}

/** Calls per month ('YYYY-MM') for the given months. */
export async function readApiCalls(tx: Tx, months: string[]): Promise<Record<string, number>> {
  const rows = await tx.query<{ month: string; calls: string }>(
    `select to_char(month, 'YYYY-MM') as month, calls::text as calls from api_call_counts
      where month >= ($1 || '-01')::date and month <= ($2 || '-01')::date`,
    [months[0], months.at(-1)],
  );
  return Object.fromEntries(rows.map((r) => [r.month, Number(r.calls)]));
}
