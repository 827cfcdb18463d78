import type { Tx } from '../db/index.ts';
import { webhookDeliveriesUsage, webhooksFlowLink } from '../webhooks/flow.ts';
import { exportedPerMonth, SINK_FLOW_LINKS, sinksCoverage } from '../sinks/flow.ts';
import { readExportsLink, readRowsPerMonth, readRunsPerMonth } from '../scheduled-exports/data-flow.ts';
import { CORE_DATA_SOURCES, CORE_FLOW_LINKS, CORE_USAGE_MEASURES } from './core.ts';
import { IMPORT_DATA_SOURCES, IMPORT_FLOW_LINKS, IMPORT_USAGE_MEASURES } from '../data-import/flow.ts';

/**
 * What the data pages read about every way data enters or leaves a tenant, declared once per area:
 *  - FLOW_LINKS: the links of the `/data-flow` diagram (from a node to a node, with status and volume);
 *  - DATA_SOURCES: `/admin/data/data-availability` (what period a source covers, its freshness, gaps);
 *  - USAGE_MEASURES: `/admin/data/data-resource-usage` (a count per month, against a plan limit).
 * Each area adds its entries under its own heading below; the pages only iterate these arrays.
 */

/** The diagram's nodes. */
export const FLOW_NODES = [
  'forms',
  'staff',
  'imports',
  'buckets',
  'bank_statements',
  'bureau',
  'product',
  'webhooks',
  'sinks',
  'exports',
  'downloads',
  'messages',
] as const;
export type FlowNode = (typeof FLOW_NODES)[number];

export type FlowStatus = 'ok' | 'warning' | 'error' | 'idle';

export type FlowLinkState = {
  status: FlowStatus;
  /** Items that crossed the link since `since`. */
  volume: number;
  /** Last time something crossed it. */
  lastAt: Date | null;
  /** A short fact for people (an error, a lag), already in the page's words when set. */
  detail?: string | null;
};

export type FlowLink = {
  id: string;
  from: FlowNode;
  to: FlowNode;
  /** i18n key of the link's name. */
  labelKey: string;
  /** Where an administrator manages it (optional). */
  href?: string;
  read: (tx: Tx, since: Date) => Promise<FlowLinkState>;
};

export type DataCoverage = {
  /** First and last day covered (YYYY-MM-DD), null when there is no data. */
  from: string | null;
  to: string | null;
  /** When the latest data arrived. */
  lastAt: Date | null;
  /** Missing periods inside [from, to], inclusive dates. */
  gaps: { from: string; to: string }[];
  /** Items behind the coverage (files, rows, events). */
  items: number;
};

export type DataSource = {
  id: string;
  labelKey: string;
  href?: string;
  /** Freshness expected: older than this many hours is shown as stale. */
  staleAfterHours: number;
  read: (tx: Tx) => Promise<DataCoverage>;
};

export type UsageMeasure = {
  id: string;
  labelKey: string;
  /** 'count' or 'bytes' (how the page formats it). */
  unit: 'count' | 'bytes';
  /** The plan feature whose usage limit applies, if any. */
  planFeature?: string;
  /** Value per month for the given months (YYYY-MM), missing months count 0. */
  read: (tx: Tx, months: string[]) => Promise<Record<string, number>>;
};

export const FLOW_LINKS: FlowLink[] = [
  // — core (data pages) —
  ...CORE_FLOW_LINKS,
  // — webhooks —
  webhooksFlowLink,
  // — event sinks —
  ...SINK_FLOW_LINKS,
  // — scheduled exports —
  {
    id: 'scheduled-exports',
    from: 'product',
    to: 'exports',
    labelKey: 'schedexports:flow.link',
    href: '/admin/notifications/scheduled-exports',
    read: readExportsLink,
  },
  // — data upload and import buckets —
  ...IMPORT_FLOW_LINKS,
];

export const DATA_SOURCES: DataSource[] = [
  // — core (data pages) —
  ...CORE_DATA_SOURCES,
  // — event sinks —
  {
    id: 'sinks',
    labelKey: 'sinks:title',
    href: '/admin/notifications/events',
    staleAfterHours: 1,
    read: sinksCoverage,
  },
  // — data upload and import buckets —
  ...IMPORT_DATA_SOURCES,
];

export const USAGE_MEASURES: UsageMeasure[] = [
  // — core (data pages) —
  ...CORE_USAGE_MEASURES,
  // — webhooks —
  webhookDeliveriesUsage,
  // — event sinks —
  { id: 'sinks.events_exported', labelKey: 'sinks:usage.eventsExported', unit: 'count', read: exportedPerMonth },
  // — scheduled exports —
  { id: 'scheduled-export-runs', labelKey: 'schedexports:usage.runs', unit: 'count', read: readRunsPerMonth },
  { id: 'scheduled-export-rows', labelKey: 'schedexports:usage.rows', unit: 'count', read: readRowsPerMonth },
  // — data upload and import buckets —
  ...IMPORT_USAGE_MEASURES,
];
