import { AppError } from '../errors/app-error.ts';
import type { Tx } from '../db/index.ts';
import { parseMinor } from '../money/money.ts';
import { columnOf, visibleColumns, type Bind, type ColumnDef, type ListContext, type ListDef } from './definition.ts';
import type { ListState, ParsedFilter } from './url-state.ts';

/**
 * Turns a list definition plus a URL state into parameterised SQL: one page of rows (keyset paging
 * when the sort column is never NULL, offset otherwise; always a bounded limit), the row count of
 * every tab, and batches of every matching row for exports. Every value from the request is a
 * bound parameter; SQL text comes only from definitions.
 */

/**
 * Which rows the caller may see, beyond the tenant (row-level security already enforces that).
 * Each entry is a set of hierarchy node ids; a row must belong to a node of every set (for example
 * one set from the user's data permissions, one from the `scope` filter). `null` = no restriction
 * (an admin, or a user without data permissions, viewing the whole tenant).
 */
export type RowScope = readonly (readonly string[])[] | null;

export type ListQueryOptions = {
  businessDate: string;
  /** Minor-unit digits of the tenant's currency, to read money filters typed in major units. */
  currencyDigits: number;
  rowScope: RowScope;
  /** Where tab counts stop (default COUNT_CAP). */
  countCap?: number;
};

export type ListRow = {
  id: string;
  /** Path of the row's page, when the list has one. */
  href: string | null;
  values: Record<string, unknown>;
  /** Currency of each money column of this row. */
  currencies: Record<string, string>;
};

export type ListPage = {
  rows: ListRow[];
  columns: ColumnDef[];
  /** 'keyset' when the sort allows seeking; page links then carry cursors. */
  mode: 'keyset' | 'offset';
  page: number;
  limit: number;
  hasNext: boolean;
  hasPrev: boolean;
  /** Cursor of the next / previous page in keyset mode. */
  nextCursor: string | null;
  prevCursor: string | null;
};

export type TabCounts = Record<string, number>;

export type Sql = { text: string; params: unknown[] };

function binder(params: unknown[]): Bind {
  return (value) => {
    params.push(value);
    return `$${params.length}`;
  };
}

/** Escapes LIKE wildcards so a user's "%" or "_" matches itself. */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function filterSql(column: ColumnDef, filter: ParsedFilter, bind: Bind, currencyDigits: number): string {
  const expr = `(${column.sql})`;
  switch (filter.kind) {
    case 'text':
      return `${expr}::text ilike ${bind(`%${escapeLike(filter.value)}%`)}`;
    case 'enum':
      return `${expr}::text = any(${bind(filter.values)}::text[])`;
    case 'boolean':
      return `${expr} = ${bind(filter.value)}::boolean`;
    case 'date-range': {
      const parts: string[] = [];
      if (filter.from) parts.push(`${expr} >= ${bind(filter.from)}::date`);
      if (filter.to) parts.push(`${expr} <= ${bind(filter.to)}::date`);
      return parts.join(' and ');
    }
    case 'money-range': {
      const parts: string[] = [];
      if (filter.min) parts.push(`${expr} >= ${bind(parseMinor(filter.min, currencyDigits, column.key).toString())}::int8`);
      if (filter.max) parts.push(`${expr} <= ${bind(parseMinor(filter.max, currencyDigits, column.key).toString())}::int8`);
      return parts.join(' and ');
    }
    case 'number-range': {
      const parts: string[] = [];
      if (filter.min) parts.push(`${expr} >= ${bind(filter.min)}::numeric`);
      if (filter.max) parts.push(`${expr} <= ${bind(filter.max)}::numeric`);
      return parts.join(' and ');
    }
  }
}

