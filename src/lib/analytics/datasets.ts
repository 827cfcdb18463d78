import { z } from 'zod';
import { allowedActions } from '../auth/allowed-actions.ts';
import type { PermissionSubject } from '../auth/permissions.ts';
import { AppError } from '../errors/app-error.ts';
import { columnOf, type ListDef, type TabDef } from '../lists/definition.ts';
import { LISTS } from '../lists/registry.ts';
import { defaultListState, parseFilter, parseSort, type ListState } from '../lists/url-state.ts';
import { parseScope } from '../tenancy/scope.ts';
import { transactionsDataset } from './transactions-dataset.ts';

/**
 * The datasets of the analytics section: every server-side list of the loans workspace (./lists
 * registry, the same definitions, so a query means the same rows as the list page) plus loan
 * transactions, which have no list page. Queries (list-export queries), custom metrics and reports
 * read their rows through these definitions and the lists machinery (src/lib/lists/query.ts): the
 * same filters, sorts, paging, counts, exports and the viewer's row scope.
 *
 * Every dataset has an `all` tab (every row); a list whose tabs all select a part of the rows gets
 * one added here, after its own tabs, so its default tab (and therefore its list pages' links and
 * exports) stays the same.
 */

export type Dataset = {
  name: string;
  def: ListDef;
  /** i18n key of the dataset's name. */
  labelKey: string;
};

/** Name of the tab of every row, in every dataset. */
export const ALL_TAB = 'all';

const allTab: TabDef = { name: ALL_TAB, label: 'queries:tabs.all', help: 'queries:tabs.allHelp', where: null };

function withAllTab(def: ListDef): ListDef {
  const own = def.tabs.find((t) => t.name === ALL_TAB);
  if (own) {
    if (own.where !== null) throw new Error(`list ${def.name}: tab ${ALL_TAB} must select every row`);
    return def;
  }
  return { ...def, tabs: [...def.tabs, allTab] };
}

/** The dataset names, in the order the query editor offers them. */
export const DATASET_NAMES = [
  'customers',
  'offers',
  'loans',
  'payments',
  'collaterals',
  'applications',
  'transactions',
] as const;
export type DatasetName = (typeof DATASET_NAMES)[number];

export const DATASETS: Readonly<Record<DatasetName, Dataset>> = Object.fromEntries(
  DATASET_NAMES.map((name) => {
    const def = name === 'transactions' ? transactionsDataset : LISTS[name]!.def;
    return [name, { name, def: withAllTab(def), labelKey: `queries:datasets.${name}` }];
  }),
) as Record<DatasetName, Dataset>;

/**
 * The list page whose readers may read a dataset: a query, metric or report over a list shows that
 * list's rows or totals, so it needs what opening the list needs (the registry's rule: whoever may open
 * a list's page may read and export it). Loan transactions are read by those who may open payments.
 */
const DATASET_PAGE: Readonly<Record<DatasetName, string>> = {
  customers: LISTS.customers!.path,
  offers: LISTS.offers!.path,
  loans: LISTS.loans!.path,
  payments: LISTS.payments!.path,
  collaterals: LISTS.collaterals!.path,
  applications: LISTS.applications!.path,
  transactions: LISTS.payments!.path,
};

/** Whether the subject may read the dataset (see DATASET_PAGE); an unknown dataset is never allowed. */
export function mayReadDataset(subject: PermissionSubject, name: string): boolean {
  const dataset = findDataset(name);
  if (!dataset) return false;
  return allowedActions(subject, 'list', { path: DATASET_PAGE[dataset.name as DatasetName], hasCustomViews: false })
    .open;
}

/** 403 naming `field` when the subject may not read the dataset (its list page is closed to them). */
export function assertMayReadDataset(subject: PermissionSubject, name: string, field = 'dataset'): void {
  if (findDataset(name) && !mayReadDataset(subject, name))
    throw new AppError('FORBIDDEN', `You may not read the ${name} list, so not query it either.`, { field });
}

