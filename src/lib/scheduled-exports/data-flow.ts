import type { Tx } from '../db/index.ts';
import type { FlowLinkState } from '../data-flow/registry.ts';

/**
 * What the data pages show of scheduled exports (src/lib/data-flow/registry.ts): the product → exports
 * link of the /data-flow diagram (runs since a moment, failures, the last run's outcome), and the
 * usage measures "scheduled export runs" and "rows exported" per month (months in the tenant's zone).
 */
export async function readExportsLink(tx: Tx, since: Date): Promise<FlowLinkState> {
  const [row] = await tx.query<{ runs: number; failed: number; last_at: Date | null; last_status: string | null }>(
    `select count(*)::int as runs, count(*) filter (where status = 'failed')::int as failed,
            max(coalesce(finished_at, started_at)) as last_at,
            (select status from scheduled_export_runs where status in ('succeeded', 'failed')
              order by finished_at desc nulls last limit 1) as last_status
       from scheduled_export_runs where created_at >= $1`,
    [since],
  );
  const runs = row?.runs ?? 0;
  const failed = row?.failed ?? 0;
  return {
    status: runs === 0 ? 'idle' : row?.last_status === 'failed' ? 'error' : failed > 0 ? 'warning' : 'ok',
    volume: runs,
    lastAt: row?.last_at ?? null,
    detail: failed > 0 ? `${failed} failed` : null,
  };
}

async function perMonth(tx: Tx, months: string[], value: string): Promise<Record<string, number>> {
  if (!months.length) return {};
  const rows = await tx.query<{ month: string; n: number }>(
    `select month, (${value})::int as n
       from (select to_char(started_at at time zone coalesce((select time_zone from tenants t where t.id = r.tenant_id), 'UTC'),
                            'YYYY-MM') as month, rows
               from scheduled_export_runs r where started_at is not null) r
      where month = any($1::text[])
      group by month`,
    [months],
  );
  return Object.fromEntries(rows.map((r) => [r.month, r.n]));
}

export const readRunsPerMonth = (tx: Tx, months: string[]) => perMonth(tx, months, 'count(*)');
export const readRowsPerMonth = (tx: Tx, months: string[]) => perMonth(tx, months, 'coalesce(sum(r.rows), 0)');
