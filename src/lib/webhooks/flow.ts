/** The webhooks' entries of the data pages (src/lib/data-flow/registry.ts). */
import type { Tx } from '../db/index.ts';
import type { FlowLink, FlowStatus, UsageMeasure } from '../data-flow/registry.ts';

type LinkRow = {
  endpoints: number;
  disabled_by_receiver: number;
  volume: number;
  failed: number;
  retrying: number;
  last_at: Date | null;
};

/** product → webhooks: deliveries made since `since`; red when some failed or a receiver disabled its endpoint. */
export const webhooksFlowLink: FlowLink = {
  id: 'product-webhooks',
  from: 'product',
  to: 'webhooks',
  labelKey: 'webhooks:flow.link',
  href: '/admin/notifications/webhooks',
  async read(tx: Tx, since: Date) {
    const [row] = await tx.query<LinkRow>(
      `select (select count(*)::int from webhook_endpoints) as endpoints,
              (select count(*)::int from webhook_endpoints where disabled_reason is not null) as disabled_by_receiver,
              count(*)::int as volume,
              (count(*) filter (where status = 'failed'))::int as failed,
              (count(*) filter (where status = 'pending' and attempts > 0))::int as retrying,
              max(last_attempt_at) as last_at
         from webhook_deliveries where created_at >= $1`,
      [since],
    );
    const status: FlowStatus =
      row.endpoints === 0
        ? 'idle'
        : row.failed > 0 || row.disabled_by_receiver > 0
          ? 'error'
          : row.retrying > 0
            ? 'warning'
            : row.volume > 0
              ? 'ok'
              : 'idle';
    return {
      status,
      volume: row.volume,
      lastAt: row.last_at,
      // Words belong to the page; the numbers speak for themselves (failed ✗, being retried ↻).
      detail: row.failed || row.retrying ? `${row.failed} ✗ · ${row.retrying} ↻` : null,
    };
  },
};

/** Webhook deliveries per month (each delivery counts once, whatever its attempts). */
export const webhookDeliveriesUsage: UsageMeasure = {
  id: 'webhook-deliveries',
  labelKey: 'webhooks:flow.usage',
  unit: 'count',
  async read(tx: Tx, months: string[]) {
    if (months.length === 0) return {};
    const sorted = [...months].sort();
    // A range on created_at (indexed), then grouped by UTC month.
    const rows = await tx.query<{ month: string; n: number }>(
      `select to_char(created_at at time zone 'UTC', 'YYYY-MM') as month, count(*)::int as n
         from webhook_deliveries
        where created_at >= ($1 || '-01 00:00:00+00')::timestamptz
          and created_at < ($2 || '-01 00:00:00+00')::timestamptz + interval '1 month'
        group by 1`,
      [sorted[0], sorted.at(-1)],
    );
    return Object.fromEntries(rows.filter((r) => months.includes(r.month)).map((r) => [r.month, r.n]));
  },
};