export function findDataset(name: string): Dataset | undefined {
  return Object.hasOwn(DATASETS, name) ? DATASETS[name as DatasetName] : undefined;
}

/**
 * The definition a list export job resolves by name: a dataset (a list with its `all` tab, or
 * transactions). Same default tab as the list, so the list pages' exports are unchanged.
 */
export function resolveDatasetDef(name: string): ListDef | undefined {
  return findDataset(name)?.def;
}

/**
 * A query over a dataset, as saved (saved_queries.definition), sent to the API and carried in the
 * results page's URL. Filters, sort and scope use the list URL's forms (src/lib/lists/url-state.ts):
 * `filters: { "days_past_due": "1..", "status": "ACTIVE,CLOSED_OBLIGATIONS_MET" }`, `sort: "-principal"`,
 * `scope: "branch:<uuid>"`. `tab` is one of the dataset's tabs (`all` by default); `columns` empty
 * means the dataset's default columns.
 */
export const queryDefinitionSchema = z.object({
  dataset: z.string().min(1).max(64),
  tab: z.string().max(64).nullable().default(null),
  filters: z.record(z.string().max(64), z.string().max(200)).default({}),
  columns: z.array(z.string().max(64)).max(60).default([]),
  sort: z.string().max(70).nullable().default(null),
  scope: z.string().max(120).nullable().default(null),
});
export type QueryDefinition = z.output<typeof queryDefinitionSchema>;
export type QueryDefinitionInput = z.input<typeof queryDefinitionSchema>;

function unprocessable(field: string, message: string): AppError {
  return new AppError('UNPROCESSABLE', `${field}: ${message}`, { field });
}

/**
 * Checks a definition against its dataset: an unknown dataset, tab, column, filter (or a value that
 * does not fit the filter), sort or scope is a 422 naming the field (`dataset`, `columns.2`,
 * `filters.status`, `sort`, `scope`…). `def` is the dataset's definition to check against (default
 * the registered one; pass the one with the tenant's customized-field columns to allow those).
 */
export function validateQueryDefinition(
  raw: unknown,
  def?: ListDef,
): { definition: QueryDefinition; dataset: Dataset } {
  const parsed = queryDefinitionSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.map(String).join('.') || 'definition';
    throw unprocessable(field, issue.message);
  }
  const definition = parsed.data;
  const dataset = findDataset(definition.dataset);
  if (!dataset) throw unprocessable('dataset', `unknown dataset ${definition.dataset}`);
  const listDef = def ?? dataset.def;
  if (definition.tab !== null && !listDef.tabs.some((t) => t.name === definition.tab))
    throw unprocessable('tab', `unknown tab ${definition.tab}`);
  definition.columns.forEach((key, i) => {
    if (!columnOf(listDef, key)) throw unprocessable(`columns.${i}`, `unknown column ${key}`);
  });
  definition.columns = [...new Set(definition.columns)];
  for (const [key, value] of Object.entries(definition.filters)) {
    const column = columnOf(listDef, key);
    if (!column) throw unprocessable(`filters.${key}`, `unknown column ${key}`);
    if (!column.filter) throw unprocessable(`filters.${key}`, `column ${key} cannot be filtered`);
    if (!parseFilter(listDef, key, value)) throw unprocessable(`filters.${key}`, `invalid value for ${key}`);
  }
  if (definition.sort !== null && !parseSort(listDef, definition.sort))
    throw unprocessable('sort', `cannot sort by ${definition.sort}`);
  if (definition.scope !== null) {
    try {
      if (!parseScope(definition.scope)) throw new Error('empty');
    } catch {
      throw unprocessable('scope', 'scope must look like branch:<id>');
    }
  }
  return { definition, dataset: { ...dataset, def: listDef } };
}

/**
 * The list state of a (validated) definition: what the lists machinery pages, counts and exports.
 * `page`, `cursor` and `limit` come from the caller (the results page's URL).
 */
