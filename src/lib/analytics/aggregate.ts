import { z } from 'zod';
import type { Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { columnOf, type Bind, type ColumnDef, type ListDef } from '../lists/definition.ts';
import { binder, filterPredicates, listWhere, noJit, type ListQueryOptions, type Sql } from '../lists/query.ts';
import { resolveRowScope } from '../lists/row-scope.ts';
import { defaultListState, parseFilter, type ParsedFilter } from '../lists/url-state.ts';
import { currencyDigits } from '../money/money.ts';
import type { Scope, ScopeSubject } from '../tenancy/scope.ts';
import { assertMayReadDataset, findDataset } from './datasets.ts';
import type { PermissionSubject } from '../auth/permissions.ts';

/**
 * Aggregates over an analytics dataset (a server-side list, src/lib/lists): the rows the list would
 * show for the same filters and the viewer's scope (the list's own WHERE building, query.ts
 * `listWhere`), grouped by up to two dimensions, with measures count / sum / average / min / max of a
 * numeric or money column and ratios of two of them. Each measure may carry its own extra filters
 * (`count(*) filter (where …)`), which is how a ratio such as "outstanding 30+ days / outstanding"
 * is one query. Every SQL fragment comes from the list definition; input only chooses column keys
 * (checked against the definition) and values (bound parameters).
 *
 * Money is summed per currency: when a measure reads a money column the rows are also grouped by the
 * row's currency, and sums come back as exact bigint minor units (never floats). Totals (per row, per
 * column and overall) come from the same statement through GROUPING SETS, so an average or a ratio's
 * total is the true one, not a sum of averages.
 */

export const AGGREGATE_FNS = ['count', 'sum', 'average', 'min', 'max'] as const;
export type AggregateFn = (typeof AGGREGATE_FNS)[number];
export const DATE_GRAINS = ['month', 'week', 'year'] as const;
export type DateGrain = (typeof DATE_GRAINS)[number];

/** Raw URL filter values by column key, as the list URL spells them (`{ "days_past_due": "1.." }`). */
export type RawFilters = Readonly<Record<string, string>>;

/** One aggregate: a function, its column (none for count), and optional extra filters of its own. */
export type Term = { fn: AggregateFn; field?: string | null; filters?: RawFilters };
export type Measure = { kind: 'term'; term: Term } | { kind: 'ratio'; numerator: Term; denominator: Term };

export const rawFiltersSchema = z.record(z.string().regex(/^[a-z][a-z0-9_]*$/), z.string().max(200)).default({});
export const termSchema = z.object({
  fn: z.enum(AGGREGATE_FNS),
  field: z.string().max(60).nullish(),
  filters: rawFiltersSchema.optional(),
});

/** What a measure's values are: a count, money (minor units per currency), a plain number, or a ratio (a fraction). */
export type ValueType = 'count' | 'money' | 'number' | 'ratio';
export type AggValue = number | bigint | string | null;

export type AggregateSpec = {
  dataset: string;
  filters: RawFilters;
  /** A tab of the list ('' or absent: every row of the list). */
  tab?: string;
  /** Up to two dimensions: a column key, or `<date column>:month|week|year`. */
  groupBy: readonly string[];
  measures: readonly Measure[];
  /** The board's `scope=level:id` (within the viewer's own data permissions). */
  scope: Scope | null;
};

export type AggregateRow = {
  /** One value per dimension (text; dates truncated as 'YYYY-MM-DD'); null for "no value". */
  keys: (string | null)[];
  /** Which dimensions this row adds up over: [] a cell; [1] the total of a row over the columns; [0, 1] the grand total. */
  totalOver: number[];
  /** The currency of the money measures of this row, null when no measure is money. */
  currency: string | null;
  values: AggValue[];
};

export type AggregateResult = {
  dimensions: { key: string; column: ColumnDef; grain: DateGrain | null }[];
  measureTypes: ValueType[];
  rows: AggregateRow[];
};

/** Groups beyond this many are refused (a pivot of thousands of rows is a list, not a report). */
export const MAX_GROUPS = 2_000;

/** The definition of an analytics dataset (./datasets.ts); 400 naming `dataset` when unknown. */
export function resolveDataset(name: string): ListDef {
  const def = findDataset(name)?.def;
  if (!def) throw new AppError('BAD_REQUEST', `Unknown dataset ${name}`, { field: 'dataset' });
  return def;
}

/** Whether reports may group by a column: enums, booleans, dates (truncated) and text columns the list marks groupable. */
export function isGroupable(column: ColumnDef): boolean {
  return column.type === 'enum' || column.type === 'boolean' || column.type === 'date' || Boolean(column.isGroupable);
}

/** Whether a column can be summed, averaged, minimised or maximised. */
export function isMeasurable(column: ColumnDef): boolean {
  return column.type === 'money' || column.type === 'number';
}

/** The dimension choices of a dataset: groupable columns, dates in each grain. */
export type DimensionChoice = { value: string; column: ColumnDef; grain: DateGrain | null };

export function dimensionChoices(def: ListDef): DimensionChoice[] {
  return def.columns
    .filter(isGroupable)
    .flatMap((column): DimensionChoice[] =>
      column.type === 'date'
        ? DATE_GRAINS.map((grain) => ({ value: `${column.key}:${grain}`, column, grain }))
        : [{ value: column.key, column, grain: null }],
    );
}

export function measurableColumns(def: ListDef): ColumnDef[] {
  return def.columns.filter(isMeasurable);
}

/** Reads a dimension reference against the definition; 400 naming `field` when it is not a groupable column. */
export function parseDimension(
  def: ListDef,
  ref: string,
  field: string,
): { key: string; column: ColumnDef; grain: DateGrain | null } {
  const [key, grain] = ref.split(':');
  const column = columnOf(def, key ?? '');
  if (!column || !isGroupable(column)) throw new AppError('BAD_REQUEST', `Cannot group by ${ref}`, { field });
  if (column.type === 'date') {
    const g = (grain ?? 'month') as DateGrain;
    if (!DATE_GRAINS.includes(g)) throw new AppError('BAD_REQUEST', `Unknown date grain ${grain}`, { field });
    return { key: `${column.key}:${g}`, column, grain: g };
  }
  if (grain !== undefined) throw new AppError('BAD_REQUEST', `Cannot group by ${ref}`, { field });
  return { key: column.key, column, grain: null };
}

/** Reads raw filters against the definition; 400 naming `filters.<key>` for a value that does not fit. */
export function parseFilters(def: ListDef, raw: RawFilters, field = 'filters'): Record<string, ParsedFilter> {
  const out: Record<string, ParsedFilter> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (value.trim() === '') continue;
    const parsed = parseFilter(def, key, value);
    if (!parsed) throw new AppError('BAD_REQUEST', `Bad filter ${key}=${value}`, { field: `${field}.${key}` });
    out[key] = parsed;
  }
  return out;
}

