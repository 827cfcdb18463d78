import type { Db } from '#lib/db/index.ts';

/**
 * Waits until every event written so far is readable by the outbox. Readers only see events whose
 * transaction is older than the oldest one still running anywhere on the server (outbox.ts), so on a
 * Postgres shared with other test files a long transaction elsewhere holds the newest events back for
 * a while. Tests that dispatch right after a change wait here instead of racing that transaction.
 */
export async function awaitOutbox(db: Db, timeoutMs = 110_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await db.owner((tx) =>
      tx.query<{ settled: boolean }>(
        `select coalesce((select xid from domain_events order by xid desc limit 1) < pg_snapshot_xmin(pg_current_snapshot()), true) as settled`,
      ),
    );
    if (row?.settled) return;
    if (Date.now() > deadline) throw new Error('events still held back by a running transaction');
    await new Promise((r) => setTimeout(r, 200));
  }
}
