import type { Tx } from '../db/index.ts';
import { currentPlan } from '../plans/plans.ts';
import { localMonth } from './api-calls.ts';
import { tenantZone } from './core.ts';
import {
  DATA_SOURCES,
  FLOW_LINKS,
  FLOW_NODES,
  USAGE_MEASURES,
  type DataCoverage,
  type FlowLinkState,
  type FlowNode,
  type FlowStatus,
} from './registry.ts';

/**
 * What the data pages show, read from the registry (registry.ts): every area's links, sources and
 * measures appear without the pages knowing them. A reader that fails shows as an error on its row
 * instead of failing the page (another area's table may be missing or busy).
 */

export type FlowLinkView = {
  id: string;
  from: FlowNode;
  to: FlowNode;
  labelKey: string;
  href: string | null;
  status: FlowStatus;
  /** Items in the last 24 hours and the last 30 days. */
  day: number;
  month: number;
  lastAt: Date | null;
  detail: string | null;
};

export type FlowView = { nodes: FlowNode[]; links: FlowLinkView[]; at: Date };

const HOUR = 3_600_000;

async function safely<T>(tx: Tx, read: () => Promise<T>): Promise<T | Error> {
  // A savepoint, so a reader's SQL error does not abort the page's transaction.
  await tx.query('savepoint data_flow_read');
  try {
    const value = await read();
    await tx.query('release savepoint data_flow_read');
    return value;
  } catch (error) {
    await tx.query('rollback to savepoint data_flow_read');
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** The diagram: each link's status (last 24 h), volume over 24 h and 30 days, last crossing. */
export async function readFlow(tx: Tx, now = new Date()): Promise<FlowView> {
  const links: FlowLinkView[] = [];
  for (const link of FLOW_LINKS) {
    const day = await safely(tx, () => link.read(tx, new Date(now.getTime() - 24 * HOUR)));
    const month = await safely(tx, () => link.read(tx, new Date(now.getTime() - 30 * 24 * HOUR)));
    const base = { id: link.id, from: link.from, to: link.to, labelKey: link.labelKey, href: link.href ?? null };
    if (day instanceof Error || month instanceof Error) {
      const error = day instanceof Error ? day : (month as Error);
      links.push({ ...base, status: 'error', day: 0, month: 0, lastAt: null, detail: error.message.slice(0, 200) });
      continue;
    }
    links.push({
      ...base,
      status: day.status,
      day: day.volume,
      month: month.volume,
      lastAt: (day as FlowLinkState).lastAt ?? month.lastAt,
      detail: day.detail ?? null,
    });
  }
  return { nodes: [...FLOW_NODES], links, at: now };
}

export type SourceView = {
  id: string;
  labelKey: string;
  href: string | null;
  staleAfterHours: number;
  coverage: DataCoverage | null;
  isStale: boolean;
  error: string | null;
};

/** Every data source's coverage and freshness (stale: nothing arrived within its threshold). */
export async function readAvailability(tx: Tx, now = new Date()): Promise<SourceView[]> {
  const out: SourceView[] = [];
  for (const source of DATA_SOURCES) {
    const coverage = await safely(tx, () => source.read(tx));
    const base = {
      id: source.id,
      labelKey: source.labelKey,
      href: source.href ?? null,
      staleAfterHours: source.staleAfterHours,
    };
    if (coverage instanceof Error) {
      out.push({ ...base, coverage: null, isStale: true, error: coverage.message.slice(0, 200) });
      continue;
    }
    const isStale =
      coverage.items > 0 &&
      (!coverage.lastAt || now.getTime() - coverage.lastAt.getTime() > source.staleAfterHours * HOUR);
    out.push({ ...base, coverage, isStale, error: null });
  }
  return out;
}

/** The last `count` months ('YYYY-MM'), oldest first, ending with the month of `now` in `timeZone`. */
export function lastMonths(now: Date, timeZone: string, count = 12): string[] {
  const [y, m] = localMonth(now, timeZone).split('-').map(Number);
  const out: string[] = [];
  for (let i = count - 1; i >= 0; i--) {
    const index = y * 12 + (m - 1) - i;
    out.push(`${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`);
  }
  return out;
}

export type PlanLimit = {
  feature: string;
  plan: string | null;
  enabled: boolean;
  unlimited: boolean;
  limit: number | null;
  used: number;
};

export type MeasureView = {
  id: string;
  labelKey: string;
  unit: 'count' | 'bytes';
  values: Record<string, number>;
  limit: PlanLimit | null;
  error: string | null;
};

export type UsageView = { months: string[]; timeZone: string; measures: MeasureView[] };

/** Each measure by month (last 12 months in the tenant's zone) and the plan's limit where one applies. */
export async function readUsage(tx: Tx, tenantId: string, now = new Date()): Promise<UsageView> {
  const timeZone = await tenantZone(tx);
  const months = lastMonths(now, timeZone);
  const features = await currentPlan(tx, tenantId);
  const measures: MeasureView[] = [];
  for (const measure of USAGE_MEASURES) {
    const values = await safely(tx, () => measure.read(tx, months));
    const feature = measure.planFeature ? features.find((f) => f.name === measure.planFeature) : undefined;
    const first = feature?.plans[0];
    const limit: PlanLimit | null = feature
      ? {
          feature: feature.name,
          plan: first?.name ?? null,
          enabled: first?.enabled ?? false,
          unlimited: first?.unlimited ?? false,
          limit: feature.supports_usage_limit ? (first?.usage_limit ?? 0) : null,
          used: feature.usage,
        }
      : null;
    measures.push({
      id: measure.id,
      labelKey: measure.labelKey,
      unit: measure.unit,
      values: values instanceof Error ? {} : Object.fromEntries(months.map((m) => [m, values[m] ?? 0])),
      limit,
      error: values instanceof Error ? values.message.slice(0, 200) : null,
    });
  }
  return { months, timeZone, measures };
}