/** The column a term reads (none for count); 400 naming `field` when it is not a measurable column. */
export function termColumn(def: ListDef, term: Term, field: string): ColumnDef | null {
  if (term.fn === 'count') return null;
  const column = term.field ? columnOf(def, term.field) : undefined;
  if (!column || !isMeasurable(column))
    throw new AppError('BAD_REQUEST', `Cannot ${term.fn} ${term.field ?? '(no column)'}`, { field });
  return column;
}

export function termType(column: ColumnDef | null): ValueType {
  if (!column) return 'count';
  return column.type === 'money' ? 'money' : 'number';
}

/** A ratio of two aggregates as a fraction; null when the denominator is zero or missing. */
export function ratioOf(numerator: AggValue, denominator: AggValue): number | null {
  if (numerator === null || denominator === null) return null;
  const den = Number(denominator);
  if (den === 0 || !Number.isFinite(den)) return null;
  return Number(numerator) / den;
}

function aggregateSql(fn: AggregateFn, value: string, flag: string | null, isMoney: boolean): string {
  const filter = flag ? ` filter (where ${flag})` : '';
  switch (fn) {
    case 'count':
      return `(count(*)${filter})::text`;
    case 'sum':
      return `coalesce(sum(${value})${filter}, 0)::text`;
    case 'average':
      // Money averages are whole minor units (rounded half away from zero); numbers keep 4 decimals.
      return `round(avg(${value})${filter}, ${isMoney ? 0 : 4})::text`;
    case 'min':
      return `(min(${value})${filter})::text`;
    case 'max':
      return `(max(${value})${filter})::text`;
  }
}

