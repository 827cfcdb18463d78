import type { PermissionSubject } from '../auth/permissions.ts';
import { z } from 'zod';
import { auditActor, recordAudit } from '../audit/record-audit.ts';
import { need } from '../auth/permissions.ts';
import type { Tx } from '../db/index.ts';
import type { ReportsRow } from '../db/schema.generated.ts';
import { AppError } from '../errors/app-error.ts';
import { defineCommand } from '../http/command.ts';
import type { Actor } from '../lending/actor.ts';
import type { Scope, ScopeSubject } from '../tenancy/scope.ts';
import {
  aggregateDataset,
  parseDimension,
  parseFilters,
  rawFiltersSchema,
  resolveDataset,
  termColumn,
  type AggregateResult,
  type AggregateFn,
  type Measure,
} from './aggregate.ts';
import { findMetric, metricAsReportMeasure, valueJson, type Metric } from './metrics.ts';

/**
 * Tabular reports (migration 0941): a dataset with filters, grouped by a rows dimension and an
 * optional columns dimension (a pivot), with measures that are built-in aggregates or custom metrics
 * by name. Running one is a single aggregate (src/lib/analytics/aggregate.ts) with totals, through
 * the viewer's scope. Permissions: analytics.reports.view to read and run, analytics.reports.edit to
 * save and delete; the routes also need the plan feature `analytics_reports`.
 */

export const REPORT_FNS = ['count', 'sum', 'average', 'min', 'max'] as const;

/** A report measure as stored: a built-in aggregate or a custom metric `type/name`. */
export type ReportMeasure = { fn: AggregateFn; field?: string | null } | { metric: string };

export const reportMeasureSchema = z.union([
  z.object({ metric: z.string().regex(/^(count|sum|average|ratio)\/[a-z][a-z0-9_-]{0,59}$/) }).strict(),
  z.object({ fn: z.enum(REPORT_FNS), field: z.string().max(60).nullish() }).strict(),
]);

export const reportDefinitionSchema = z.object({
  name: z.string().trim().min(1).max(120),
  dataset: z.string().min(1).max(40),
  filters: rawFiltersSchema,
  rows: z.string().min(1).max(80),
  columns: z.string().max(80).nullish(),
  measures: z.array(reportMeasureSchema).min(1).max(8),
});
export type ReportDefinition = z.infer<typeof reportDefinitionSchema>;

export type Report = ReportDefinition & { id: string; revision: number; updatedAt: string };

function reportOf(row: ReportsRow): Report {
  return {
    id: row.id,
    name: row.name,
    dataset: row.dataset,
    filters: (row.filters ?? {}) as Record<string, string>,
    rows: row.rows_dimension,
    columns: row.columns_dimension,
    measures: row.measures as ReportMeasure[],
    revision: row.revision,
    updatedAt: new Date(row.updated_at as unknown as string).toISOString(),
  };
}

