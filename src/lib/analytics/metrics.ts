import type { TFunction } from 'i18next';
import { z } from 'zod';
import { recordAudit, auditActor } from '../audit/record-audit.ts';
import { need, type PermissionSubject } from '../auth/permissions.ts';
import type { Tx } from '../db/index.ts';
import type { CustomMetricsRow } from '../db/schema.generated.ts';
import { AppError } from '../errors/app-error.ts';
import { defineCommand } from '../http/command.ts';
import type { Actor } from '../lending/actor.ts';
import { columnLabel, columnOf, optionLabel, type ListDef } from '../lists/definition.ts';
import { fromMinor, toDecimalString } from '../money/money.ts';
import type { Scope, ScopeSubject } from '../tenancy/scope.ts';
import { mayReadDataset } from './datasets.ts';
import {
  aggregateDataset,
  measureTypes,
  parseFilters,
  rawFiltersSchema,
  resolveDataset,
  termColumn,
  termSchema,
  type AggValue,
  type Measure,
  type RawFilters,
  type Term,
  type ValueType,
} from './aggregate.ts';

/**
 * Custom metrics (migration 0940): a named aggregate over a dataset with filters: count of rows, sum
 * or average of a column, or a ratio of two aggregates (each with its own extra filters, e.g.
 * outstanding of loans 30+ days late / outstanding). Shown on /analytics/metrics-config with a
 * preview, on the boards (`show_on_board`, loadBoardMetrics + MetricTiles.astro), and usable as a
 * report measure (`{ metric: "type/name" }`).
 *
 * Who may save: the spec names one guard for the area, `analytics.custom_metrics.view`, on the
 * configuration pages themselves, which are the editor. Saving, changing and deleting therefore need
 * that same key (pages and /v1 alike); a role without it neither sees nor changes metrics.
 */

export const METRIC_TYPES = ['count', 'sum', 'average', 'ratio'] as const;
export type MetricType = (typeof METRIC_TYPES)[number];
export const METRIC_FORMATS = ['number', 'money', 'percent'] as const;
export type MetricFormat = (typeof METRIC_FORMATS)[number];
export const METRICS_RULE = need('analytics.custom_metrics.view');

export function isMetricType(value: string | undefined): value is MetricType {
  return (METRIC_TYPES as readonly string[]).includes(value ?? '');
}

export type Metric = {
  id: string;
  type: MetricType;
  name: string;
  labelEn: string;
  labelFr: string;
  dataset: string;
  filters: Record<string, string>;
  field: string | null;
  numerator: Term | null;
  denominator: Term | null;
  format: MetricFormat;
  showOnBoard: boolean;
  revision: number;
};

export const metricDefinitionSchema = z.object({
  name: z
    .string()
    .trim()
    .regex(/^[a-z][a-z0-9_-]{0,59}$/, 'Lowercase letters, digits, - and _, starting with a letter'),
  labelEn: z.string().trim().min(1).max(120),
  labelFr: z.string().trim().min(1).max(120),
  dataset: z.string().min(1).max(40),
  filters: rawFiltersSchema,
  field: z.string().max(60).nullish(),
  numerator: termSchema.nullish(),
  denominator: termSchema.nullish(),
  format: z.enum(METRIC_FORMATS),
  showOnBoard: z.boolean().default(false),
});
export type MetricDefinition = z.infer<typeof metricDefinitionSchema>;

function metricOf(row: CustomMetricsRow): Metric {
  return {
    id: row.id,
    type: row.metric_type as MetricType,
    name: row.name,
    labelEn: row.label_en,
    labelFr: row.label_fr,
    dataset: row.dataset,
    filters: (row.filters ?? {}) as Record<string, string>,
    field: row.field,
    numerator: (row.numerator as Term | null) ?? null,
    denominator: (row.denominator as Term | null) ?? null,
    format: row.format as MetricFormat,
    showOnBoard: row.show_on_board,
    revision: row.revision,
  };
}

/** The measure a metric computes (its filters are the dataset's; terms keep their own extra filters). */
export function metricMeasure(metric: Pick<Metric, 'type' | 'field' | 'numerator' | 'denominator'>): Measure {
  switch (metric.type) {
    case 'count':
      return { kind: 'term', term: { fn: 'count' } };
    case 'sum':
    case 'average':
      return { kind: 'term', term: { fn: metric.type, field: metric.field } };
    case 'ratio':
      return { kind: 'ratio', numerator: metric.numerator!, denominator: metric.denominator! };
  }
}

