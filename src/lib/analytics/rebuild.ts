import type { Db } from '../db/index.ts';
import { rebuildSnapshots } from './snapshots.ts';
import { MONTH_END_WRITERS, snapshotMonthEnds, writeAnalyticsMonthEnd } from './month-end.ts';

export type RebuildResult = {
  tenantId: string;
  monthEnds: number;
  rows: Record<string, number>;
  /** With `snapshots`: the month-end snapshot rows rebuilt from loan history first. */
  snapshots?: number;
  ms: number;
};

/**
 * Rewrites every analytics rollup of a tenant from its month-end snapshots: one transaction per month
 * end (each writer deletes then inserts its month), so a failure leaves earlier months rebuilt and the
 * command can simply run again. `npm run analytics:rebuild` (scripts/analytics-rebuild.ts).
 */
export async function rebuildAnalytics(
  db: Db,
  tenantId: string,
  options: { onMonth?: (monthEnd: string) => void; snapshots?: boolean } = {},
): Promise<RebuildResult> {
  const started = Date.now();
  // --snapshots: the per-loan month-end snapshots themselves are recomputed from history first (snapshots.ts).
  const snapshots = options.snapshots ? (await rebuildSnapshots(db, tenantId)).rows : undefined;
  const monthEnds = await db.tenant(tenantId, (tx) => snapshotMonthEnds(tx));
  const rows: Record<string, number> = Object.fromEntries(MONTH_END_WRITERS.map((w) => [w.name, 0]));
  for (const monthEnd of monthEnds) {
    const written = await db.tenant(tenantId, (tx) => writeAnalyticsMonthEnd(tx, tenantId, monthEnd));
    for (const [name, n] of Object.entries(written)) rows[name] = (rows[name] ?? 0) + n;
    options.onMonth?.(monthEnd);
  }
  return {
    tenantId,
    monthEnds: monthEnds.length,
    rows,
    ...(snapshots === undefined ? {} : { snapshots }),
    ms: Date.now() - started,
  };
}
