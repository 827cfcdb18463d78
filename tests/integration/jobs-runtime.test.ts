import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { startJobRuntime } from '#lib/jobs/runtime.ts';
import { addDays } from '#lib/schedule/dates.ts';
import { jobHandlerNames } from '#lib/jobs/worker.ts';
import { LIST_EXPORT_JOB } from '#lib/exports/export-job.ts';

describe.each(testDbKinds())('job runtime on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  const today = new Date().toISOString().slice(0, 10);

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    await db.owner((tx) =>
      tx.query(
        `insert into tenants (id, slug, name, currency, time_zone, business_date) values ('rt-j1', 'rt', 'Runtime', 'EUR', 'UTC', $1)`,
        [addDays(today, -2)],
      ),
    );
  });
  afterAll(() => drop?.());

  it("schedules and runs the daily close until the business date reaches the tenant's today, then stops cleanly", async () => {
    // One scheduler tick at start only: the catch-up of the second day comes from the close job itself.
    const runtime = await startJobRuntime(db, { pollMs: 20, schedulerIntervalMs: 60_000 });
    expect(jobHandlerNames()).toEqual(
      expect.arrayContaining(['close.daily', 'idempotency.cleanup', 'jobs.prune', LIST_EXPORT_JOB]),
    );
    try {
      for (let i = 0; i < 200; i++) {
        const [{ business_date }] = await db.system((tx) =>
          tx.query<{ business_date: string }>(`select business_date from tenants where id = 'rt-j1'`),
        );
        if (business_date === today) break;
        await new Promise((r) => setTimeout(r, 25));
      }
    } finally {
      await runtime.stop();
    }
    const [{ business_date }] = await db.system((tx) =>
      tx.query<{ business_date: string }>(`select business_date from tenants where id = 'rt-j1'`),
    );
    expect(business_date).toBe(today);
    const jobs = await db.system((tx) =>
      tx.query<{ dedupe_key: string; status: string }>(
        `select dedupe_key, status from jobs where name = 'close.daily' order by id`,
      ),
    );
    expect(jobs).toEqual([
      { dedupe_key: `close.daily:rt-j1:${addDays(today, -2)}`, status: 'succeeded' },
      { dedupe_key: `close.daily:rt-j1:${addDays(today, -1)}`, status: 'succeeded' },
    ]);
    const runs = await db.tenant('rt-j1', (tx) =>
      tx.query(`select business_date, new_business_date from close_runs order by business_date`),
    );
    expect(runs).toEqual([
      { business_date: addDays(today, -2), new_business_date: addDays(today, -1) },
      { business_date: addDays(today, -1), new_business_date: today },
    ]);
  });
});