type PlannedTerm = { term: Term; column: ColumnDef | null; filters: Record<string, ParsedFilter> };

function planTerm(def: ListDef, term: Term, field: string): PlannedTerm {
  return {
    term,
    column: termColumn(def, term, field),
    filters: parseFilters(def, term.filters ?? {}, `${field}.filters`),
  };
}

/**
 * Builds the statement (exported for the unit tests): an inner select of each row's dimension keys,
 * currency, measure inputs and measure filter flags under the list's WHERE, and an outer GROUP BY
 * GROUPING SETS giving cells and totals. Output columns: k0, k1, ccy, g0, g1 (grouping flags), a0….
 */
export function buildAggregateQuery(
  def: ListDef,
  spec: Omit<AggregateSpec, 'scope' | 'dataset'>,
  options: ListQueryOptions & { tenantCurrency: string },
): Sql & { dimensions: AggregateResult['dimensions']; terms: PlannedTerm[]; hasMoney: boolean } {
  if (spec.groupBy.length > 2) throw new AppError('BAD_REQUEST', 'At most two dimensions', { field: 'groupBy' });
  if (!spec.measures.length) throw new AppError('BAD_REQUEST', 'At least one measure', { field: 'measures' });
  const dimensions = spec.groupBy.map((ref, i) => parseDimension(def, ref, i === 0 ? 'rows' : 'columns'));
  if (dimensions.length === 2 && dimensions[0].key === dimensions[1].key)
    throw new AppError('BAD_REQUEST', 'Rows and columns must differ', { field: 'columns' });
  const terms: PlannedTerm[] = [];
  spec.measures.forEach((m, i) => {
    if (m.kind === 'term') terms.push(planTerm(def, m.term, `measures.${i}`));
    else {
      terms.push(planTerm(def, m.numerator, `measures.${i}.numerator`));
      terms.push(planTerm(def, m.denominator, `measures.${i}.denominator`));
    }
  });
  const moneyColumns = terms.map((t) => t.column).filter((c): c is ColumnDef => c?.type === 'money');
  const currencySqls = new Set(moneyColumns.map((c) => c.currencySql ?? ''));
  if (currencySqls.size > 1)
    throw new AppError('BAD_REQUEST', 'Money measures of different currencies cannot be combined', {
      field: 'measures',
    });
  const hasMoney = moneyColumns.length > 0;

  const params: unknown[] = [];
  const bind: Bind = binder(params);
  const state = { ...defaultListState(def), tab: spec.tab ?? '', filters: parseFilters(def, spec.filters) };
  const where = listWhere(def, state, options, bind);

  const inner: string[] = [];
  dimensions.forEach((d, i) => {
    const expr = d.grain ? `date_trunc('${d.grain}', (${d.column.sql})::date)::date::text` : `(${d.column.sql})::text`;
    inner.push(`${expr} as k${i}`);
  });
  if (hasMoney) {
    const ccy = moneyColumns[0].currencySql;
    inner.push(`${ccy ? `trim((${ccy})::text)` : `${bind(options.tenantCurrency)}::text`} as ccy`);
  }
  terms.forEach((t, i) => {
    if (t.column) inner.push(`(${t.column.sql})::numeric as v${i}`);
    const flags = filterPredicates(def, t.filters, bind, options.currencyDigits);
    if (flags.length) inner.push(`(${flags.join(' and ')}) as f${i}`);
  });
  if (!inner.length) inner.push('1 as one');

  const outer: string[] = [];
  const keys = dimensions.map((_, i) => `k${i}`);
  keys.forEach((k, i) => outer.push(`${k}, grouping(${k}) as g${i}`));
  if (hasMoney) outer.push('ccy');
  terms.forEach((t, i) => {
    const hasFlag = Object.keys(t.filters).length > 0 && inner.some((s) => s.endsWith(` as f${i}`));
    outer.push(`${aggregateSql(t.term.fn, `v${i}`, hasFlag ? `f${i}` : null, t.column?.type === 'money')} as a${i}`);
  });
  const always = hasMoney ? ['ccy'] : [];
  const sets =
    keys.length === 2
      ? [[...keys, ...always], [keys[0], ...always], [keys[1], ...always], always]
      : keys.length === 1
        ? [[keys[0], ...always], always]
        : [always];
  const groupBy = `group by grouping sets (${sets.map((s) => `(${s.join(', ')})`).join(', ')})`;
  const order = [...keys.map((k, i) => `g${i}, ${k} nulls last`), ...(hasMoney ? ['ccy'] : [])];
  const text =
    `select ${outer.join(', ')} from (select ${inner.join(', ')} from ${def.from}` +
    (where.length ? ` where ${where.join(' and ')}` : '') +
    `) s ${groupBy}` +
    (order.length ? ` order by ${order.join(', ')}` : '') +
    ` limit ${bind(MAX_GROUPS * 4 + 1)}`;
  return { text, params, dimensions, terms, hasMoney };
}