function searchSql(def: ListDef, q: string, bind: Bind): string | null {
  const terms = q.split(' ').filter(Boolean).slice(0, 5);
  if (!terms.length || !def.searchColumns.length) return null;
  // Every term must match some column: "jean dupont" finds Jean Dupont whichever column holds which.
  return terms
    .map((term) => {
      const escaped = escapeLike(term.toLowerCase());
      const alternatives = def.searchColumns.map((c) => {
        if (c.mode === 'exact') return `(${c.sql}) = ${bind(term)}`;
        const pattern = c.mode === 'prefix' ? `${escaped}%` : `%${escaped}%`;
        return `lower(${c.sql}) like ${bind(pattern)}`;
      });
      return `(${alternatives.join(' or ')})`;
    })
    .join(' and ');
}

function scopeSql(def: ListDef, rowScope: RowScope, bind: Bind): string | null {
  if (rowScope === null) return null;
  return rowScope
    .map((nodes) => {
      if (!nodes.length || !def.scopeSql.length) return 'false';
      const set = bind([...nodes]);
      return `(${def.scopeSql.map((expr) => `(${expr}) = any(${set}::uuid[])`).join(' or ')})`;
    })
    .join(' and ') || null;
}

/** The predicates every query of a state shares (all but the tab): base, scope, filters, search. */
function commonWhere(def: ListDef, state: ListState, options: ListQueryOptions, bind: Bind): string[] {
  const where: string[] = [];
  if (def.baseWhere) where.push(`(${def.baseWhere})`);
  const scope = scopeSql(def, options.rowScope, bind);
  if (scope) where.push(scope);
  for (const [key, filter] of Object.entries(state.filters)) {
    const column = columnOf(def, key);
    if (!column?.filter) continue;
    const sql = filterSql(column, filter, bind, options.currencyDigits);
    if (sql) where.push(`(${sql})`);
  }
  const search = searchSql(def, state.q, bind);
  if (search) where.push(search);
  return where;
}

function tabWhere(def: ListDef, tabName: string, ctx: ListContext): string | null {
  const tab = def.tabs.find((t) => t.name === tabName);
  if (!tab) throw new AppError('BAD_REQUEST', `Unknown tab ${tabName}`, { field: 'tab' });
  return tab.where ? `(${tab.where(ctx)})` : null;
}

type Cursor = { d: 'n' | 'p'; v: string; id: string; k: string };

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');
}

export function decodeCursor(raw: string): Cursor | null {
  try {
    const value = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Cursor;
    if ((value.d === 'n' || value.d === 'p') && typeof value.v === 'string' && typeof value.id === 'string' && typeof value.k === 'string') return value;
  } catch {
    // An unreadable cursor is treated as none: the list opens at its first page.
  }
  return null;
}

function selectList(def: ListDef, columns: readonly ColumnDef[]): string {
  const parts = [`(${def.idSql})::text as "__id"`];
  if (def.hrefSql) parts.push(`(${def.hrefSql})::text as "__href"`);
  for (const column of columns) {
    parts.push(`${column.sql} as "${column.key}"`);
    if (column.type === 'money' && column.currencySql) parts.push(`(${column.currencySql})::text as "${column.key}__ccy"`);
  }
  return parts.join(', ');
}

function toRow(raw: Record<string, unknown>, columns: readonly ColumnDef[]): ListRow {
  const values: Record<string, unknown> = {};
  const currencies: Record<string, string> = {};
  for (const column of columns) {
    values[column.key] = raw[column.key] ?? null;
    const ccy = raw[`${column.key}__ccy`];
    if (typeof ccy === 'string') currencies[column.key] = ccy.trim();
  }
  return { id: String(raw.__id), href: typeof raw.__href === 'string' ? raw.__href : null, values, currencies };
}

function sortExprOf(column: ColumnDef): string {
  return `(${column.sortSql ?? column.sql})`;
}

/** Whether a sort can seek with a keyset predicate (its expression is never NULL). */
export function isKeysetSort(def: ListDef, state: ListState): boolean {
  return Boolean(columnOf(def, state.sort.key)?.isNotNull);
}

