import type { Term } from '#lib/analytics/aggregate.ts';
import type { Metric, MetricType } from '#lib/analytics/metrics.ts';
import type { Report, ReportMeasure } from '#lib/analytics/reports.ts';

/**
 * The metric and report forms as plain HTML (they work without JavaScript): the posted fields read
 * into the commands' inputs, and a saved definition back into the fields. Filters are the dataset's
 * list URL filters, one input per filterable column named `<prefix>.<column>` ("1.." for a range).
 */

function filtersOf(form: FormData, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of form.entries()) {
    if (typeof value !== 'string' || !name.startsWith(`${prefix}.`)) continue;
    const v = value.trim();
    if (v) out[name.slice(prefix.length + 1)] = v;
  }
  return out;
}

const text = (form: FormData, name: string) => {
  const v = form.get(name);
  return typeof v === 'string' ? v.trim() : '';
};

export type TermValues = { fn: string; field: string; filters: Record<string, string> };
export type MetricFormValues = {
  name: string;
  labelEn: string;
  labelFr: string;
  dataset: string;
  filters: Record<string, string>;
  field: string;
  format: string;
  showOnBoard: boolean;
  numerator: TermValues;
  denominator: TermValues;
  expectedRevision: string;
};

export function emptyMetricValues(type: MetricType): MetricFormValues {
  return {
    name: '',
    labelEn: '',
    labelFr: '',
    dataset: 'loans',
    filters: {},
    field: '',
    format: type === 'ratio' ? 'percent' : type === 'count' ? 'number' : 'money',
    showOnBoard: false,
    numerator: { fn: 'sum', field: '', filters: {} },
    denominator: { fn: 'sum', field: '', filters: {} },
    expectedRevision: '',
  };
}

export function metricFormValues(form: FormData): MetricFormValues {
  const term = (prefix: string): TermValues => ({
    fn: text(form, `${prefix}_fn`) || 'count',
    field: text(form, `${prefix}_field`),
    filters: filtersOf(form, `${prefix}f`),
  });
  return {
    name: text(form, 'name'),
    labelEn: text(form, 'labelEn'),
    labelFr: text(form, 'labelFr'),
    dataset: text(form, 'dataset') || 'loans',
    filters: filtersOf(form, 'f'),
    field: text(form, 'field'),
    format: text(form, 'format'),
    showOnBoard: form.get('showOnBoard') === 'on',
    numerator: term('num'),
    denominator: term('den'),
    expectedRevision: text(form, 'expectedRevision'),
  };
}

export function metricValuesOf(metric: Metric): MetricFormValues {
  const term = (t: Term | null): TermValues => ({
    fn: t?.fn ?? 'count',
    field: t?.field ?? '',
    filters: { ...(t?.filters ?? {}) },
  });
  return {
    name: metric.name,
    labelEn: metric.labelEn,
    labelFr: metric.labelFr,
    dataset: metric.dataset,
    filters: { ...metric.filters },
    field: metric.field ?? '',
    format: metric.format,
    showOnBoard: metric.showOnBoard,
    numerator: term(metric.numerator),
    denominator: term(metric.denominator),
    expectedRevision: String(metric.revision),
  };
}

/** The save or preview command's input from the fields (terms only for a ratio, the column only for sum/average). */
export function metricInput(type: MetricType, values: MetricFormValues) {
  const term = (v: TermValues) => ({ fn: v.fn, field: v.fn === 'count' ? null : v.field || null, filters: v.filters });
  return {
    type,
    name: values.name,
    labelEn: values.labelEn,
    labelFr: values.labelFr,
    dataset: values.dataset,
    filters: values.filters,
    field: type === 'sum' || type === 'average' ? values.field || null : null,
    numerator: type === 'ratio' ? term(values.numerator) : null,
    denominator: type === 'ratio' ? term(values.denominator) : null,
    format: values.format,
    showOnBoard: values.showOnBoard,
    ...(values.expectedRevision ? { expectedRevision: Number(values.expectedRevision) } : {}),
  };
}

export type ReportFormValues = {
  name: string;
  dataset: string;
  filters: Record<string, string>;
  rows: string;
  columns: string;
  /** One option value per measure slot: `count`, `sum:principal`, `metric:ratio/par30`; '' for an empty slot. */
  measures: string[];
  expectedRevision: string;
};

export const MEASURE_SLOTS = 4;

export function measureOption(m: ReportMeasure): string {
  return 'metric' in m ? `metric:${m.metric}` : m.fn === 'count' ? 'count' : `${m.fn}:${m.field ?? ''}`;
}

export function parseMeasureOption(value: string): ReportMeasure {
  if (value.startsWith('metric:')) return { metric: value.slice(7) };
  const [fn, field] = value.split(':');
  return fn === 'count' ? { fn: 'count' } : ({ fn, field: field ?? null } as ReportMeasure);
}

export function emptyReportValues(): ReportFormValues {
  return { name: '', dataset: 'loans', filters: {}, rows: '', columns: '', measures: ['count'], expectedRevision: '' };
}

export function reportFormValues(form: FormData): ReportFormValues {
  const measures = Array.from({ length: MEASURE_SLOTS }, (_, i) => text(form, `m${i}`));
  return {
    name: text(form, 'name'),
    dataset: text(form, 'dataset') || 'loans',
    filters: filtersOf(form, 'f'),
    rows: text(form, 'rows'),
    columns: text(form, 'columns'),
    measures,
    expectedRevision: text(form, 'expectedRevision'),
  };
}

export function reportValuesOf(report: Report): ReportFormValues {
  return {
    name: report.name,
    dataset: report.dataset,
    filters: { ...report.filters },
    rows: report.rows,
    columns: report.columns ?? '',
    measures: report.measures.map(measureOption),
    expectedRevision: String(report.revision),
  };
}

export function reportInput(values: ReportFormValues) {
  return {
    name: values.name,
    dataset: values.dataset,
    filters: values.filters,
    rows: values.rows,
    columns: values.columns || null,
    measures: values.measures.filter(Boolean).map(parseMeasureOption),
    ...(values.expectedRevision ? { expectedRevision: Number(values.expectedRevision) } : {}),
  };
}
