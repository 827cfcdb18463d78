import { registerJobHandler } from '../jobs/worker.ts';
import { DAILY_CLOSE_JOB, schedulerTick } from '../jobs/scheduler.ts';
import { PermanentJobError } from '../jobs/worker.ts';
import { runDailyClose } from './daily-close.ts';

/**
 * The scheduled close: the scheduler enqueues 'close.daily' with { businessDate } once per tenant and
 * business date (dedupe key); running it again for a date already closed changes nothing.
 */
export function registerCloseJobHandlers(): void {
  registerJobHandler(DAILY_CLOSE_JOB, async ({ db, tenantId, payload }) => {
    if (!tenantId) throw new PermanentJobError('close.daily needs a tenant');
    const businessDate = typeof payload.businessDate === 'string' ? payload.businessDate : undefined;
    const result = await runDailyClose(db, tenantId, { businessDate });
    // A tenant several days behind (server was down) gets its next close queued now, not at the next tick.
    if (!result.wasAlreadyClosed) await schedulerTick(db);
    return {
      businessDate: result.businessDate,
      newBusinessDate: result.newBusinessDate,
      wasAlreadyClosed: result.wasAlreadyClosed,
      stats: result.stats,
      origination: result.origination ?? null,
    };
  });
}
