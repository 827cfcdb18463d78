import type { Tx } from '../db/index.ts';
import type { enqueueJob } from '../jobs/queue.ts';

/** The job that runs a tenant's sinks (src/lib/sinks/run.ts registers its handler). */
export const SINK_JOB = 'sinks.deliver';

/**
 * The scheduler tick's part (src/lib/jobs/scheduler.ts): one run per minute for every tenant whose
 * last sinks run reported an active sink, keyed `sinks.deliver:<tenant>:<UTC minute>` so however many
 * servers tick, each minute's run exists once. The jobs table is global, so the tick needs no tenant.
 * Adding, resuming or replaying a sink queues a run at once, which restarts the heartbeat.
 */
export async function sinkTickJobs(
  tx: Tx,
  now: Date,
): Promise<(Parameters<typeof enqueueJob>[1] & { dedupeKey: string })[]> {
  const rows = await tx.query<{ tenant_id: string }>(
    `select tenant_id from (
       select distinct on (tenant_id) tenant_id, coalesce((result->>'active')::int, 1) as active
         from jobs where name = $1 and tenant_id is not null and status in ('succeeded', 'failed')
        order by tenant_id, finished_at desc nulls last) last_runs
      where active > 0`,
    [SINK_JOB],
  );
  const minute = now.toISOString().slice(0, 16);
  return rows.map((r) => ({
    name: SINK_JOB,
    tenantId: r.tenant_id,
    payload: {},
    dedupeKey: `${SINK_JOB}:${r.tenant_id}:${minute}`,
    priority: 60,
    maxAttempts: 2,
  }));
}