function valueOf(type: ValueType, raw: unknown): AggValue {
  if (raw === null || raw === undefined) return null;
  const text = String(raw);
  if (type === 'count') return Number(text);
  if (type === 'money') return BigInt(text.replace(/\.0+$/, ''));
  // Numbers stay decimal strings ("12.5000" → "12.5"): exact, formatted by the page.
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

/** The value types of measures (ratio for ratios, else the term's). */
export function measureTypes(def: ListDef, measures: readonly Measure[]): ValueType[] {
  return measures.map((m, i) => (m.kind === 'ratio' ? 'ratio' : termType(termColumn(def, m.term, `measures.${i}`))));
}

/**
 * Runs an aggregate for a viewer inside the caller's tenant transaction: the dataset's rows under the
 * filters and the viewer's scope (data permissions ∩ `scope`), grouped and measured.
 */
export async function aggregateDataset(
  tx: Tx,
  viewer: ScopeSubject & PermissionSubject,
  spec: AggregateSpec,
): Promise<AggregateResult> {
  const def = resolveDataset(spec.dataset);
  assertMayReadDataset(viewer, spec.dataset);
  const [tenant] = await tx.query<{ business_date: string; currency: string }>(
    `select business_date::text as business_date, trim(currency) as currency from tenants where id = app_tenant()`,
  );
  if (!tenant) throw new AppError('NOT_FOUND', 'Unknown tenant');
  const rowScope = await resolveRowScope(tx, viewer, spec.scope);
  const query = buildAggregateQuery(def, spec, {
    businessDate: tenant.business_date,
    currencyDigits: currencyDigits(tenant.currency),
    rowScope,
    tenantCurrency: tenant.currency,
  });
  await noJit(tx);
  const raw = await tx.query<Record<string, unknown>>(query.text, query.params);
  if (raw.length > MAX_GROUPS * 4)
    throw new AppError('BAD_REQUEST', `More than ${MAX_GROUPS} groups: choose a coarser dimension or filter`, {
      field: 'rows',
    });
  const types = query.terms.map((t) => termType(t.column));
  const rows: AggregateRow[] = raw.map((r) => {
    const termValues = query.terms.map((_, i) => valueOf(types[i], r[`a${i}`]));
    const values: AggValue[] = [];
    let j = 0;
    for (const m of spec.measures) {
      if (m.kind === 'term') values.push(termValues[j++]);
      else {
        values.push(ratioOf(termValues[j], termValues[j + 1]));
        j += 2;
      }
    }
    return {
      keys: query.dimensions.map((_, i) =>
        r[`k${i}`] === null || r[`k${i}`] === undefined ? null : String(r[`k${i}`]),
      ),
      totalOver: query.dimensions.flatMap((_, i) => (Number(r[`g${i}`]) === 1 ? [i] : [])),
      currency: query.hasMoney ? String(r.ccy ?? tenant.currency) : null,
      values,
    };
  });
  return { dimensions: query.dimensions, measureTypes: measureTypes(def, spec.measures), rows };
}