export function definitionState(def: ListDef, definition: QueryDefinition): ListState {
  const state = defaultListState(def);
  state.tab = definition.tab ?? ALL_TAB;
  const sort = parseSort(def, definition.sort);
  if (sort) state.sort = sort;
  for (const [key, value] of Object.entries(definition.filters)) {
    const filter = parseFilter(def, key, value);
    if (filter) state.filters[key] = filter;
  }
  state.columns = definition.columns.length ? [...definition.columns] : null;
  state.scope = definition.scope ? parseScope(definition.scope) : null;
  return state;
}

/**
 * A definition read from a URL or a posted editor form (not yet validated): `dataset`, `tab`,
 * `sort` (`-key` for descending, or `sort=key&dir=desc`), `scope`, columns as `cols=a,b` or repeated
 * `col=a` checkboxes ordered by `order.<key>` numbers, and filters as `f.<key>=<url form>` or the
 * editor's parts: repeated `f.<key>` checkboxes (enum), `f.<key>.from`/`.to` (dates),
 * `f.<key>.min`/`.max` (amounts, numbers). Empty fields are left out.
 */
export function definitionFromParams(params: URLSearchParams): QueryDefinitionInput {
  const filters: Record<string, string> = {};
  const parts: Record<string, Partial<Record<'from' | 'to' | 'min' | 'max', string>>> = {};
  for (const name of new Set(params.keys())) {
    if (!name.startsWith('f.')) continue;
    const rest = name.slice(2);
    const part = /^(.+)\.(from|to|min|max)$/.exec(rest);
    if (part) {
      const value = (params.get(name) ?? '').trim();
      if (value) (parts[part[1]!] ??= {})[part[2] as 'from'] = value;
      continue;
    }
    const values = params
      .getAll(name)
      .map((v) => v.trim())
      .filter(Boolean);
    if (values.length) filters[rest] = values.join(',');
  }
  for (const [key, p] of Object.entries(parts)) {
    const low = p.from ?? p.min ?? '';
    const high = p.to ?? p.max ?? '';
    if (low || high) filters[key] = `${low}..${high}`;
  }
  let columns: string[];
  if (params.has('cols')) {
    columns = (params.get('cols') ?? '')
      .split(',')
      .map((c) => c.trim())
      .filter(Boolean);
  } else {
    const chosen = params.getAll('col').filter(Boolean);
    const order = (key: string) => {
      const n = Number(params.get(`order.${key}`));
      return Number.isFinite(n) && params.get(`order.${key}`)?.trim() ? n : Number.MAX_SAFE_INTEGER;
    };
    columns = chosen
      .map((key, i) => ({ key, i, n: order(key) }))
      .sort((a, b) => a.n - b.n || a.i - b.i)
      .map((c) => c.key);
  }
  const rawSort = params.get('sort')?.trim() || null;
  const sort =
    rawSort && params.get('dir') === 'desc' && !rawSort.startsWith('-')
      ? `-${rawSort}`
      : rawSort && params.get('dir') === 'asc'
        ? rawSort.replace(/^-/, '')
        : rawSort;
  return {
    dataset: params.get('dataset')?.trim() ?? '',
    tab: params.get('tab')?.trim() || null,
    filters,
    columns,
    sort,
    scope: params.get('scope')?.trim() || null,
  };
}

/** A definition as URL parameters (the short forms above), in a fixed order, for links to its results. */
export function definitionParams(definition: QueryDefinition): URLSearchParams {
  const params = new URLSearchParams();
  params.set('dataset', definition.dataset);
  if (definition.tab) params.set('tab', definition.tab);
  for (const key of Object.keys(definition.filters).sort()) params.set(`f.${key}`, definition.filters[key]!);
  if (definition.columns.length) params.set('cols', definition.columns.join(','));
  if (definition.sort) params.set('sort', definition.sort);
  if (definition.scope) params.set('scope', definition.scope);
  return params;
}

/** The query string of a definition, keeping ',', ':' and '..' readable. */
export function definitionQuery(definition: QueryDefinition): string {
  return definitionParams(definition).toString().replace(/%2C/g, ',').replace(/%3A/g, ':');
}
