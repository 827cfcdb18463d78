import { z } from 'zod';
import { formatScope, parseScope, type Scope } from '../tenancy/scope.ts';
import { columnOf, type ListDef } from './definition.ts';
import { decodeCursor } from './query.ts';

/**
 * A list's state as it lives in the URL, so a view can be bookmarked and shared:
 *
 *   ?tab=overdue&sort=-amount&q=dupont&f.status=active,closed&f.amount=100..500
 *   &cols=name,phone,amount&limit=25&page=2
 *   &cursor=<opaque>        (keyset paging: where the page starts; `page` then only numbers it)
 *   &scope=branch:<uuid>&view=<custom view id>
 *
 * Parsing never fails: anything invalid or unknown falls back to the list's default, and the
 * dropped parameters are reported in `issues` (the JSON API answers them as a 400; pages ignore
 * them), so an old bookmark or a hand-edited link still opens.
 */

export const PAGE_SIZES = [10, 25, 50, 100] as const;
export const DEFAULT_PAGE_SIZE = 25;
/** Deep offsets are slow and pointless in a UI; keyset paging has no such limit. */
export const MAX_PAGE = 2_000;
export const MAX_SEARCH_LENGTH = 100;

/** The hierarchy filter (`scope=level:id`), parsed by src/lib/tenancy/scope.ts. */
export type ScopeParam = Scope;

export type ParsedFilter =
  | { kind: 'text'; value: string }
  | { kind: 'enum'; values: string[] }
  | { kind: 'date-range'; from: string | null; to: string | null }
  | { kind: 'money-range'; min: string | null; max: string | null }
  | { kind: 'number-range'; min: string | null; max: string | null }
  | { kind: 'boolean'; value: boolean };

export type ListState = {
  tab: string;
  sort: { key: string; dir: 'asc' | 'desc' };
  filters: Record<string, ParsedFilter>;
  q: string;
  /** Chosen columns, or null for the list's defaults. */
  columns: string[] | null;
  /** 1-based page for offset paging. */
  page: number;
  /** Opaque keyset cursor; when set (and the sort allows a keyset) it decides the rows, `page` only numbers them. */
  cursor: string | null;
  limit: number;
  scope: ScopeParam | null;
  /** The custom view the state came from, if any. */
  view: string | null;
};

export type StateIssue = { param: string; message: string };

/** The list URL's parameters besides the `f.<column>` filters (see the comment above). */
const SINGLE_PARAMS = ['tab', 'sort', 'q', 'cols', 'limit', 'page', 'cursor', 'scope', 'view'] as const;

const dateSchema = z.iso.date();
const decimalSchema = z.string().regex(/^-?\d{1,15}(\.\d{1,6})?$/);
const uuidSchema = z.uuid();

export function defaultListState(def: ListDef): ListState {
  return {
    tab: def.defaultTab,
    sort: { ...def.defaultSort },
    filters: {},
    q: '',
    columns: null,
    page: 1,
    cursor: null,
    limit: DEFAULT_PAGE_SIZE,
    scope: null,
    view: null,
  };
}

function splitRange(raw: string): [string | null, string | null] | null {
  const parts = raw.split('..');
  if (parts.length !== 2) return null;
  const [a, b] = parts.map((p) => (p.trim() === '' ? null : p.trim()));
  if (a === null && b === null) return null;
  return [a ?? null, b ?? null];
}

/** Parses one filter value for a column; null when the value does not fit the column's filter. */
export function parseFilter(def: ListDef, key: string, raw: string): ParsedFilter | null {
  const column = columnOf(def, key);
  if (!column?.filter) return null;
  const value = raw.trim();
  if (!value || value.length > 200) return null;
  switch (column.filter) {
    case 'text':
      return { kind: 'text', value: value.slice(0, MAX_SEARCH_LENGTH) };
    case 'enum': {
      const values = [...new Set(value.split(',').map((v) => v.trim()))];
      if (!values.every((v) => column.options?.includes(v))) return null;
      return { kind: 'enum', values };
    }
    case 'boolean':
      return value === 'true' || value === 'false' ? { kind: 'boolean', value: value === 'true' } : null;
    case 'date-range': {
      const range = splitRange(value);
      if (!range || !range.every((d) => d === null || dateSchema.safeParse(d).success)) return null;
      if (range[0] && range[1] && range[0] > range[1]) return null;
      return { kind: 'date-range', from: range[0], to: range[1] };
    }
    case 'money-range':
    case 'number-range': {
      const range = splitRange(value);
      if (!range || !range.every((d) => d === null || decimalSchema.safeParse(d).success)) return null;
      if (range[0] && range[1] && Number(range[0]) > Number(range[1])) return null;
      return { kind: column.filter, min: range[0], max: range[1] };
    }
  }
}

export function serializeFilter(filter: ParsedFilter): string {
  switch (filter.kind) {
    case 'text':
      return filter.value;
    case 'enum':
      return filter.values.join(',');
    case 'boolean':
      return String(filter.value);
    case 'date-range':
      return `${filter.from ?? ''}..${filter.to ?? ''}`;
    case 'money-range':
    case 'number-range':
      return `${filter.min ?? ''}..${filter.max ?? ''}`;
  }
}