/**
 * The metric as a measure of a report on `dataset` filtered by the report's own filters: the metric's
 * filters join each of its terms' own (a term's filter on the same column wins).
 */
export function metricAsReportMeasure(metric: Metric, dataset: string, field: string): Measure {
  if (metric.dataset !== dataset)
    throw new AppError(
      'BAD_REQUEST',
      `Metric ${metric.type}/${metric.name} is over ${metric.dataset}, not ${dataset}`,
      {
        field,
      },
    );
  const withFilters = (term: Term): Term => ({ ...term, filters: { ...metric.filters, ...(term.filters ?? {}) } });
  const measure = metricMeasure(metric);
  return measure.kind === 'term'
    ? { kind: 'term', term: withFilters(measure.term) }
    : { kind: 'ratio', numerator: withFilters(measure.numerator), denominator: withFilters(measure.denominator) };
}

/** Checks a definition against its dataset (400 naming the field) and normalises it for its type. */
export type CheckedMetric = Omit<MetricDefinition, 'field' | 'numerator' | 'denominator'> &
  Pick<Metric, 'type' | 'field' | 'numerator' | 'denominator'>;

export function checkMetric(type: MetricType, input: MetricDefinition): CheckedMetric {
  const def = resolveDataset(input.dataset);
  parseFilters(def, input.filters);
  const shaped: CheckedMetric = {
    ...input,
    type,
    field: type === 'sum' || type === 'average' ? (input.field ?? null) : null,
    numerator: type === 'ratio' ? (input.numerator ?? null) : null,
    denominator: type === 'ratio' ? (input.denominator ?? null) : null,
  };
  if ((type === 'sum' || type === 'average') && !shaped.field)
    throw new AppError('BAD_REQUEST', 'Choose the column to aggregate', { field: 'field' });
  if (type === 'ratio' && (!shaped.numerator || !shaped.denominator))
    throw new AppError('BAD_REQUEST', 'A ratio needs a numerator and a denominator', {
      field: shaped.numerator ? 'denominator' : 'numerator',
    });
  const measure = metricMeasure(shaped);
  if (measure.kind === 'ratio') {
    termColumn(def, measure.numerator, 'numerator');
    termColumn(def, measure.denominator, 'denominator');
    parseFilters(def, measure.numerator.filters ?? {}, 'numerator.filters');
    parseFilters(def, measure.denominator.filters ?? {}, 'denominator.filters');
  }
  const [valueType] = measureTypes(def, [measure]);
  const allowed: Record<ValueType, MetricFormat[]> = {
    count: ['number'],
    number: ['number'],
    money: ['money'],
    ratio: ['percent', 'number'],
  };
  if (!allowed[valueType].includes(input.format))
    throw new AppError('BAD_REQUEST', `A ${type} of this column is shown as ${allowed[valueType].join(' or ')}`, {
      field: 'format',
    });
  return shaped;
}

export async function listMetrics(tx: Tx): Promise<Metric[]> {
  const rows = await tx.query<CustomMetricsRow>(
    `select * from custom_metrics order by array_position(array['count','sum','average','ratio'], metric_type), name`,
  );
  return rows.map(metricOf);
}

export async function findMetric(tx: Tx, type: string, name: string): Promise<Metric | null> {
  const [row] = await tx.query<CustomMetricsRow>(`select * from custom_metrics where metric_type = $1 and name = $2`, [
    type,
    name,
  ]);
  return row ? metricOf(row) : null;
}

async function requireMetric(tx: Tx, type: string, name: string, lock = false): Promise<Metric> {
  const [row] = await tx.query<CustomMetricsRow>(
    `select * from custom_metrics where metric_type = $1 and name = $2${lock ? ' for update' : ''}`,
    [type, name],
  );
  if (!row) throw new AppError('NOT_FOUND', 'This metric does not exist.');
  return metricOf(row);
}

/** One value of a metric: per currency for money (a single entry otherwise). */
export type MetricValue = { currency: string | null; value: AggValue };

/** A metric's value for a viewer over their scope (data permissions ∩ `scope`). */
export async function metricValue(
  tx: Tx,
  viewer: ScopeSubject & PermissionSubject,
  metric: Pick<Metric, 'type' | 'dataset' | 'filters' | 'field' | 'numerator' | 'denominator'>,
  scope: Scope | null,
): Promise<MetricValue[]> {
  const result = await aggregateDataset(tx, viewer, {
    dataset: metric.dataset,
    filters: metric.filters,
    groupBy: [],
    measures: [metricMeasure(metric)],
    scope,
  });
  return result.rows.map((r) => ({ currency: r.currency, value: r.values[0] }));
}

