import crypto from 'node:crypto';
import os from 'node:os';
import type { Db, Tx } from '../db/index.ts';
import { eventMatches } from '../events/catalog.ts';
import { readCommittedEvents, type EventCursor } from '../events/outbox.ts';
import { enqueueJob } from '../jobs/queue.ts';
import { registerJobHandler } from '../jobs/worker.ts';
import { logger } from '../observability/log.ts';
import { SINK_JOB } from './schedule.ts';
import { openBigQueryTarget, testBigQueryTarget } from './bigquery-target.ts';
import { openFineractTarget, testFineractTarget } from './fineract-target.ts';
import { openPostgresTarget, testPostgresTarget } from './postgres-target.ts';
import { openSettings, type SinkSettings } from './settings.ts';
import { loadCustomers, loadLoans, pageIds, sweepIds, touchedBy, type Sweep } from './snapshot.ts';
import { getSinkRow, type SinkRow } from './store.ts';
import { errorText, type RemoteIds, type SinkTarget, type TargetContext } from './target.ts';

/**
 * Delivery: one run of one sink, after commit, in batches.
 *  1. Lease: `lease_owner`/`lease_until` on the sink row (a conditional update), so two servers (or
 *     two queued jobs) never run the same sink at once; every later write is fenced by the owner.
 *  2. Read, in one short tenant transaction: the committed events after the cursor
 *     (`readCommittedEvents`, commit-safe order), kept by the sink's filter; the customers and loans
 *     they touch, a page of the initial (or replay) snapshot, and the rows changed without an event
 *     (the sweep by updated_at, e.g. the daily close's penalties) — their CURRENT rows.
 *  3. Write to the target, outside any product transaction (idempotent: events by id, rows by id).
 *  4. Bookkeeping in one tenant transaction, fenced by lease owner and `generation`: the new cursor,
 *     counters, snapshot and sweep positions, a batch row. A crash between 3 and 4 repeats the batch
 *     next time; it is never lost. A replay or settings change (generation + 1) drops the bookkeeping
 *     of a run that started before it.
 * Errors are kept on the sink (`last_error`) and the next run starts again from the saved cursor.
 */

const LEASE_MINUTES = 5;
const WORKER_ID = `${os.hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`;

export type RunOptions = {
  /** Who holds the lease (default: this process). */
  owner?: string;
  batchSize?: number;
  snapshotPage?: number;
  /** Stop starting batches after this long (default 20 s). */
  budgetMs?: number;
  allowPrivate?: boolean;
};

export type RunResult = {
  ran: boolean;
  delivered: number;
  snapshotRows: number;
  batches: number;
  error: string | null;
};

function remoteIds(db: Db, tenantId: string, sinkId: string): RemoteIds {
  return {
    async get(objectType, objectId) {
      const [row] = await db.tenant(tenantId, (tx) =>
        tx.query<{ remote_id: bigint; state: string }>(
          `select remote_id, state from event_sink_remote_ids where sink_id = $1 and object_type = $2 and object_id = $3`,
          [sinkId, objectType, objectId],
        ),
      );
      return row ? { remoteId: Number(row.remote_id), state: row.state } : null;
    },
    async set(objectType, objectId, remoteId, state) {
      await db.tenant(tenantId, (tx) =>
        tx.query(
          `insert into event_sink_remote_ids (tenant_id, sink_id, object_type, object_id, remote_id, state)
           values ($1, $2, $3, $4, $5, $6)
           on conflict (tenant_id, sink_id, object_type, object_id)
           do update set remote_id = excluded.remote_id, state = excluded.state, updated_at = now()`,
          [tenantId, sinkId, objectType, objectId, remoteId, state],
        ),
      );
    },
  };
}

export async function openTarget(settings: SinkSettings, ctx: TargetContext): Promise<SinkTarget> {
  if (settings.type === 'postgres') return openPostgresTarget(settings, ctx);
  if (settings.type === 'bigquery') return openBigQueryTarget(settings, ctx);
  return openFineractTarget(settings, ctx);
}

/** "Test connection": reach the target with its settings, through the outbound guard. */
export async function testTarget(settings: SinkSettings, options: { allowPrivate?: boolean } = {}): Promise<string> {
  if (settings.type === 'postgres') return testPostgresTarget(settings, options);
  if (settings.type === 'bigquery') return testBigQueryTarget(settings, options);
  return testFineractTarget(settings, options);
}

