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
  // List exports (loans workspace): registered at boot too, so exports queued before a restart resume.
  try {
    const { ensureListExportJob } = await import('../exports/register.ts');
    ensureListExportJob();
  } catch (error) {
    logger.warn('list export jobs not registered at boot', { error });
  }
  // Strategy simulations (issue 12): registered at boot too, so a simulation queued before a restart resumes.
  try {
    const { registerSimulationJob } = await import('../strategies/simulation.ts');
    registerSimulationJob();
  } catch (error) {
    logger.warn('strategy simulation jobs not registered at boot', { error });
  }
  // Conversation messages (issue 14): delivery of queued e-mails and SMS.
  try {
    const { registerDeliverJob } = await import('../conversations/deliver.ts');
    registerDeliverJob();
  } catch (error) {
    logger.warn('conversation delivery jobs not registered at boot', { error });
  }
  // Data upload and import buckets (issue 16): import runs, the bucket watcher and bucket checks.
  try {
    const { registerDataImportJobs } = await import('../data-import/register.ts');
    registerDataImportJobs();
  } catch (error) {
    logger.warn('data import jobs not registered at boot', { error });
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
