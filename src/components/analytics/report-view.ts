import type { TFunction } from 'i18next';
import type { AggregateResult, AggValue, ValueType } from '#lib/analytics/aggregate.ts';
import type { ExportTable, ExportValue } from '#lib/exports/table-download.ts';
import { optionLabel } from '#lib/lists/definition.ts';
import { formatDate, formatNumber } from '#lib/i18n/format.ts';
import type { Language } from '#lib/i18n/index.ts';
import { formatMoney, fromMinor, toDecimalString } from '#lib/money/money.ts';

/**
 * Page helpers of metrics and reports (no SQL): values in the viewer's language, dimension labels,
 * and the pivot of a report run (cells, row and column totals, grand total) as rows ready for the
 * table, the chart and the CSV/XLSX download.
 */

export type MeasureHead = { label: string; type: ValueType; percent: boolean };

export function formatValue(
  value: AggValue,
  type: ValueType,
  currency: string | null,
  language: Language,
  percent = type === 'ratio',
): string {
  if (value === null) return '—';
  if (type === 'money' && typeof value === 'bigint') return formatMoney(fromMinor(value, currency ?? 'XXX'), language);
  if (percent) return formatNumber(Number(value), language, { style: 'percent', maximumFractionDigits: 1 });
  if (type === 'ratio') return formatNumber(Number(value), language, { maximumFractionDigits: 4 });
  return formatNumber(Number(value), language, { maximumFractionDigits: 2 });
}

/** A value for the download: money as an exact decimal, ratios as fractions, counts as numbers. */
export function exportValue(value: AggValue, type: ValueType, currency: string | null): ExportValue {
  if (value === null) return null;
  if (type === 'money' && typeof value === 'bigint')
    return { decimal: toDecimalString(fromMinor(value, currency ?? 'XXX')) };
  if (typeof value === 'string') return { decimal: value };
  return Number(value);
}

/** A dimension value in words: an enum's label, a month as 03/2026, a year, a week's first day; none → "(none)". */
export function keyLabel(
  t: TFunction,
  language: Language,
  dimension: AggregateResult['dimensions'][number],
  key: string | null,
): string {
  if (key === null) return t('reports:none');
  if (dimension.grain === 'year') return key.slice(0, 4);
  if (dimension.grain === 'month') return language === 'fr' ? `${key.slice(5, 7)}/${key.slice(0, 4)}` : key.slice(0, 7);
  if (dimension.grain === 'week') return formatDate(key, language);
  if (dimension.column.type === 'boolean') return t(key === 'true' ? 'reports:yes' : 'reports:no');
  if (dimension.column.type === 'enum') return optionLabel(t, dimension.column, key);
  return key;
}

export type PivotRow = { label: string; currency: string | null; cells: AggValue[][]; total: AggValue[] };
export type Pivot = {
  columns: { key: string | null; label: string }[];
  rows: PivotRow[];
  totals: PivotRow[];
  /** Whether rows show their currency (more than one currency in the result). */
  showCurrency: boolean;
};

/**
 * The pivot of a run: one row per rows-dimension value (and currency), one column group per
 * columns-dimension value (a single unnamed group without one), totals from the query's grouping sets.
 */
export function buildPivot(t: TFunction, language: Language, run: AggregateResult): Pivot {
  const [rowDim, colDim] = run.dimensions;
  const width = run.measureTypes.length;
  const empty = () => Array.from({ length: width }, (): AggValue => null);
  const currencies = new Set(run.rows.map((r) => r.currency));
  const showCurrency = currencies.size > 1;
  const columnKeys: (string | null)[] = [];
  if (colDim)
    for (const r of run.rows)
      if (r.totalOver.length === 1 && r.totalOver[0] === 0 && !columnKeys.includes(r.keys[1]!))
        columnKeys.push(r.keys[1]!);
  const columns = colDim
    ? columnKeys.map((key) => ({ key, label: keyLabel(t, language, colDim, key) }))
    : [{ key: null, label: '' }];
  const rows = new Map<string, PivotRow>();
  const totals = new Map<string, PivotRow>();
  const rowOf = (map: Map<string, PivotRow>, id: string, label: string, currency: string | null) => {
    let row = map.get(id);
    if (!row) {
      row = { label, currency, cells: columns.map(() => empty()), total: empty() };
      map.set(id, row);
    }
    return row;
  };
  for (const r of run.rows) {
    const over = r.totalOver;
    const ccy = r.currency;
    if (rowDim && !over.includes(0)) {
      const row = rowOf(rows, `${r.keys[0]}\u0000${ccy}`, keyLabel(t, language, rowDim, r.keys[0]), ccy);
      if (!colDim || over.includes(1)) row.total = r.values;
      else row.cells[columnKeys.indexOf(r.keys[1])] = r.values;
    } else {
      const row = rowOf(totals, `${ccy}`, t('reports:total'), ccy);
      if (!colDim || over.includes(1)) row.total = r.values;
      else row.cells[columnKeys.indexOf(r.keys[1])] = r.values;
    }
  }
  return { columns, rows: [...rows.values()], totals: [...totals.values()], showCurrency };
}

/** The pivot as a download: one header per (column value × measure), then the totals. */
export function pivotTable(
  pivot: Pivot,
  words: { rows: string; currency: string; total: string },
  measures: MeasureHead[],
  hasColumns: boolean,
): ExportTable {
  const headers = [words.rows, words.currency];
  if (hasColumns) for (const c of pivot.columns) for (const m of measures) headers.push(`${c.label} · ${m.label}`);
  for (const m of measures) headers.push(hasColumns ? `${words.total} · ${m.label}` : m.label);
  const line = (row: PivotRow): ExportValue[] => [
    row.label,
    row.currency,
    ...(hasColumns
      ? row.cells.flatMap((cell) => cell.map((v, i) => exportValue(v, measures[i]!.type, row.currency)))
      : []),
    ...row.total.map((v, i) => exportValue(v, measures[i]!.type, row.currency)),
  ];
  return { headers, rows: [...pivot.rows.map(line), ...pivot.totals.map(line)] };
}
