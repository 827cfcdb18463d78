import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import {
  backoffMs,
  cancelJob,
  claimJobs,
  completeJob,
  enqueueJob,
  failJob,
  getJob,
  pruneJobs,
} from '#lib/jobs/queue.ts';
import { PermanentJobError, startWorker, type JobHandler } from '#lib/jobs/worker.ts';
import { DAILY_CLOSE_JOB, localDate, schedulerTick } from '#lib/jobs/scheduler.ts';

describe.each(testDbKinds())('job queue on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    await db.owner((tx) =>
      tx.query(`insert into tenants (id, slug, name, currency, time_zone, business_date) values
        ('paris-j1', 'paris', 'Paris', 'EUR', 'Europe/Paris', '2026-03-10'),
        ('ny-j1', 'ny', 'New York', 'USD', 'America/New_York', '2026-03-10')`),
    );
  });
  afterAll(() => drop?.());

  it('enqueues inside a tenant transaction and ignores a second enqueue with the same dedupe key', async () => {
    const first = await db.tenant('paris-j1', (tx) =>
      enqueueJob(tx, { name: 'test.dedupe', tenantId: 'paris-j1', payload: { a: 1 }, dedupeKey: 'dedupe-1' }),
    );
    const second = await db.system((tx) =>
      enqueueJob(tx, { name: 'test.dedupe', payload: { a: 2 }, dedupeKey: 'dedupe-1' }),
    );
    expect(first.isNew).toBe(true);
    expect(second.isNew).toBe(false);
    expect(second.job.id).toBe(first.job.id);
    expect(second.job.payload).toEqual({ a: 1 });
    expect(second.job.tenantId).toBe('paris-j1');
  });

  it('an enqueue rolled back with its transaction leaves no job', async () => {
    await expect(
      db.system(async (tx) => {
        await enqueueJob(tx, { name: 'test.rollback', dedupeKey: 'rolled-back' });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const rows = await db.system((tx) => tx.query(`select id from jobs where dedupe_key = 'rolled-back'`));
    expect(rows).toEqual([]);
  });

  it('never hands one job to two concurrent claimers', async () => {
    await db.system(async (tx) => {
      for (let i = 0; i < 30; i++) await enqueueJob(tx, { name: 'test.claim', payload: { i } });
    });
    const claims = await Promise.all(
      Array.from({ length: 6 }, (_, w) =>
        claimJobs(db, { workerId: `w${w}`, names: ['test.claim'], limit: 10, leaseMs: 60_000 }),
      ),
    );
    const ids = claims.flat().map((j) => String(j.id));
    expect(ids.length).toBe(30);
    expect(new Set(ids).size).toBe(30);
    expect(claims.flat().every((j) => j.status === 'running' && j.attempts === 1)).toBe(true);
  });

  it('reclaims a job whose lease expired, and fences the old worker out', async () => {
    const { job } = await db.system((tx) => enqueueJob(tx, { name: 'test.lease' }));
    const [claimed] = await claimJobs(db, { workerId: 'dead', names: ['test.lease'], limit: 1, leaseMs: 1 });
    expect(claimed.id).toBe(job.id);
    await new Promise((r) => setTimeout(r, 20));
    const [again] = await claimJobs(db, { workerId: 'alive', names: ['test.lease'], limit: 1, leaseMs: 60_000 });
    expect(again.id).toBe(job.id);
    expect(again.attempts).toBe(2);
    expect(await completeJob(db, 'dead', job.id, { x: 1 })).toBe(false);
    expect(await completeJob(db, 'alive', job.id, { x: 2 })).toBe(true);
    const done = await getJob(db, job.id);
    expect(done?.status).toBe('succeeded');
    expect(done?.result).toEqual({ x: 2 });
  });

  it('retries with exponential back-off, then fails for good', async () => {
    expect([1, 2, 3, 4].map((a) => backoffMs(a))).toEqual([10_000, 20_000, 40_000, 80_000]);
    expect(backoffMs(30)).toBe(3_600_000);
    const { job } = await db.system((tx) => enqueueJob(tx, { name: 'test.backoff', maxAttempts: 2 }));
    const [c1] = await claimJobs(db, { workerId: 'w', names: ['test.backoff'], limit: 1, leaseMs: 60_000 });
    expect(await failJob(db, 'w', c1, 'first failure', { isRetryable: true })).toBe('queued');
    const [{ delay }] = await db.system((tx) =>
      tx.query<{ delay: number }>(
        `select extract(epoch from run_at - now())::float8 as delay from jobs where id = $1`,
        [String(job.id)],
      ),
    );
    expect(delay).toBeGreaterThan(9);
    expect(delay).toBeLessThanOrEqual(10.5);
    // Not claimable before its back-off has passed.
    expect(await claimJobs(db, { workerId: 'w', names: ['test.backoff'], limit: 1, leaseMs: 60_000 })).toEqual([]);
    await db.system((tx) => tx.query(`update jobs set run_at = now() where id = $1`, [String(job.id)]));
    const [c2] = await claimJobs(db, { workerId: 'w', names: ['test.backoff'], limit: 1, leaseMs: 60_000 });
    expect(c2.attempts).toBe(2);
    expect(await failJob(db, 'w', c2, 'second failure', { isRetryable: true })).toBe('failed');
    const failed = await getJob(db, job.id);
    expect(failed?.lastError).toBe('second failure');
    expect(failed?.finishedAt).toBeInstanceOf(Date);
  });

  it('runs jobs through a worker: progress, retries, permanent failures, and only its own names', async () => {
    let flakyCalls = 0;
    const handlers = new Map<string, JobHandler>([
      [
        'w.export',
        async ({ progress, payload }) => {
          const total = Number(payload.rows);
          for (let done = 0; done <= total; done += 25) await progress(done, total);
          return { rows: total };
        },
      ],
      [
        'w.flaky',
        async () => {
          flakyCalls++;
          if (flakyCalls < 3) throw new Error(`flaky ${flakyCalls}`);
          return 'ok';
        },
      ],
      [
        'w.bad',
        async () => {
          throw new PermanentJobError('bad input: rows');
        },
      ],
    ]);
    const ids = await db.system(async (tx) => ({
      exportId: (await enqueueJob(tx, { name: 'w.export', payload: { rows: 100 } })).job.id,
      flakyId: (await enqueueJob(tx, { name: 'w.flaky' })).job.id,
      badId: (await enqueueJob(tx, { name: 'w.bad' })).job.id,
      otherId: (await enqueueJob(tx, { name: 'w.unhandled' })).job.id,
    }));
    const worker = startWorker(db, { handlers, pollMs: 20, backoffBaseMs: 1, concurrency: 2 });
    try {
      // idle() means nothing is due now: a retry queued a few milliseconds ahead can still be waiting
      // (a loaded machine shows it), so wait until the flaky job has stopped retrying.
      for (let i = 0; i < 50; i++) {
        await worker.idle();
        if ((await getJob(db, ids.flakyId))?.status !== 'queued') break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await worker.stop();
    }
    const exported = await getJob(db, ids.exportId);
    expect(exported).toMatchObject({
      status: 'succeeded',
      result: { rows: 100 },
      progressDone: 100n,
      progressTotal: 100n,
    });
    expect(await getJob(db, ids.flakyId)).toMatchObject({ status: 'succeeded', attempts: 3, result: 'ok' });
    expect(await getJob(db, ids.badId)).toMatchObject({ status: 'failed', attempts: 1, lastError: 'bad input: rows' });
    expect(await getJob(db, ids.otherId)).toMatchObject({ status: 'queued', attempts: 0 });
    expect(await cancelJob(db, ids.otherId)).toBe(true);
    expect(await cancelJob(db, ids.exportId)).toBe(false);
  });

  it("schedules each tenant's daily close once per business date after its local midnight, across servers", async () => {
    expect(localDate(new Date('2026-03-10T23:30:00Z'), 'Europe/Paris')).toBe('2026-03-11');
    expect(localDate(new Date('2026-03-10T23:30:00Z'), 'America/New_York')).toBe('2026-03-10');
    const now = new Date('2026-03-10T23:30:00Z');
    // Three app servers tick at the same moment.
    const results = await Promise.all([schedulerTick(db, now), schedulerTick(db, now), schedulerTick(db, now)]);
    const closes = results.flatMap((r) => r.enqueued).filter((k) => k.startsWith(DAILY_CLOSE_JOB));
    expect(closes).toEqual([`${DAILY_CLOSE_JOB}:paris-j1:2026-03-10`]);
    const rows = await db.system((tx) =>
      tx.query<{ tenant_id: string; payload: unknown; n: number }>(
        `select tenant_id, payload, count(*) over ()::int as n from jobs where name = $1`,
        [DAILY_CLOSE_JOB],
      ),
    );
    expect(rows).toEqual([{ tenant_id: 'paris-j1', payload: { businessDate: '2026-03-10' }, n: 1 }]);
    const cleanups = results.flatMap((r) => r.enqueued).filter((k) => k.startsWith('idempotency.cleanup'));
    expect(cleanups).toEqual(['idempotency.cleanup:2026-03-10T23']);
    // After New York's midnight it gets its own close; Paris is not enqueued twice.
    const later = await schedulerTick(db, new Date('2026-03-11T05:30:00Z'));
    expect(later.enqueued.filter((k) => k.startsWith(DAILY_CLOSE_JOB))).toEqual([
      `${DAILY_CLOSE_JOB}:ny-j1:2026-03-10`,
    ]);
  });

  it('prunes finished jobs older than the retention', async () => {
    const { job } = await db.system((tx) => enqueueJob(tx, { name: 'test.prune' }));
    await db.system((tx) =>
      tx.query(`update jobs set status = 'succeeded', finished_at = now() - interval '20 days' where id = $1`, [
        String(job.id),
      ]),
    );
    expect(await pruneJobs(db, 14)).toBeGreaterThanOrEqual(1);
    expect(await getJob(db, job.id)).toBeNull();
  });
});
