import type { Db } from '../db/index.ts';

/** Whether the database answers a trivial query, and how long it took (the health check). */
export async function databaseHealth(db: Db): Promise<{ kind: string; ms: number }> {
  const started = Date.now();
  await db.system((tx) => tx.query('select 1'));
  return { kind: db.kind, ms: Date.now() - started };
}
