import { AppError } from '../errors/app-error.ts';
import type { Tx } from '../db/index.ts';
import { parseMinor } from '../money/money.ts';
import {
  columnOf,
  visibleColumns,
  type Bind,
  type ColumnDef,
  type ListContext,
  type ListDef,
  type SearchColumn,
} from './definition.ts';
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
  /**
   * Per search term, the customers whose own columns match it (resolveSearchCustomers), or null
   * where too many do and the term is matched row by row. Absent: every term row by row.
   */
  searchCustomers?: readonly (readonly string[] | null)[];
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

export function binder(params: unknown[]): Bind {
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
      if (filter.min)
        parts.push(`${expr} >= ${bind(parseMinor(filter.min, currencyDigits, column.key).toString())}::int8`);
      if (filter.max)
        parts.push(`${expr} <= ${bind(parseMinor(filter.max, currencyDigits, column.key).toString())}::int8`);
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

function searchTerms(q: string): string[] {
  return q.split(' ').filter(Boolean).slice(0, 5);
}

/** The smallest string above every string starting with `prefix` (in code point order). */
function prefixUpperBound(prefix: string): string {
  const points = [...prefix];
  const last = points.pop()!.codePointAt(0)!;
  return points.join('') + String.fromCodePoint(Math.min(last + 1, 0x10ffff));
}

function matchSql(column: SearchColumn, term: string, bind: Bind): string {
  if (column.mode === 'exact') return `(${column.sql}) = ${bind(term)}`;
  if (column.mode === 'code-prefix') {
    // Byte order (collation "C"), the order of the matching index, whatever the database's collation.
    const low = term.toUpperCase();
    return `((${column.sql}) collate "C" >= ${bind(low)} and (${column.sql}) collate "C" < ${bind(prefixUpperBound(low))})`;
  }
  const escaped = escapeLike(term.toLowerCase());
  const pattern = column.mode === 'prefix' ? `${escaped}%` : `%${escaped}%`;
  return `lower(${column.sql}) like ${bind(pattern)}`;
}

function searchSql(def: ListDef, q: string, bind: Bind, customers: ListQueryOptions['searchCustomers']): string | null {
  const terms = searchTerms(q);
  if (!terms.length || !def.searchColumns.length) return null;
  // Every term must match some column: "jean dupont" finds Jean Dupont whichever column holds which.
  return terms
    .map((term, i) => {
      const ids = def.customerIdSql ? customers?.[i] : null;
      const columns = ids ? def.searchColumns.filter((c) => !c.isOnCustomer) : def.searchColumns;
      const alternatives = columns.map((c) => matchSql(c, term, bind));
      // The customers found beforehand: an index lookup of the row's customer id.
      if (ids?.length) alternatives.push(`(${def.customerIdSql}) = any(${bind([...ids])}::uuid[])`);
      return alternatives.length ? `(${alternatives.join(' or ')})` : 'false';
    })
    .join(' and ');
}

/**
 * Beyond this many customers matching a term (a common name or a few letters), the term is matched
 * row by row instead: the first page then stops early on the many matches, and counts stop at the cap.
 */
export const SEARCH_CUSTOMER_CAP = 1_000;

/**
 * Finds, for each search term, the customers matching it by name (contains) or by phone, national
 * id, external id or e-mail (prefix): one call of the database's app_find_customers per term
 * (migration 0373), which can use the trigram and prefix indexes that the row-level-security policy
 * keeps a plain query from using (well under a millisecond for a term naming one customer on a
 * 100,000-customer tenant, against 0.2-2 s through the list's own query).
 */
export async function resolveSearchCustomers(
  tx: Tx,
  def: ListDef,
  q: string,
): Promise<ListQueryOptions['searchCustomers']> {
  const terms = searchTerms(q);
  if (!def.customerIdSql || !def.searchColumns.some((c) => c.isOnCustomer) || !terms.length) return undefined;
  const out: (string[] | null)[] = [];
  for (const term of terms) {
    const escaped = escapeLike(term.toLowerCase());
    const rows = await tx.query<{ id: string }>(
      `select f.id::text as id from app_find_customers($1, $2, $3) as f(id)`,
      [`%${escaped}%`, `${escaped}%`, SEARCH_CUSTOMER_CAP + 1],
    );
    out.push(rows.length > SEARCH_CUSTOMER_CAP ? null : rows.map((r) => r.id));
  }
  return out;
}

/** The options with the search's customers resolved (when the list and the state have a search). */
async function withSearchCustomers(
  tx: Tx,
  def: ListDef,
  state: ListState,
  options: ListQueryOptions,
): Promise<ListQueryOptions> {
  if (options.searchCustomers !== undefined || !state.q) return options;
  const searchCustomers = await resolveSearchCustomers(tx, def, state.q);
  return searchCustomers ? { ...options, searchCustomers } : options;
}

function scopeSql(def: ListDef, rowScope: RowScope, bind: Bind): string | null {
  if (rowScope === null) return null;
  return (
    rowScope
      .map((nodes) => {
        if (!nodes.length || !def.scopeSql.length) return 'false';
        const set = bind([...nodes]);
        return `(${def.scopeSql.map((expr) => `(${expr}) = any(${set}::uuid[])`).join(' or ')})`;
      })
      .join(' and ') || null
  );
}

/** The FROM clause of a count whose conditions are `where`: the row table alone when they allow it. */
function countFromSql(def: ListDef, where: readonly string[]): string {
  if (!def.countFrom) return def.from;
  const aliases = new Set(def.countFrom.aliases);
  const named = where.join(' ').match(/\b[a-z_][a-z0-9_]*(?=\.[a-z_])/g) ?? [];
  return named.every((alias) => aliases.has(alias)) ? def.countFrom.sql : def.from;
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
  const search = searchSql(def, state.q, bind, options.searchCustomers);
  if (search) where.push(search);
  return where;
}

/**
 * The predicates of a state (base, scope, filters, search, and its tab unless `tab` is empty): the
 * rows a page of the list would show, for aggregates over the same rows (src/lib/analytics/aggregate.ts)
 * so there is one filter compiler. Search customers are not resolved here: terms match row by row.
 */
export function listWhere(def: ListDef, state: ListState, options: ListQueryOptions, bind: Bind): string[] {
  const where = commonWhere(def, state, options, bind);
  if (state.tab) {
    const tab = tabWhere(def, state.tab, { businessDate: options.businessDate, bind });
    if (tab) where.push(tab);
  }
  return where;
}

/** The predicates of some filters alone (a measure's own conditions, as in `count(*) filter (where …)`). */
export function filterPredicates(
  def: ListDef,
  filters: Readonly<Record<string, ParsedFilter>>,
  bind: Bind,
  currencyDigits: number,
): string[] {
  const where: string[] = [];
  for (const [key, filter] of Object.entries(filters)) {
    const column = columnOf(def, key);
    if (!column?.filter) continue;
    const sql = filterSql(column, filter, bind, currencyDigits);
    if (sql) where.push(`(${sql})`);
  }
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
    if (
      (value.d === 'n' || value.d === 'p') &&
      typeof value.v === 'string' &&
      typeof value.id === 'string' &&
      typeof value.k === 'string'
    )
      return value;
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
    if (column.type === 'money' && column.currencySql)
      parts.push(`(${column.currencySql})::text as "${column.key}__ccy"`);
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
export function buildPageQuery(
  def: ListDef,
  state: ListState,
  options: ListQueryOptions,
  columns: readonly ColumnDef[],
): Sql & { mode: 'keyset' | 'offset'; direction: 'n' | 'p'; hasCursor: boolean } {
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
    `select ${selectList(def, columns)}, ${sortExprOf(sortColumn)}::text as "__sort" from ${def.pageFrom ?? def.from}` +
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
      rows,
      columns,
      mode: 'offset',
      page: state.page,
      limit,
      hasNext: hasMore,
      hasPrev: state.page > 1,
      nextCursor: null,
      prevCursor: null,
    };
  }
  // Reading forwards from a cursor means a page exists before it; reading backwards, one after it.
  const hasNext = query.direction === 'n' ? hasMore : true;
  const hasPrev = query.direction === 'p' ? hasMore : query.hasCursor;
  return {
    rows,
    columns,
    mode: 'keyset',
    page: state.page,
    limit,
    hasNext,
    hasPrev,
    nextCursor: hasNext ? cursorOf(pageRows.at(-1), 'n') : null,
    prevCursor: hasPrev ? cursorOf(pageRows[0], 'p') : null,
  };
}

