import type { Tx } from '../db/index.ts';
import type { DataCoverage, FlowLink, FlowLinkState } from '../data-flow/registry.ts';
import { exportedPerMonth, listSinkRows, sinkFigures } from './store.ts';
import type { SinkType } from './settings.ts';

/**
 * The sinks' entries of the data-flow registry (src/lib/data-flow/registry.ts): a product → sinks link
 * per destination type (volume delivered, lag, last error), the "sinks" data source (the period the
 * delivered events cover, and their freshness), and "events exported" per month.
 */

async function linkState(tx: Tx, type: SinkType, since: Date): Promise<FlowLinkState> {
  const sinks = await listSinkRows(tx, type);
  if (!sinks.length) return { status: 'idle', volume: 0, lastAt: null, detail: null };
  const [row] = await tx.query<{ n: number }>(
    `select coalesce(sum(events), 0)::int as n from event_sink_batches where sink_type = $1 and delivered_at >= $2`,
    [type, since],
  );
  let lag = 0;
  let oldest = 0;
  for (const sink of sinks) {
    const f = await sinkFigures(tx, sink);
    lag += sink.status === 'active' ? f.lagEvents : 0;
    oldest = Math.max(oldest, sink.status === 'active' ? f.lagSeconds : 0);
  }
  const failing = sinks.find((s) => s.status === 'active' && s.last_error);
  const lastAt = sinks.reduce<Date | null>(
    (latest, s) => (s.last_delivered_at && (!latest || s.last_delivered_at > latest) ? s.last_delivered_at : latest),
    null,
  );
  const allPaused = sinks.every((s) => s.status === 'paused');
  return {
    status: failing ? 'error' : allPaused ? 'idle' : oldest > 600 ? 'warning' : 'ok',
    volume: row.n,
    lastAt,
    detail: failing ? failing.last_error : lag ? `${lag} events waiting` : null,
  };
}

export const SINK_FLOW_LINKS: FlowLink[] = (['postgres', 'bigquery', 'fineract'] as const).map((type) => ({
  id: `sinks.${type}`,
  from: 'product',
  to: 'sinks',
  labelKey: `sinks:tabs.${type}`,
  href: `/admin/notifications/events/${type}`,
  read: (tx, since) => linkState(tx, type, since),
}));

/** The period the delivered events cover (first to last occurred date, over every sink) and when the last batch landed. */
export async function sinksCoverage(tx: Tx): Promise<DataCoverage> {
  const [row] = await tx.query<{ from: string | null; to: string | null; last_at: Date | null; items: string }>(
    `select to_char(min(first_event_at) at time zone 'UTC', 'YYYY-MM-DD') as from,
            to_char(max(last_event_at) at time zone 'UTC', 'YYYY-MM-DD') as to,
            max(last_delivered_at) as last_at, coalesce(sum(delivered_count), 0)::text as items
       from event_sinks`,
  );
  return { from: row.from, to: row.to, lastAt: row.last_at, gaps: [], items: Number(row.items) };
}

export { exportedPerMonth };