/** Builds the SQL of one page; exported for tests that read the plan. */
export function buildPageQuery(def: ListDef, state: ListState, options: ListQueryOptions, columns: readonly ColumnDef[]): Sql & { mode: 'keyset' | 'offset'; direction: 'n' | 'p'; hasCursor: boolean } {
  const params: unknown[] = [];
  const bind = binder(params);
  const sortColumn = columnOf(def, state.sort.key);
  if (!sortColumn?.isSortable) throw new AppError('BAD_REQUEST', `Cannot sort by ${state.sort.key}`, { field: 'sort' });
  const where = commonWhere(def, state, options, bind);
  const tab = tabWhere(def, state.tab, { businessDate: options.businessDate, bind });
  if (tab) where.push(tab);

  const isKeyset = isKeysetSort(def, state);
  const cursor = isKeyset && state.cursor ? decodeCursor(state.cursor) : null;
  // A cursor made for another sort would seek on the wrong column: ignore it and start over.
  const usable = cursor && cursor.k === `${state.sort.key}:${state.sort.dir}` ? cursor : null;
  const direction = usable?.d ?? 'n';
  // Going back means reading the rows before the cursor in reverse order, then flipping them.
  const isAsc = (state.sort.dir === 'asc') !== (direction === 'p');
  if (usable) {
    const op = isAsc ? '>' : '<';
    where.push(`(${sortExprOf(sortColumn)}, (${def.idSql})) ${op} (${bind(usable.v)}, ${bind(usable.id)})`);
  }
  const order = isAsc ? 'asc' : 'desc';
  const limit = Math.min(Math.max(1, state.limit), 100);
  const offset = isKeyset ? 0 : (state.page - 1) * limit;
  const text =
    `select ${selectList(def, columns)}, ${sortExprOf(sortColumn)}::text as "__sort" from ${def.from}` +
    (where.length ? ` where ${where.join(' and ')}` : '') +
    ` order by ${sortExprOf(sortColumn)} ${order}${isKeyset ? '' : ' nulls last'}, (${def.idSql}) ${order}` +
    ` limit ${bind(limit + 1)}` +
    (offset ? ` offset ${bind(offset)}` : '');
  return { text, params, mode: isKeyset ? 'keyset' : 'offset', direction, hasCursor: Boolean(usable) };
}

/** One page of rows for a state, inside the caller's tenant transaction. */
export async function loadPage(tx: Tx, def: ListDef, state: ListState, options: ListQueryOptions): Promise<ListPage> {
  const columns = visibleColumns(def, state.columns);
  const query = buildPageQuery(def, state, options, columns);
  const limit = Math.min(Math.max(1, state.limit), 100);
  const raw = await tx.query<Record<string, unknown>>(query.text, query.params);
  const hasMore = raw.length > limit;
  const pageRows = raw.slice(0, limit);
  if (query.direction === 'p') pageRows.reverse();
  const rows = pageRows.map((r) => toRow(r, columns));
  const key = `${state.sort.key}:${state.sort.dir}`;
  const cursorOf = (r: Record<string, unknown> | undefined, d: 'n' | 'p') =>
    r ? encodeCursor({ d, v: String(r.__sort), id: String(r.__id), k: key }) : null;

  if (query.mode === 'offset') {
    return {
      rows, columns, mode: 'offset', page: state.page, limit,
      hasNext: hasMore, hasPrev: state.page > 1, nextCursor: null, prevCursor: null,
    };
  }
  // Reading forwards from a cursor means a page exists before it; reading backwards, one after it.
  const hasNext = query.direction === 'n' ? hasMore : true;
  const hasPrev = query.direction === 'p' ? hasMore : query.hasCursor;
  return {
    rows, columns, mode: 'keyset', page: state.page, limit, hasNext, hasPrev,
    nextCursor: hasNext ? cursorOf(pageRows.at(-1), 'n') : null,
    prevCursor: hasPrev ? cursorOf(pageRows[0], 'p') : null,
  };
}

/**
 * Tab counts stop at this many rows. An exact count of a big tab reads every matching row: on the
 * 100,000-customer bench tenant that is 100–400 ms per list, beyond the 100 ms first-page target,
 * while a capped count stops after the cap. Measured (bench/README.md): a cap of 10,000 still cost
 * 50–100 ms per tab on the shared 2-vCPU machine; 1,000 fits for every list but loans (its
 * "maturing" rule needs every future installment). "1,000+" says honestly that there are more. A
 * scoped viewer (data permissions or the scope filter) gets exact counts instead (countTabsCapped).
 */