export function parseSort(def: ListDef, raw: string | null): ListState['sort'] | null {
  if (!raw) return null;
  const dir = raw.startsWith('-') ? 'desc' : 'asc';
  const key = raw.replace(/^[-+]/, '');
  return columnOf(def, key)?.isSortable ? { key, dir } : null;
}

export function parseListState(def: ListDef, params: URLSearchParams): { state: ListState; issues: StateIssue[] } {
  const state = defaultListState(def);
  const issues: StateIssue[] = [];
  const drop = (param: string, message: string) => issues.push({ param, message });
  // Every parameter but the filters is single-valued: given twice (or as `limit[]`-style arrays of
  // an unknown name) is a mistake the API names; pages read the first value, as before.
  for (const name of new Set(params.keys())) {
    if (name.startsWith('f.')) continue;
    if (!(SINGLE_PARAMS as readonly string[]).includes(name)) drop(name, 'unknown parameter');
    else if (params.getAll(name).length > 1) drop(name, 'give this parameter once');
  }

  const tab = params.get('tab');
  if (tab !== null) {
    if (def.tabs.some((t) => t.name === tab)) state.tab = tab;
    else drop('tab', `unknown tab ${tab}`);
  }
  const sortRaw = params.get('sort');
  if (sortRaw !== null) {
    const sort = parseSort(def, sortRaw);
    if (sort) state.sort = sort;
    else drop('sort', `cannot sort by ${sortRaw}`);
  }
  const q = params.get('q');
  if (q !== null) {
    const trimmed = q.trim().replace(/\s+/g, ' ');
    if (trimmed.length > MAX_SEARCH_LENGTH) drop('q', `search is longer than ${MAX_SEARCH_LENGTH} characters`);
    else state.q = trimmed;
  }
  for (const [name, raw] of params) {
    if (!name.startsWith('f.')) continue;
    const key = name.slice(2);
    const filter = parseFilter(def, key, raw);
    if (filter) state.filters[key] = filter;
    else drop(name, `invalid filter value for ${key}`);
  }
  const cols = params.get('cols');
  if (cols !== null) {
    const keys = [
      ...new Set(
        cols
          .split(',')
          .map((c) => c.trim())
          .filter(Boolean),
      ),
    ];
    const known = keys.filter((k) => columnOf(def, k));
    if (known.length !== keys.length) drop('cols', 'unknown column');
    state.columns = known.length ? known : null;
  }
  const limit = z.coerce
    .number()
    .int()
    .safeParse(params.get('limit') ?? undefined);
  if (params.has('limit')) {
    if (limit.success && (PAGE_SIZES as readonly number[]).includes(limit.data)) state.limit = limit.data;
    else drop('limit', `page size must be one of ${PAGE_SIZES.join(', ')}`);
  }
  if (params.has('page')) {
    const page = z.coerce.number().int().min(1).max(MAX_PAGE).safeParse(params.get('page'));
    if (page.success) state.page = page.data;
    else drop('page', `page must be between 1 and ${MAX_PAGE}`);
  }
  const cursor = params.get('cursor');
  if (cursor !== null) {
    // Well-formed is not enough: it must decode to a cursor this product wrote (base64 of JSON with
    // the wrong shape or types is refused here rather than half-read by the query).
    if (/^[A-Za-z0-9_-]{1,512}$/.test(cursor) && decodeCursor(cursor)) state.cursor = cursor;
    else drop('cursor', 'malformed cursor');
  }
  const scope = params.get('scope');
  if (scope !== null && scope !== '') {
    try {
      state.scope = parseScope(scope);
    } catch {
      drop('scope', 'scope must look like branch:<id>');
    }
  }
  const view = params.get('view');
  if (view !== null) {
    if (uuidSchema.safeParse(view).success) state.view = view.toLowerCase();
    else drop('view', 'unknown view');
  }
  return { state, issues };
}

/**
 * Writes a state back as query parameters, leaving out what equals the default so links stay
 * short and stable. Keys come out in a fixed order, so the same state always gives the same URL.
 */
export function serializeListState(def: ListDef, state: ListState): URLSearchParams {
  const params = new URLSearchParams();
  if (state.view) params.set('view', state.view);
  if (state.tab !== def.defaultTab) params.set('tab', state.tab);
  if (state.sort.key !== def.defaultSort.key || state.sort.dir !== def.defaultSort.dir) {
    params.set('sort', `${state.sort.dir === 'desc' ? '-' : ''}${state.sort.key}`);
  }
  if (state.q) params.set('q', state.q);
  for (const key of Object.keys(state.filters).sort()) params.set(`f.${key}`, serializeFilter(state.filters[key]!));
  if (state.columns?.length) params.set('cols', state.columns.join(','));
  if (state.limit !== DEFAULT_PAGE_SIZE) params.set('limit', String(state.limit));
  if (state.scope) params.set('scope', formatScope(state.scope));
  if (state.page > 1) params.set('page', String(state.page));
  if (state.cursor) params.set('cursor', state.cursor);
  return params;
}

/** The query string of a state, keeping ',' and ':' readable (both are legal in a query). */
export function listQuery(def: ListDef, state: ListState): string {
  return serializeListState(def, state).toString().replace(/%2C/g, ',').replace(/%3A/g, ':');
}

/** The href of a state on a list page: the path alone for the default state. */
export function listHref(def: ListDef, state: ListState, path: string): string {
  const query = listQuery(def, state);
  return query ? `${path}?${query}` : path;
}