type Plan = {
  generation: number;
  cursor: EventCursor | null;
  events: Awaited<ReturnType<typeof readCommittedEvents>>;
  lastCursor: EventCursor | null;
  customers: Awaited<ReturnType<typeof loadCustomers>>;
  loans: Awaited<ReturnType<typeof loadLoans>>;
  snapshot: { stage: string | null; after: string | null };
  sweep: Sweep;
  hasMore: boolean;
  sweepFull: boolean;
  changed: boolean;
};

async function plan(
  tx: Tx,
  sink: SinkRow,
  options: { batchSize: number; snapshotPage: number; sweep: boolean },
): Promise<Plan> {
  const cursor = sink.cursor_xid && sink.cursor_seq ? { xid: sink.cursor_xid, seq: sink.cursor_seq } : null;
  const read = await readCommittedEvents(tx, cursor, options.batchSize);
  const events = read.filter((e) => sink.event_filter.some((p) => eventMatches(p, e.type)));
  const touched = await touchedBy(tx, events);
  const customerIds = new Set(touched.customers);
  const loanIds = new Set(touched.loans);
  // The initial (or replay) snapshot: customers page by page, then loans.
  let stage = sink.snapshot_stage;
  let after = sink.snapshot_after;
  if (stage === 'customers' || stage === 'loans') {
    const ids = await pageIds(tx, stage, after, options.snapshotPage);
    for (const id of ids) (stage === 'customers' ? customerIds : loanIds).add(id);
    if (ids.length === options.snapshotPage) after = ids.at(-1)!;
    else if (stage === 'customers') [stage, after] = ['loans', null];
    else [stage, after] = [null, null];
  }
  // Rows changed without an event (the daily close's penalties…), once per run unless a page was full.
  const sweep: Sweep = { ...(sink.sweep as Sweep) };
  let sweepFull = false;
  if (options.sweep) {
    for (const table of ['customers', 'loans'] as const) {
      const { ids, next } = await sweepIds(tx, table, sweep[table], options.snapshotPage);
      for (const id of ids) (table === 'customers' ? customerIds : loanIds).add(id);
      sweep[table] = next;
      if (ids.length === options.snapshotPage) sweepFull = true;
    }
  }
  const loans = await loadLoans(tx, [...loanIds]);
  for (const l of loans) customerIds.add(l.customer_id); // a target may need the borrower first (Fineract)
  const customers = await loadCustomers(tx, [...customerIds]);
  const lastCursor = read.at(-1)?.cursor ?? cursor;
  return {
    generation: sink.generation,
    cursor,
    events,
    lastCursor,
    customers,
    loans,
    snapshot: { stage, after },
    sweep,
    hasMore: read.length === options.batchSize || stage !== null || sweepFull,
    sweepFull,
    changed:
      read.length > 0 ||
      customers.length > 0 ||
      loans.length > 0 ||
      stage !== sink.snapshot_stage ||
      after !== sink.snapshot_after ||
      options.sweep,
  };
}

