import type { Db, Tx } from '../db/index.ts';
import { logger } from '../observability/log.ts';
import { enqueueJob } from './queue.ts';
import type { TenantsRow } from '../db/schema.generated.ts';
import { sinkTickJobs } from '../sinks/schedule.ts';

/**
 * Recurring work. Every app server runs the same tick; each recurrence has a period key, and the
 * queue's unique dedupe_key lets only the first server's insert through, so each period's job
 * exists exactly once however many servers tick.
 */

export const DAILY_CLOSE_JOB = 'close.daily';
export const IDEMPOTENCY_CLEANUP_JOB = 'idempotency.cleanup';
export const JOBS_PRUNE_JOB = 'jobs.prune';
/** Deletes generated files past their expiry (src/lib/downloads/admin.ts). */
export const DOWNLOADS_EXPIRE_JOB = 'downloads.expire';
/** A tenant's data-quality check (src/lib/data-quality/run.ts): on demand, and nightly from here. */
export const DATA_QUALITY_JOB = 'data_quality.run';

/** The calendar date ('YYYY-MM-DD') at `now` in an IANA time zone. */
export function localDate(now: Date, timeZone: string): string {
  try {
    return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
      now,
    );
  } catch {
    // An unknown zone in a tenant row must not stop every tenant's close: fall back to UTC.
    return now.toISOString().slice(0, 10);
  }
}

export type TickResult = { enqueued: string[] };

/**
 * Recurring work of other areas (e.g. scheduled exports): each step runs after the platform's own
 * at every tick and answers the dedupe keys it enqueued. Process-wide on globalThis, like the job
 * handlers, because the boot script and the Astro bundle load separate copies of this module.
 */
export type SchedulerStep = (db: Db, now: Date) => Promise<string[]>;
const STEPS_KEY = Symbol.for('lending.jobs.scheduler-steps');
function steps(): Map<string, SchedulerStep> {
  const slot = globalThis as { [STEPS_KEY]?: Map<string, SchedulerStep> };
  slot[STEPS_KEY] ??= new Map();
  return slot[STEPS_KEY];
}
export function registerSchedulerStep(name: string, step: SchedulerStep): void {
  steps().set(name, step);
}

/**
 * One scheduler pass at `now`:
 * - the daily close of every active tenant whose business date is behind its local calendar date
 *   (the tenant's local midnight has passed). The close advances the business date by one day, so a
 *   tenant that is several days behind is caught up one close at a time, each its own job (the close
 *   job ticks again when it finishes);
 * - the idempotency-key cleanup, hourly;
 * - pruning of old finished jobs, daily;
 * - deleting generated files past their expiry, daily;
 * - the data-quality check of every active tenant, once per local day.
 */
export async function schedulerTick(db: Db, now = new Date()): Promise<TickResult> {
  const enqueued: string[] = [];
  await db.system(async (tx) => {
    const tenants = await tx.query<Pick<TenantsRow, 'id' | 'time_zone' | 'business_date'>>(
      'select id, time_zone, business_date from tenants where is_active order by id',
    );
    for (const t of tenants) {
      if (t.business_date < localDate(now, t.time_zone)) {
        await add(tx, enqueued, {
          name: DAILY_CLOSE_JOB,
          tenantId: t.id,
          payload: { businessDate: t.business_date },
          dedupeKey: `${DAILY_CLOSE_JOB}:${t.id}:${t.business_date}`,
          priority: 10,
          maxAttempts: 10,
        });
      }
      // The nightly data-quality check, once per tenant and local day, after the close has had its turn.
      const localDay = localDate(now, t.time_zone);
      await add(tx, enqueued, {
        name: DATA_QUALITY_JOB,
        tenantId: t.id,
        payload: { trigger: 'nightly' },
        dedupeKey: `${DATA_QUALITY_JOB}:nightly:${t.id}:${localDay}`,
        runAt: new Date(now.getTime() + 15 * 60_000),
        priority: 150,
        maxAttempts: 3,
      });
    }
    const hour = now.toISOString().slice(0, 13);
    await add(tx, enqueued, {
      name: IDEMPOTENCY_CLEANUP_JOB,
      dedupeKey: `${IDEMPOTENCY_CLEANUP_JOB}:${hour}`,
      priority: 200,
      maxAttempts: 3,
    });
    const day = now.toISOString().slice(0, 10);
    await add(tx, enqueued, {
      name: JOBS_PRUNE_JOB,
      dedupeKey: `${JOBS_PRUNE_JOB}:${day}`,
      priority: 200,
      maxAttempts: 3,
    });
    // Event sinks (issue 16): a delivery run per minute for tenants with an active sink.
    for (const job of await sinkTickJobs(tx, now)) await add(tx, enqueued, job);
    // Import buckets (issue 16): every 5 minutes, one job that queues a check of each enabled bucket (src/lib/data-import/buckets.ts).
    const slot = `${now.toISOString().slice(0, 13)}:${String(Math.floor(now.getUTCMinutes() / 5) * 5).padStart(2, '0')}`;
    await add(tx, enqueued, {
      name: 'import_buckets.watch',
      payload: { slot },
      dedupeKey: `import_buckets.watch:${slot}`,
      priority: 150,
      maxAttempts: 1,
    });
    await add(tx, enqueued, {
      name: DOWNLOADS_EXPIRE_JOB,
      dedupeKey: `${DOWNLOADS_EXPIRE_JOB}:${day}`,
      priority: 200,
      maxAttempts: 3,
    });
  });
  for (const [name, step] of steps()) {
    try {
      enqueued.push(...(await step(db, now)));
    } catch (error) {
      logger.warn('scheduler step failed', { step: name, error });
    }
  }
  if (enqueued.length) logger.info('jobs scheduled', { jobs: enqueued });
  return { enqueued };
}

async function add(tx: Tx, enqueued: string[], input: Parameters<typeof enqueueJob>[1] & { dedupeKey: string }) {
  const { isNew } = await enqueueJob(tx, input);
  if (isNew) enqueued.push(input.dedupeKey);
}

export type Scheduler = { stop(): void };

/** Ticks every intervalMs (default 30 s) plus once at start; errors are logged, never thrown. */
export function startScheduler(
  db: Db,
  options: { intervalMs?: number; onTick?: (result: TickResult) => void } = {},
): Scheduler {
  let isStopped = false;
  const tick = () => {
    if (isStopped) return;
    schedulerTick(db)
      .then((result) => options.onTick?.(result))
      .catch((error) => logger.warn('scheduler tick failed', { error }));
  };
  const timer = setInterval(tick, options.intervalMs ?? 30_000);
  timer.unref();
  tick();
  return {
    stop() {
      isStopped = true;
      clearInterval(timer);
    },
  };
}