export const COUNT_CAP = 1_000;

export type CountResult = {
  counts: TabCounts;
  /** Tabs whose count reached the cap: the real number is at least `counts[tab]`. */
  cappedTabs: string[];
};

/**
 * Builds the one statement that counts every tab under the state's filters, search and scope: one
 * scalar subquery per tab, each reading at most `cap + 1` matching rows (a LIMIT the planner can push
 * into an index or a scan that stops early), so no tab costs more than the cap however big it is.
 */
export function buildCountsQuery(def: ListDef, state: ListState, options: ListQueryOptions, cap = COUNT_CAP): Sql {
  const params: unknown[] = [];
  const bind = binder(params);
  const ctx: ListContext = { businessDate: options.businessDate, bind };
  const limit = bind(cap + 1);
  const counts = def.tabs.map((tab, i) => {
    const where = commonWhere(def, state, options, bind);
    const predicate = tab.where ? tab.where(ctx) : null;
    if (predicate) where.push(`(${predicate})`);
    const rows = `select 1 from ${def.from}${where.length ? ` where ${where.join(' and ')}` : ''} limit ${limit}`;
    return `(select count(*)::int from (${rows}) s) as "t${i}"`;
  });
  return { text: `select ${counts.join(', ')}`, params };
}

/**
 * One pass that counts every tab exactly (count(*) filter per tab): for a scoped viewer the scope
 * predicate (an OR over the row's hierarchy nodes, often through a join) cannot use an index, so
 * per-tab capped subqueries would scan the tenant once per tab; one scan for all tabs is cheaper.
 */
export function buildExactCountsQuery(def: ListDef, state: ListState, options: ListQueryOptions): Sql {
  const params: unknown[] = [];
  const bind = binder(params);
  const where = commonWhere(def, state, options, bind);
  const ctx: ListContext = { businessDate: options.businessDate, bind };
  const counts = def.tabs.map((tab, i) => {
    const predicate = tab.where ? tab.where(ctx) : null;
    return predicate ? `count(*) filter (where ${predicate})::int as "t${i}"` : `count(*)::int as "t${i}"`;
  });
  return { text: `select ${counts.join(', ')} from ${def.from}${where.length ? ` where ${where.join(' and ')}` : ''}`, params };
}

/**
 * Every tab's count (a capped tab holds the cap) and which tabs reached the cap. An unrestricted
 * viewer gets capped counts; a scoped viewer (rowScope set) gets one exact pass over their rows.
 */
export async function countTabsCapped(tx: Tx, def: ListDef, state: ListState, options: ListQueryOptions, cap = COUNT_CAP): Promise<CountResult> {
  if (options.rowScope !== null) {
    const exact = buildExactCountsQuery(def, state, options);
    const [row] = await tx.query<Record<string, number>>(exact.text, exact.params);
    const counts: TabCounts = {};
    def.tabs.forEach((tab, i) => {
      counts[tab.name] = Number(row?.[`t${i}`] ?? 0);
    });
    return { counts, cappedTabs: [] };
  }
  const query = buildCountsQuery(def, state, options, cap);
  const [row] = await tx.query<Record<string, number>>(query.text, query.params);
  const counts: TabCounts = {};
  const cappedTabs: string[] = [];
  def.tabs.forEach((tab, i) => {
    const n = Number(row?.[`t${i}`] ?? 0);
    if (n > cap) cappedTabs.push(tab.name);
    counts[tab.name] = Math.min(n, cap);
  });
  return { counts, cappedTabs };
}

/** The counts alone, for callers that know their tabs stay under the cap (tests, small tenants). */
export async function countTabs(tx: Tx, def: ListDef, state: ListState, options: ListQueryOptions, cap = COUNT_CAP): Promise<TabCounts> {
  return (await countTabsCapped(tx, def, state, options, cap)).counts;
}

