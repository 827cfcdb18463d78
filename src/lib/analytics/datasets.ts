import { z } from 'zod';
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