/** A value as JSON: money as a decimal string, counts and ratios as numbers, other numbers as decimal strings. */
export function valueJson(value: AggValue, currency: string | null): string | number | null {
  if (value === null) return null;
  if (typeof value === 'bigint') return toDecimalString(fromMinor(value, currency ?? 'XXX'));
  return value;
}

export function metricJson(metric: Metric) {
  return {
    id: metric.id,
    type: metric.type,
    name: metric.name,
    labelEn: metric.labelEn,
    labelFr: metric.labelFr,
    dataset: metric.dataset,
    filters: metric.filters,
    field: metric.field,
    numerator: metric.numerator,
    denominator: metric.denominator,
    format: metric.format,
    showOnBoard: metric.showOnBoard,
    revision: metric.revision,
  };
}

export function valuesJson(values: MetricValue[]) {
  return values.map((v) => ({ currency: v.currency, value: valueJson(v.value, v.currency) }));
}

export type BoardMetric = { metric: Metric; values: MetricValue[] };

/** Metrics with their values for the viewer's scope (one aggregate each: a handful per tenant). */
export async function withValues(
  tx: Tx,
  viewer: ScopeSubject & PermissionSubject,
  metrics: readonly Metric[],
  scope: Scope | null,
): Promise<BoardMetric[]> {
  const out: BoardMetric[] = [];
  // A metric over a list the viewer may not open has no value for them (shown as "—").
  for (const metric of metrics)
    out.push({
      metric,
      values: mayReadDataset(viewer, metric.dataset) ? await metricValue(tx, viewer, metric, scope) : [],
    });
  return out;
}

/** The metrics shown on the boards (`show_on_board`) with their values for the viewer's scope. */
export async function loadBoardMetrics(
  tx: Tx,
  viewer: ScopeSubject & PermissionSubject,
  scope: Scope | null,
): Promise<BoardMetric[]> {
  return withValues(
    tx,
    viewer,
    (await listMetrics(tx)).filter((m) => m.showOnBoard && mayReadDataset(viewer, m.dataset)),
    scope,
  );
}

/**
 * A metric in words, without SQL: "Average of Principal, Loans where Days past due 1.. and Branch
 * contains North". `t` is the viewer's translator.
 */
export function explainMetric(
  t: TFunction,
  metric: Pick<Metric, 'type' | 'dataset' | 'filters' | 'field' | 'numerator' | 'denominator'>,
): string {
  const def = resolveDataset(metric.dataset);
  const dataset = t(`queries:datasets.${metric.dataset}`);
  const conditions = explainFilters(t, def, metric.filters);
  const base = conditions ? t('reports:explain.where', { dataset, conditions }) : dataset;
  const measure = metricMeasure(metric);
  if (measure.kind === 'ratio')
    return t('reports:explain.ratio', {
      numerator: explainTerm(t, def, measure.numerator),
      denominator: explainTerm(t, def, measure.denominator),
      base,
    });
  return t('reports:explain.of', { what: explainTerm(t, def, measure.term), base });
}

export function explainTerm(t: TFunction, def: ListDef, term: Term) {
  const column = term.field ? columnOf(def, term.field) : undefined;
  const what = t(`reports:fn.${term.fn}`, { column: column ? columnLabel(t, column) : '' });
  const extra = explainFilters(t, def, term.filters ?? {});
  return extra ? t('reports:explain.termWhere', { what, conditions: extra }) : what;
}

export function explainFilters(t: TFunction, def: ListDef, filters: RawFilters): string {
  return Object.entries(filters)
    .filter(([, v]) => v.trim() !== '')
    .map(([key, value]) => {
      const column = columnOf(def, key);
      if (!column) return `${key} ${value}`;
      const label = columnLabel(t, column);
      if (column.filter === 'enum')
        return t('reports:explain.isOneOf', {
          column: label,
          values: value
            .split(',')
            .map((v) => optionLabel(t, column, v.trim()))
            .join(', '),
        });
      if (column.filter === 'text') return t('reports:explain.contains', { column: label, value });
      const [min, max] = value.split('..');
      if (min && max) return t('reports:explain.between', { column: label, min, max });
      if (min) return t('reports:explain.atLeast', { column: label, value: min });
      if (max) return t('reports:explain.atMost', { column: label, value: max });
      return t('reports:explain.is', { column: label, value });
    })
    .join(t('reports:explain.and'));
}

// ── Commands ──

const saveInput = metricDefinitionSchema.extend({
  type: z.enum(METRIC_TYPES),
  /** The metric being changed (its current name); absent to create. */
  currentName: z.string().nullish(),
  expectedRevision: z.coerce.number().int().optional(),
});

