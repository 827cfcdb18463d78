import { registerJobHandler } from '../jobs/worker.ts';
import { PermanentJobError } from '../jobs/worker.ts';
import { DISPATCH_JOB, SEND_JOB, dispatchEvents } from './dispatch.ts';
import { attemptDelivery } from './send.ts';

/** Registers the dispatcher and the sender (src/lib/jobs/runtime.ts calls this at boot). */
export function registerWebhookJobs(): void {
  registerJobHandler(DISPATCH_JOB, async ({ db, tenantId }) => {
    if (!tenantId) throw new PermanentJobError('webhooks.dispatch needs a tenant');
    return dispatchEvents(db, tenantId);
  });
  registerJobHandler(SEND_JOB, async ({ db, tenantId, payload }) => {
    if (!tenantId || typeof payload.deliveryId !== 'string') throw new PermanentJobError('webhooks.send: bad payload');
    const outcome = await attemptDelivery(db, tenantId, payload.deliveryId, { manual: payload.manual === true });
    return outcome ?? { status: 'skipped' };
  });
}