export function reportJson(report: Report) {
  return { ...report };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function listReports(tx: Tx): Promise<Report[]> {
  return (await tx.query<ReportsRow>(`select * from reports order by lower(name), id`)).map(reportOf);
}

export async function findReport(tx: Tx, id: string, lock = false): Promise<Report | null> {
  if (!UUID.test(id)) return null;
  const [row] = await tx.query<ReportsRow>(`select * from reports where id = $1${lock ? ' for update' : ''}`, [id]);
  return row ? reportOf(row) : null;
}

async function requireReport(tx: Tx, id: string, lock = false): Promise<Report> {
  const report = await findReport(tx, id, lock);
  if (!report) throw new AppError('NOT_FOUND', 'This report does not exist.');
  return report;
}

/** The report's measures as aggregate measures, with the custom metrics they name (400 naming `measures.<i>` when unknown). */
export async function resolveMeasures(
  tx: Tx,
  report: Pick<ReportDefinition, 'dataset' | 'measures'>,
): Promise<{ measures: Measure[]; metrics: (Metric | null)[] }> {
  const def = resolveDataset(report.dataset);
  const measures: Measure[] = [];
  const metrics: (Metric | null)[] = [];
  for (const [i, m] of report.measures.entries()) {
    const field = `measures.${i}`;
    if ('metric' in m) {
      const [type, name] = m.metric.split('/');
      const metric = await findMetric(tx, type ?? '', name ?? '');
      if (!metric) throw new AppError('BAD_REQUEST', `Unknown metric ${m.metric}`, { field });
      measures.push(metricAsReportMeasure(metric, report.dataset, field));
      metrics.push(metric);
    } else {
      const term = { fn: m.fn, field: m.fn === 'count' ? null : (m.field ?? null) };
      termColumn(def, term, field);
      measures.push({ kind: 'term', term });
      metrics.push(null);
    }
  }
  return { measures, metrics };
}

/** Checks a definition against its dataset and the tenant's metrics (400 naming the field). */
export async function checkReport(tx: Tx, input: ReportDefinition): Promise<ReportDefinition> {
  const def = resolveDataset(input.dataset);
  parseFilters(def, input.filters);
  const rows = parseDimension(def, input.rows, 'rows');
  const columns = input.columns ? parseDimension(def, input.columns, 'columns') : null;
  if (columns && columns.key === rows.key)
    throw new AppError('BAD_REQUEST', 'Rows and columns must differ', { field: 'columns' });
  await resolveMeasures(tx, input);
  return { ...input, rows: rows.key, columns: columns?.key ?? null };
}

export type ReportRun = AggregateResult & { metrics: (Metric | null)[] };

/** Runs a report for a viewer over their scope (data permissions ∩ `scope`): cells and totals. */
export async function runReport(
  tx: Tx,
  viewer: ScopeSubject & PermissionSubject,
  report: Pick<ReportDefinition, 'dataset' | 'filters' | 'rows' | 'columns' | 'measures'>,
  scope: Scope | null,
): Promise<ReportRun> {
  const { measures, metrics } = await resolveMeasures(tx, report);
  const result = await aggregateDataset(tx, viewer, {
    dataset: report.dataset,
    filters: report.filters,
    groupBy: report.columns ? [report.rows, report.columns] : [report.rows],
    measures,
    scope,
  });
  return { ...result, metrics };
}

// ── Commands ──

const saveInput = reportDefinitionSchema.extend({
  id: z.string().nullish(),
  expectedRevision: z.coerce.number().int().optional(),
});

export const saveReportCommand = defineCommand({
  action: 'report.save',
  objectType: 'report',
  permission: need('analytics.reports.edit'),
  input: saveInput,
  run: async (tx, actor: Actor, input) => {
    const checked = await checkReport(tx, input);
    const values = [
      checked.name,
      checked.dataset,
      JSON.stringify(checked.filters),
      checked.rows,
      checked.columns ?? null,
      JSON.stringify(checked.measures),
    ];
    let before: Report | null = null;
    let row: ReportsRow | undefined;
    if (input.id) {
      before = await requireReport(tx, input.id, true);
      // A change names the revision it was based on: without it, a save would silently overwrite someone else's.
      if (input.expectedRevision === undefined)
        throw new AppError('UNPROCESSABLE', 'expectedRevision is required to change a report.', {
          field: 'expectedRevision',
        });
      if (input.expectedRevision !== before.revision)
        throw new AppError('CONFLICT', 'This report was changed by someone else; review it and save again.', {
          field: 'expectedRevision',
          details: { code: 'stale_revision', revision: before.revision },
        });
      [row] = await tx.query<ReportsRow>(
        `update reports set name = $1, dataset = $2, filters = $3::jsonb, rows_dimension = $4, columns_dimension = $5,
                measures = $6::jsonb, revision = revision + 1, updated_at = now()
          where id = $7 returning *`,
        [...values, before.id],
      );
    } else {
      [row] = await tx.query<ReportsRow>(
        `insert into reports (name, dataset, filters, rows_dimension, columns_dimension, measures, tenant_id, created_by)
         values ($1, $2, $3::jsonb, $4, $5, $6::jsonb, $7, $8) returning *`,
        [...values, actor.tenantId, actor.userId],
      );
    }
    const report = reportOf(row!);
    await recordAudit(tx, {
      ...auditActor(actor),
      action: before ? 'report.update' : 'report.create',
      objectType: 'report',
      objectId: report.id,
      before: before ? reportJson(before) : null,
      after: reportJson(report),
      outcome: 'success',
    });
    return report;
  },
});

export const deleteReportCommand = defineCommand({
  action: 'report.delete',
  objectType: 'report',
  permission: need('analytics.reports.edit'),
  input: z.object({ id: z.string() }),
  run: async (tx, actor: Actor, { id }) => {
    const report = await requireReport(tx, id, true);
    await tx.query(`delete from reports where id = $1`, [report.id]);
    await recordAudit(tx, {
      ...auditActor(actor),
      action: 'report.delete',
      objectType: 'report',
      objectId: report.id,
      before: reportJson(report),
      outcome: 'success',
    });
    return report;
  },
});

/** A run as JSON: money as decimal strings per currency, counts and ratios as numbers. */
export function runJson(run: ReportRun) {
  return {
    dimensions: run.dimensions.map((d) => d.key),
    measureTypes: run.measureTypes,
    rows: run.rows.map((r) => ({
      keys: r.keys,
      totalOver: r.totalOver,
      currency: r.currency,
      values: r.values.map((v) => valueJson(v, r.currency)),
    })),
  };
}
