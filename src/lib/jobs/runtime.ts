import type { Db } from '../db/index.ts';
import { deleteExpiredIdempotencyKeys } from '../lending/idempotency.ts';
import { logger } from '../observability/log.ts';
import { pruneJobs } from './queue.ts';
import { DOWNLOADS_EXPIRE_JOB, IDEMPOTENCY_CLEANUP_JOB, JOBS_PRUNE_JOB, startScheduler } from './scheduler.ts';
import { expireDownloads } from '../downloads/admin.ts';
import { env } from '../config/env.ts';
import { registerJobHandler, startWorker, type WorkerOptions } from './worker.ts';
import type { TenantsRow } from '../db/schema.generated.ts';

/**
 * The platform's own recurring handlers. The daily close registers itself from src/lib/close
 * (imported below) so this module stays free of lending logic.
 */
export function registerPlatformJobHandlers(): void {
  registerJobHandler(IDEMPOTENCY_CLEANUP_JOB, async ({ db }) => {
    const tenants = await db.system((tx) => tx.query<Pick<TenantsRow, 'id'>>('select id from tenants order by id'));
    let removed = 0;
    // Per tenant, because idempotency_keys is row-secured (the lending engine's retention: ≥ 24 h).
    for (const { id } of tenants) removed += await deleteExpiredIdempotencyKeys(db, id);
    return { removed };
  });
  registerJobHandler(JOBS_PRUNE_JOB, async ({ db }) => ({ removed: await pruneJobs(db) }));
  registerJobHandler(DOWNLOADS_EXPIRE_JOB, async ({ db }) => ({ removed: await expireDownloads(db, env().dataDir) }));
}

/** The areas whose jobs run in every server, each loaded lazily from its own module. */
const AREA_JOB_REGISTRATIONS: [string, () => Promise<void>][] = [
  ['list exports', async () => (await import('../exports/register.ts')).ensureListExportJob()],
  ['strategy simulations', async () => (await import('../strategies/simulation.ts')).registerSimulationJob()],
  ['conversation delivery', async () => (await import('../conversations/deliver.ts')).registerDeliverJob()],
  ['webhooks', async () => (await import('../webhooks/jobs.ts')).registerWebhookJobs()],
  ['event sinks', async () => (await import('../sinks/run.ts')).registerSinkJobs()],
  ['scheduled exports', async () => (await import('../scheduled-exports/register.ts')).registerScheduledExports()],
  ['data quality', async () => (await import('../data-quality/run.ts')).registerDataQualityJob()],
  ['data import', async () => (await import('../data-import/register.ts')).registerDataImportJobs()],
];

export type JobRuntime = { stop(): Promise<void> };

/**
 * Starts the in-process worker and the scheduler (server boot). JOBS_ENABLED=0 turns both off,
 * e.g. for a web-only replica; the queue stays correct with any number of servers running them.
 */
export async function startJobRuntime(
  db: Db,
  options: WorkerOptions & { schedulerIntervalMs?: number } = {},
): Promise<JobRuntime> {
  if (['0', 'false', 'no', 'off'].includes((process.env.JOBS_ENABLED ?? '').toLowerCase())) {
    logger.info('jobs disabled (JOBS_ENABLED)');
    return { async stop() {} };
  }
  registerPlatformJobHandlers();
  const { registerCloseJobHandlers } = await import('../close/jobs.ts');
  registerCloseJobHandlers();
  // Each area's handlers, registered at boot so work queued before a restart resumes. One area that
  // fails to load is logged and skipped; the others still run.
  for (const [area, register] of AREA_JOB_REGISTRATIONS) {
    try {
      await register();
    } catch (error) {
      logger.warn('area jobs not registered at boot', { area, error });
    }
  }
  const worker = startWorker(db, options);
  const scheduler = startScheduler(db, {
    intervalMs: options.schedulerIntervalMs,
    onTick: (r) => {
      if (r.enqueued.length) worker.wake();
    },
  });
  logger.info('jobs started', { worker: worker.id });
  return {
    async stop() {
      scheduler.stop();
      await worker.stop();
      logger.info('jobs stopped', { worker: worker.id });
    },
  };
}