/** Runs one sink until it has caught up or the time budget is spent. */
export async function runSink(db: Db, tenantId: string, sinkId: string, options: RunOptions = {}): Promise<RunResult> {
  const owner = options.owner ?? WORKER_ID;
  const budget = options.budgetMs ?? 20_000;
  const started = Date.now();
  const result: RunResult = { ran: false, delivered: 0, snapshotRows: 0, batches: 0, error: null };
  const [claimed] = await db.tenant(tenantId, (tx) =>
    tx.query<{ settings_sealed: string; type: string }>(
      `update event_sinks set lease_owner = $2, lease_until = now() + make_interval(mins => $3), last_run_at = now()
        where id = $1 and status = 'active' and (lease_until is null or lease_until < now() or lease_owner = $2)
        returning settings_sealed, type`,
      [sinkId, owner, LEASE_MINUTES],
    ),
  );
  if (!claimed) return result;
  result.ran = true;
  let target: SinkTarget | null = null;
  try {
    const settings = openSettings(claimed.settings_sealed);
    // Connected on the first batch that has something to write: an idle minute opens no connection.
    const connect = () =>
      openTarget(settings, {
        tenantId,
        sinkId,
        remoteIds: remoteIds(db, tenantId, sinkId),
        allowPrivate: options.allowPrivate,
      });
    let sweep = true;
    while (Date.now() - started < budget) {
      const next = await db.tenant(tenantId, async (tx) => {
        const sink = await getSinkRow(tx, sinkId);
        if (!sink || sink.status !== 'active' || sink.lease_owner !== owner) return null;
        return plan(tx, sink, {
          batchSize: options.batchSize ?? 500,
          snapshotPage: options.snapshotPage ?? 500,
          sweep,
        });
      });
      if (!next || !next.changed) break;
      sweep = next.sweepFull;
      if (next.events.length || next.customers.length || next.loans.length) {
        target ??= await connect();
        await target.write({ events: next.events, customers: next.customers, loans: next.loans });
      }
      const rows = next.customers.length + next.loans.length;
      const occurred = next.events.map((e) => e.occurredAt).sort();
      const saved = await db.tenant(tenantId, async (tx) => {
        const updated = await tx.query(
          `update event_sinks set cursor_xid = $4::xid8, cursor_seq = $5::bigint,
                  delivered_count = delivered_count + $6, snapshot_stage = $7, snapshot_after = $8::uuid, sweep = $9::jsonb,
                  first_event_at = coalesce(first_event_at, $10::timestamptz),
                  last_event_at = greatest(last_event_at, $11::timestamptz),
                  last_delivered_at = case when $6 > 0 or $12 > 0 then now() else last_delivered_at end,
                  last_error = null, last_error_at = null,
                  lease_until = now() + make_interval(mins => $13)
            where id = $1 and lease_owner = $2 and generation = $3 and status = 'active'
            returning id`,
          [
            sinkId,
            owner,
            next.generation,
            next.lastCursor?.xid ?? null,
            next.lastCursor?.seq ?? null,
            next.events.length,
            next.snapshot.stage,
            next.snapshot.after,
            JSON.stringify(next.sweep),
            occurred[0] ?? null,
            occurred.at(-1) ?? null,
            rows,
            LEASE_MINUTES,
          ],
        );
        if (!updated.length) return false;
        if (next.events.length || rows)
          await tx.query(
            `insert into event_sink_batches (tenant_id, sink_id, sink_type, events, snapshot_rows) values ($1, $2, $3, $4, $5)`,
            [tenantId, sinkId, claimed.type, next.events.length, rows],
          );
        return true;
      });
      if (!saved) break;
      result.batches += 1;
      result.delivered += next.events.length;
      result.snapshotRows += rows;
      if (!next.hasMore) break;
    }
  } catch (error) {
    result.error = errorText(error);
    logger.warn('event sink run failed', { tenantId, sinkId, error: result.error });
    await db
      .tenant(tenantId, (tx) =>
        tx.query(`update event_sinks set last_error = $3, last_error_at = now() where id = $1 and lease_owner = $2`, [
          sinkId,
          owner,
          result.error,
        ]),
      )
      .catch(() => {});
  } finally {
    await target?.close().catch(() => {});
    await db
      .tenant(tenantId, (tx) =>
        tx.query(`update event_sinks set lease_owner = null, lease_until = null where id = $1 and lease_owner = $2`, [
          sinkId,
          owner,
        ]),
      )
      .catch(() => {});
  }
  return result;
}

/** Runs every active sink of a tenant (or one); answers how many are active (the scheduler's heartbeat reads it). */
export async function runTenantSinks(
  db: Db,
  tenantId: string,
  options: RunOptions & { sinkId?: string } = {},
): Promise<{ active: number; delivered: number; errors: number }> {
  const sinks = await db.tenant(tenantId, (tx) =>
    tx.query<{ id: string }>(
      `select id from event_sinks where status = 'active' and ($1::uuid is null or id = $1::uuid) order by id`,
      [options.sinkId ?? null],
    ),
  );
  let delivered = 0;
  let errors = 0;
  for (const { id } of sinks) {
    const r = await runSink(db, tenantId, id, options);
    delivered += r.delivered;
    if (r.error) errors += 1;
  }
  const [active] = await db.tenant(tenantId, (tx) =>
    tx.query<{ n: number }>(`select count(*)::int as n from event_sinks where status = 'active'`),
  );
  return { active: active.n, delivered, errors };
}

/** Queues a run now (after a sink is added, resumed or replayed), in the caller's transaction. */
export async function queueSinkRun(tx: Tx, tenantId: string, sinkId: string): Promise<void> {
  await enqueueJob(tx, { name: SINK_JOB, tenantId, payload: { sinkId }, priority: 50, maxAttempts: 3 });
}

export function registerSinkJobs(): void {
  registerJobHandler(SINK_JOB, async ({ db, tenantId, payload }) => {
    if (!tenantId) return { active: 0 };
    const sinkId = typeof payload.sinkId === 'string' ? payload.sinkId : undefined;
    return runTenantSinks(db, tenantId, { sinkId });
  });
}
