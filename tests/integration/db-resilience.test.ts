import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '#lib/db/index.ts';
import { createTestDb } from '#lib/db/testing.ts';

// The Postgres pool must survive connections that the server drops (a restart, a failover, an idle
// timeout in a proxy): idle clients that die are discarded, and the next request gets a fresh one.
describe.skipIf(!process.env.TEST_DATABASE_URL)('Postgres pool after dropped connections', () => {
  let db: Db;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb('postgres'));
  });
  afterAll(() => drop?.());

  it('keeps answering after every pooled connection is terminated by the server', async () => {
    // Warm several pooled connections.
    await Promise.all(Array.from({ length: 5 }, () => db.system((tx) => tx.query('select pg_sleep(0.05)'))));
    const { default: pg } = await import('pg');
    const [{ current_database: name }] = await db.system((tx) =>
      tx.query<{ current_database: string }>('select current_database()'),
    );
    const killer = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await killer.connect();
    const killed = await killer.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [name],
    );
    await killer.end();
    expect(killed.rowCount).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // A query may land on a client whose death was not noticed yet; the caller sees one failure at
    // most, and the pool heals without a restart.
    let answered = 0;
    for (let attempt = 0; attempt < 10 && answered < 3; attempt++) {
      try {
        const [row] = await db.system((tx) => tx.query<{ ok: number }>('select 1 as ok'));
        if (row.ok === 1) answered++;
      } catch {
        /* a dead idle client surfaced once; the pool drops it */
      }
    }
    expect(answered).toBe(3);
  });
});