/**
 * Tab counts stop at this many rows. An exact count of a big tab reads every matching row: on the
 * 100,000-customer bench tenant that is 100–400 ms per list, beyond the 100 ms first-page target,
 * while a capped count stops after the cap. Measured (bench/README.md): a cap of 10,000 still cost
 * 50–100 ms per tab on the shared 2-vCPU machine; 1,000 fits for every list but loans (its
 * "maturing" rule needs every future installment). "1,000+" says honestly that there are more.
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
    const rows = `select 1 from ${countFromSql(def, where)}${where.length ? ` where ${where.join(' and ')}` : ''} limit ${limit}`;
    return `(select count(*)::int from (${rows}) s) as "t${i}"`;
  });
  return { text: `select ${counts.join(', ')}`, params };
}

/**
 * Every tab's count (a capped tab holds the cap) and which tabs reached the cap, for every viewer: a
 * scoped viewer's rows are found through indexes too (the copies of the customer's branch and officer
 * on each row, migration 0371), so a capped count stays cheap whatever the size of their scope.
 */
export async function countTabsCapped(
  tx: Tx,
  def: ListDef,
  state: ListState,
  options: ListQueryOptions,
  cap = COUNT_CAP,
): Promise<CountResult> {
  const query = buildCountsQuery(def, state, options, cap);
  const run = async () => (await tx.query<Record<string, number>>(query.text, query.params))[0];
  const row =
    def.countsAvoid && options.rowScope !== null ? await withPlansAvoided(tx, def.countsAvoid, run) : await run();
  const counts: TabCounts = {};
  const cappedTabs: string[] = [];
  def.tabs.forEach((tab, i) => {
    const n = Number(row?.[`t${i}`] ?? 0);
    if (n > cap) cappedTabs.push(tab.name);
    counts[tab.name] = Math.min(n, cap);
  });
  return { counts, cappedTabs };
}

