/**
 * The risk boards' table (/analytics/risk/product/view, /analytics/risk/branch/view): one column per
 * measure, sortable by any of them, downloaded as shown (CSV/XLSX through tableDownload).
 */
import type { ExportTable, ExportValue } from '../exports/table-download.ts';
import { fromMinor, toDecimalString } from '../money/money.ts';
import type { MonthFigures, PortfolioPart } from './portfolio.ts';

export const RISK_COLUMNS = [
  'name',
  'active',
  'outstanding',
  'outstanding_total',
  'par1',
  'par30',
  'par60',
  'par90',
  'par1_amount',
  'par30_amount',
  'par60_amount',
  'par90_amount',
  'disbursed_count',
  'disbursed',
  'written_off_count',
  'written_off',
  'collected',
  'yield',
] as const;
export type RiskColumn = (typeof RISK_COLUMNS)[number];
export type RiskCell =
  | { kind: 'text'; value: string | null }
  | { kind: 'count'; value: number }
  | { kind: 'money'; value: bigint }
  | { kind: 'rate'; value: number | null };

export function riskCell(part: PortfolioPart, column: RiskColumn): RiskCell {
  const f = part.figures;
  switch (column) {
    case 'name':
      return { kind: 'text', value: part.name };
    case 'active':
      return { kind: 'count', value: f.activeLoans };
    case 'outstanding':
      return { kind: 'money', value: f.outstandingPrincipal };
    case 'outstanding_total':
      return { kind: 'money', value: f.outstandingTotal };
    case 'par1':
    case 'par30':
    case 'par60':
    case 'par90':
      return { kind: 'rate', value: f.par[Number(column.slice(3)) as 1 | 30 | 60 | 90].rate };
    case 'par1_amount':
    case 'par30_amount':
    case 'par60_amount':
    case 'par90_amount':
      return { kind: 'money', value: f.par[Number(column.slice(3, -7)) as 1 | 30 | 60 | 90].amount };
    case 'disbursed_count':
      return { kind: 'count', value: f.disbursed.count };
    case 'disbursed':
      return { kind: 'money', value: f.disbursed.amount };
    case 'written_off_count':
      return { kind: 'count', value: f.writtenOff.count };
    case 'written_off':
      return { kind: 'money', value: f.writtenOff.principal };
    case 'collected':
      return { kind: 'money', value: f.collected };
    case 'yield':
      return { kind: 'rate', value: part.yield };
  }
}

export type RiskSort = { key: RiskColumn; dir: 'asc' | 'desc' };

/** `sort=key` or `sort=-key`; anything else → by principal outstanding, largest first. */
export function parseRiskSort(raw: string | null): RiskSort {
  const key = (raw ?? '').replace(/^-/, '');
  if (!(RISK_COLUMNS as readonly string[]).includes(key)) return { key: 'outstanding', dir: 'desc' };
  return { key: key as RiskColumn, dir: raw!.startsWith('-') ? 'desc' : 'asc' };
}

export function sortParts(parts: readonly PortfolioPart[], sort: RiskSort, noName: string): PortfolioPart[] {
  const sign = sort.dir === 'asc' ? 1 : -1;
  const value = (p: PortfolioPart): string | number | bigint => {
    const c = riskCell(p, sort.key);
    if (c.kind === 'text') return c.value ?? noName;
    return c.value ?? -1;
  };
  return [...parts].sort((a, b) => {
    const x = value(a);
    const y = value(b);
    const order =
      typeof x === 'string' || typeof y === 'string' ? String(x).localeCompare(String(y)) : x < y ? -1 : x > y ? 1 : 0;
    return order * sign || (a.name ?? '').localeCompare(b.name ?? '');
  });
}

/** The table as shown (its rows and a total line): amounts as exact decimals, rates as fractions. */
export function riskExportTable(
  parts: readonly PortfolioPart[],
  total: PortfolioPart,
  headers: Record<RiskColumn, string>,
  currency: string,
  labels: { noName: string; total: string },
): ExportTable {
  const row = (p: PortfolioPart, name: string): ExportValue[] =>
    RISK_COLUMNS.map((column) => {
      const c = riskCell(p, column);
      if (c.kind === 'text') return name;
      if (c.kind === 'money') return { decimal: toDecimalString(fromMinor(c.value, currency)) };
      return c.value;
    });
  return {
    headers: RISK_COLUMNS.map((k) => headers[k]),
    rows: [...parts.map((p) => row(p, p.name ?? labels.noName)), row(total, labels.total)],
  };
}

export const TREND_COLUMNS = [
  'month',
  'active',
  'outstanding',
  'par1',
  'par30',
  'par60',
  'par90',
  'disbursed_count',
  'disbursed',
  'collected',
  'income',
  'written_off_count',
  'written_off',
] as const;
export type TrendColumn = (typeof TREND_COLUMNS)[number];

/** The trend by month (the Overview's charts' numbers): amounts as exact decimals, rates as fractions. */
export function trendExportTable(
  months: readonly MonthFigures[],
  headers: Record<TrendColumn, string>,
  currency: string,
): ExportTable {
  const money = (minor: bigint | null): ExportValue =>
    minor === null ? null : { decimal: toDecimalString(fromMinor(minor, currency)) };
  return {
    headers: TREND_COLUMNS.map((k) => headers[k]),
    rows: months.map((m) => [
      m.month,
      m.activeLoans,
      money(m.outstandingPrincipal),
      m.par[1].rate,
      m.par[30].rate,
      m.par[60].rate,
      m.par[90].rate,
      m.disbursed.count,
      money(m.disbursed.amount),
      money(m.collected),
      money(m.income),
      m.writtenOff.count,
      money(m.writtenOff.principal),
    ]),
  };
}