async function usedByReports(tx: Tx, type: string, name: string): Promise<string[]> {
  const rows = await tx.query<{ name: string }>(`select name from reports where measures @> $1::jsonb order by name`, [
    JSON.stringify([{ metric: `${type}/${name}` }]),
  ]);
  return rows.map((r) => r.name);
}

/** Creates a metric, or changes one (stale revision → 409; renaming a metric reports use → 409). */
export const saveMetricCommand = defineCommand({
  action: 'custom_metric.save',
  objectType: 'custom_metric',
  permission: METRICS_RULE,
  input: saveInput,
  run: async (tx, actor: Actor, input) => {
    const checked = checkMetric(input.type, input);
    const values = [
      checked.type,
      checked.name,
      checked.labelEn,
      checked.labelFr,
      checked.dataset,
      JSON.stringify(checked.filters),
      checked.field,
      checked.numerator ? JSON.stringify(checked.numerator) : null,
      checked.denominator ? JSON.stringify(checked.denominator) : null,
      checked.format,
      checked.showOnBoard,
    ];
    const clash = await findMetric(tx, checked.type, checked.name);
    let before: Metric | null = null;
    let row: CustomMetricsRow | undefined;
    if (input.currentName) {
      before = await requireMetric(tx, input.type, input.currentName, true);
      // A change names the revision it was based on: without it, a save would silently overwrite someone else's.
      if (input.expectedRevision === undefined)
        throw new AppError('UNPROCESSABLE', 'expectedRevision is required to change a metric.', {
          field: 'expectedRevision',
        });
      if (input.expectedRevision !== before.revision)
        throw new AppError('CONFLICT', 'This metric was changed by someone else; review it and save again.', {
          field: 'expectedRevision',
          details: { code: 'stale_revision', revision: before.revision },
        });
      if (clash && clash.id !== before.id)
        throw new AppError('CONFLICT', 'A metric of this type already has this name.', { field: 'name' });
      if (before.name !== checked.name) {
        const reports = await usedByReports(tx, before.type, before.name);
        if (reports.length)
          throw new AppError('CONFLICT', `Reports use this metric by name: ${reports.join(', ')}`, { field: 'name' });
      }
      [row] = await tx.query<CustomMetricsRow>(
        `update custom_metrics set metric_type = $1, name = $2, label_en = $3, label_fr = $4, dataset = $5,
                filters = $6::jsonb, field = $7, numerator = $8::jsonb, denominator = $9::jsonb, format = $10,
                show_on_board = $11, revision = revision + 1, updated_at = now()
          where id = $12 returning *`,
        [...values, before.id],
      );
    } else {
      if (clash) throw new AppError('CONFLICT', 'A metric of this type already has this name.', { field: 'name' });
      [row] = await tx.query<CustomMetricsRow>(
        `insert into custom_metrics (metric_type, name, label_en, label_fr, dataset, filters, field, numerator, denominator,
                                     format, show_on_board, tenant_id, created_by)
         values ($1, $2, $3, $4, $5, $6::jsonb, $7, $8::jsonb, $9::jsonb, $10, $11, $12, $13) returning *`,
        [...values, actor.tenantId, actor.userId],
      );
    }
    const metric = metricOf(row!);
    await recordAudit(tx, {
      ...auditActor(actor),
      action: before ? 'custom_metric.update' : 'custom_metric.create',
      objectType: 'custom_metric',
      objectId: metric.id,
      before: before ? metricJson(before) : null,
      after: metricJson(metric),
      outcome: 'success',
    });
    return metric;
  },
});

/** Deletes a metric; refused (409) while a report uses it. */
export const deleteMetricCommand = defineCommand({
  action: 'custom_metric.delete',
  objectType: 'custom_metric',
  permission: METRICS_RULE,
  input: z.object({ type: z.string(), name: z.string() }),
  run: async (tx, actor: Actor, { type, name }) => {
    const metric = await requireMetric(tx, type, name, true);
    const reports = await usedByReports(tx, type, name);
    if (reports.length)
      throw new AppError('CONFLICT', `Reports use this metric: ${reports.join(', ')}`, { field: 'name' });
    await tx.query(`delete from custom_metrics where id = $1`, [metric.id]);
    await recordAudit(tx, {
      ...auditActor(actor),
      action: 'custom_metric.delete',
      objectType: 'custom_metric',
      objectId: metric.id,
      before: metricJson(metric),
      outcome: 'success',
    });
    return metric;
  },
});

export { requireMetric };