/**
 * Runs `fn` with some of Postgres's plans discouraged (enable_seqscan, enable_mergejoin off for the
 * statement, then back to what they were). For a capped count of a scoped viewer, Postgres assumes
 * the matching rows spread evenly and picks a plan that walks a whole table or index in order,
 * expecting to stop early: a table scan (loans and payments: active loans are the newest, at the end
 * of the table; 116 ms instead of 53 ms through the indexes for a viewer who sees a third of a
 * 100,000-customer tenant), or a merge join along the loans' primary key (payments: 58 ms instead of
 * 10 ms by index lookups from the viewer's active loans).
 */
async function withPlansAvoided<T>(
  tx: Tx,
  avoid: { tableScans?: boolean; mergeJoins?: boolean },
  fn: () => Promise<T>,
): Promise<T> {
  const settings = [...(avoid.tableScans ? ['enable_seqscan'] : []), ...(avoid.mergeJoins ? ['enable_mergejoin'] : [])];
  const [previous] = await tx.query<Record<string, string>>(
    `select ${settings.map((name, i) => `current_setting('${name}') as s${i}, set_config('${name}', 'off', true)`).join(', ')}`,
  );
  try {
    return await fn();
  } finally {
    await tx.query(
      `select ${settings.map((name, i) => `set_config('${name}', $${i + 1}, true)`).join(', ')}`,
      settings.map((_, i) => previous[`s${i}`]),
    );
  }
}

/** The counts alone, for callers that know their tabs stay under the cap (tests, small tenants). */
export async function countTabs(
  tx: Tx,
  def: ListDef,
  state: ListState,
  options: ListQueryOptions,
  cap = COUNT_CAP,
): Promise<TabCounts> {
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
export async function loadList(
  tx: Tx,
  def: ListDef,
  state: ListState,
  given: ListQueryOptions,
): Promise<{ page: ListPage } & CountResult> {
  await noJit(tx);
  const options = await withSearchCustomers(tx, def, state, given);
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
  given: ListQueryOptions,
  batchSize = 1_000,
  columns: readonly ColumnDef[] = visibleColumns(def, state.columns),
): AsyncGenerator<ListRow[]> {
  // The search's customers once, before the batches, so every batch tests the same rows.
  const options = await run((tx) => withSearchCustomers(tx, def, state, given));
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
      `select ${selectList(def, columns)}, ${sortExpr}::text as "__sort" from ${def.pageFrom ?? def.from}` +
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
    after = {
      v: last.__sort === null || last.__sort === undefined ? null : String(last.__sort),
      id: String(last.__id),
    };
  }
}

/** How many rows iterateRows will yield (the export's progress total). */
export async function countRows(tx: Tx, def: ListDef, state: ListState, given: ListQueryOptions): Promise<number> {
  await noJit(tx);
  const options = await withSearchCustomers(tx, def, state, given);
  const params: unknown[] = [];
  const bind = binder(params);
  const where = commonWhere(def, state, options, bind);
  const tab = tabWhere(def, state.tab, { businessDate: options.businessDate, bind });
  if (tab) where.push(tab);
  const [row] = await tx.query<{ n: number }>(
    `select count(*)::int as n from ${countFromSql(def, where)}${where.length ? ` where ${where.join(' and ')}` : ''}`,
    params,
  );
  return Number(row?.n ?? 0);
}