/**
 * Turns off Postgres's JIT compiler for this transaction. A tab-count query over 100,000 rows has a
 * planner cost above the JIT threshold, and compiling it costs 0.5–2 s, far more than running it.
 */
export async function noJit(tx: Tx): Promise<void> {
  await tx.query(`select set_config('jit', 'off', true)`);
}

/** A page and the tab counts together: what a list page and GET /v1/lists/:name answer. */
export async function loadList(tx: Tx, def: ListDef, state: ListState, options: ListQueryOptions): Promise<{ page: ListPage } & CountResult> {
  await noJit(tx);
  const page = await loadPage(tx, def, state, options);
  const { counts, cappedTabs } = await countTabsCapped(tx, def, state, options, options.countCap ?? COUNT_CAP);
  return { page, counts, cappedTabs };
}

/** Opens one short tenant transaction (e.g. `(fn) => db.tenant(tenantId, fn)`). */
export type RunInTx = <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>;

/**
 * Every row matching the state (its tab, filters, search and scope; not only one page), in the
 * state's order (NULLs last), in batches. Each batch is its own short transaction, so an export of
 * 50,000 rows never holds PGlite's single connection for long; batches seek with a NULL-aware keyset
 * on (sort value, id), so rows are neither skipped nor repeated when others write in between.
 */
export async function* iterateRows(
  run: RunInTx,
  def: ListDef,
  state: ListState,
  options: ListQueryOptions,
  batchSize = 1_000,
  columns: readonly ColumnDef[] = visibleColumns(def, state.columns),
): AsyncGenerator<ListRow[]> {
  const sortColumn = columnOf(def, state.sort.key);
  if (!sortColumn?.isSortable) throw new AppError('BAD_REQUEST', `Cannot sort by ${state.sort.key}`, { field: 'sort' });
  const dir = state.sort.dir;
  const op = dir === 'asc' ? '>' : '<';
  const sortExpr = sortExprOf(sortColumn);
  const idExpr = `(${def.idSql})`;
  let after: { v: string | null; id: string } | null = null;
  for (;;) {
    const params: unknown[] = [];
    const bind = binder(params);
    const where = commonWhere(def, state, options, bind);
    const tab = tabWhere(def, state.tab, { businessDate: options.businessDate, bind });
    if (tab) where.push(tab);
    if (after && after.v !== null) {
      where.push(`(${sortExpr} is null or (${sortExpr}, ${idExpr}) ${op} (${bind(after.v)}, ${bind(after.id)}))`);
    } else if (after) {
      where.push(`(${sortExpr} is null and ${idExpr} ${op} ${bind(after.id)})`);
    }
    const text =
      `select ${selectList(def, columns)}, ${sortExpr}::text as "__sort" from ${def.from}` +
      (where.length ? ` where ${where.join(' and ')}` : '') +
      ` order by (${sortExpr} is null), ${sortExpr} ${dir}, ${idExpr} ${dir}` +
      ` limit ${bind(batchSize)}`;
    const raw = await run(async (tx) => {
      await noJit(tx);
      return tx.query<Record<string, unknown>>(text, params);
    });
    if (raw.length) yield raw.map((r) => toRow(r, columns));
    if (raw.length < batchSize) return;
    const last = raw.at(-1)!;
    after = { v: last.__sort === null || last.__sort === undefined ? null : String(last.__sort), id: String(last.__id) };
  }
}

/** How many rows iterateRows will yield (the export's progress total). */
export async function countRows(tx: Tx, def: ListDef, state: ListState, options: ListQueryOptions): Promise<number> {
  await noJit(tx);
  const params: unknown[] = [];
  const bind = binder(params);
  const where = commonWhere(def, state, options, bind);
  const tab = tabWhere(def, state.tab, { businessDate: options.businessDate, bind });
  if (tab) where.push(tab);
  const [row] = await tx.query<{ n: number }>(`select count(*)::int as n from ${def.from}${where.length ? ` where ${where.join(' and ')}` : ''}`, params);
  return Number(row?.n ?? 0);
}
