import type { Tx } from '../db/index.ts';
import { delinquencyWriter } from './delinquency.ts';
import { vintageWriter } from './vintage.ts';
import { PERFORMANCE_WRITER } from './performance/writer.ts';
import { PORTFOLIO_FACTS_WRITER } from './portfolio-facts.ts';

/**
 * The analytics month-end writers: each board that needs figures faster than a scan of the per-loan
 * month-end snapshots keeps its own rollup, written here from `loan_month_end_snapshots` (and the
 * ledger) for one month end. The daily close calls `writeAnalyticsMonthEnd` in its own transaction,
 * right after it wrote the month's snapshots, so a rollup exists exactly when its snapshots do;
 * `npm run analytics:rebuild` (scripts/analytics-rebuild.ts) calls every writer again for every month
 * end that has snapshots. A writer must be idempotent for its month end (delete then insert), read
 * only committed history (snapshots, transactions, journal) and never call another writer.
 */
export type MonthEndWriter = {
  /** Stable name, shown by the rebuild command and in `close_runs.stats.analytics`. */
  name: string;
  /** Recomputes the writer's rows for `monthEnd` (YYYY-MM-DD, a month's last day). Returns rows written. */
  write: (tx: Tx, tenantId: string, monthEnd: string) => Promise<number>;
};

/** The registered writers, in the order they run. Each board adds its own entry here. */
export const MONTH_END_WRITERS: MonthEndWriter[] = [
  // analytics writers: one line per board rollup (keep one per line; branches add theirs here)
  delinquencyWriter,
  vintageWriter,
  PERFORMANCE_WRITER, // monthly revenue and portfolio analysis (src/lib/analytics/performance)
  PORTFOLIO_FACTS_WRITER,
];

/** Runs every writer for one month end; returns rows written per writer. */
export async function writeAnalyticsMonthEnd(
  tx: Tx,
  tenantId: string,
  monthEnd: string,
): Promise<Record<string, number>> {
  const written: Record<string, number> = {};
  for (const writer of MONTH_END_WRITERS) written[writer.name] = await writer.write(tx, tenantId, monthEnd);
  return written;
}

/** The month ends that have per-loan snapshots, oldest first. */
export async function snapshotMonthEnds(tx: Tx): Promise<string[]> {
  const rows = await tx.query<{ month_end: string }>(
    `select distinct to_char(month_end, 'YYYY-MM-DD') as month_end from loan_month_end_snapshots order by 1`,
  );
  return rows.map((r) => r.month_end);
}
