import { env } from '../config/env.ts';
import { registerJobHandler } from '../jobs/worker.ts';
import { registerSchedulerStep } from '../jobs/scheduler.ts';
import { scheduledExportHandler, scheduleDueExports, SCHEDULED_EXPORT_JOB } from './run.ts';

/** Registers the run job and the scheduler step (server boot, src/lib/jobs/runtime.ts). Idempotent. */
export function registerScheduledExports(): void {
  const { dataDir, smtpUrl } = env();
  registerJobHandler(SCHEDULED_EXPORT_JOB, scheduledExportHandler({ dataDir, mail: { smtpUrl, dataDir } }));
  registerSchedulerStep('scheduled-exports', scheduleDueExports);
}
