import type { Tx } from '../db/index.ts';
import type { DataSource, FlowLink, FlowLinkState, UsageMeasure } from '../data-flow/registry.ts';

/**
 * The data upload's entries of the data-flow registry (src/lib/data-flow/registry.ts): the links
 * imports → product and buckets → product (rows imported, files refused), the data source "imports"
 * (the period the imported rows cover, freshness), and the usage measures rows and files imported per month.
 */

type LinkRow = { volume: number; failed: number; last_at: Date | null };

async function linkState(tx: Tx, since: Date, source: 'upload' | 'bucket'): Promise<FlowLinkState> {
  const [row] = await tx.query<LinkRow>(
    `select coalesce(sum(created_count) filter (where status = 'imported'), 0)::int as volume,
            count(*) filter (where status in ('refused', 'failed') and mode = 'commit')::int as failed,
            max(finished_at) as last_at
       from data_imports where source = $1 and created_at >= $2`,
    [source, since],
  );
  const [runs] =
    source === 'bucket'
      ? await tx.query<{ failed: number }>(
          `select count(*) filter (where status = 'failed')::int as failed from import_bucket_runs where started_at >= $1`,
          [since],
        )
      : [{ failed: 0 }];
  const failures = row.failed + runs.failed;
  return {
    status: failures > 0 ? 'warning' : row.volume > 0 ? 'ok' : 'idle',
    volume: row.volume,
    lastAt: row.last_at,
    detail: failures > 0 ? `${failures} refused` : null,
  };
}

export const IMPORT_FLOW_LINKS: FlowLink[] = [
  {
    id: 'imports.product',
    from: 'imports',
    to: 'product',
    labelKey: 'dataimport:flow.imports',
    href: '/admin/data/data-upload',
    read: (tx, since) => linkState(tx, since, 'upload'),
  },
  {
    id: 'buckets.product',
    from: 'buckets',
    to: 'product',
    labelKey: 'dataimport:flow.buckets',
    href: '/admin/data/import-buckets',
    read: (tx, since) => linkState(tx, since, 'bucket'),
  },
];

export const IMPORT_DATA_SOURCES: DataSource[] = [
  {
    id: 'imports',
    labelKey: 'dataimport:flow.source',
    href: '/admin/data/data-upload',
    staleAfterHours: 24 * 7,
    read: async (tx) => {
      const [row] = await tx.query<{ from: string | null; to: string | null; last_at: Date | null; items: number }>(
        `select to_char(min(first_date), 'YYYY-MM-DD') as from, to_char(max(last_date), 'YYYY-MM-DD') as to,
                max(finished_at) as last_at, count(*)::int as items
           from data_imports where status = 'imported'`,
      );
      // Gaps: months inside the covered period that no imported file touches.
      const months = await tx.query<{ m: string }>(
        `select distinct to_char(d, 'YYYY-MM') as m
           from data_imports i, generate_series(date_trunc('month', i.first_date), i.last_date, interval '1 month') d
          where i.status = 'imported' and i.first_date is not null order by 1`,
      );
      const gaps: { from: string; to: string }[] = [];
      for (let i = 1; i < months.length; i++) {
        const [y, m] = months[i - 1].m.split('-').map(Number);
        const next = m === 12 ? `${y + 1}-01` : `${y}-${String(m + 1).padStart(2, '0')}`;
        if (next !== months[i].m) {
          const [y2, m2] = months[i].m.split('-').map(Number);
          const prevEnd = new Date(Date.UTC(y2, m2 - 1, 0)).toISOString().slice(0, 10);
          gaps.push({ from: `${next}-01`, to: prevEnd });
        }
      }
      return { from: row.from, to: row.to, lastAt: row.last_at, gaps, items: row.items };
    },
  },
];

async function perMonth(tx: Tx, months: string[], expression: string): Promise<Record<string, number>> {
  const rows = await tx.query<{ m: string; n: number }>(
    `select to_char(finished_at, 'YYYY-MM') as m, ${expression}::int as n from data_imports
      where status = 'imported' and to_char(finished_at, 'YYYY-MM') = any($1::text[]) group by 1`,
    [months],
  );
  return Object.fromEntries(rows.map((r) => [r.m, r.n]));
}

export const IMPORT_USAGE_MEASURES: UsageMeasure[] = [
  {
    id: 'imports.rows',
    labelKey: 'dataimport:flow.rowsImported',
    unit: 'count',
    read: (tx, months) => perMonth(tx, months, 'sum(created_count)'),
  },
  {
    id: 'imports.files',
    labelKey: 'dataimport:flow.filesImported',
    unit: 'count',
    read: (tx, months) => perMonth(tx, months, 'count(*)'),
  },
];
