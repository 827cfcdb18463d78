import type { PermissionSubject } from '../auth/permissions.ts';
import { z } from 'zod';
import type { Db, Tx } from '../db/index.ts';
import type { SavedQueriesRow } from '../db/schema.generated.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { need } from '../auth/permissions.ts';
import { assertScopeParamInScope } from '../auth/data-permissions.ts';
import type { Download } from '../downloads/downloads.ts';
import { AppError } from '../errors/app-error.ts';
import { requestListExport } from '../exports/export-job.ts';
import type { ExportFormat } from '../exports/write-list-export.ts';
import { defineCommand } from '../http/command.ts';
import { withCustomColumns } from '../lists/custom-columns.ts';
import type { ListDef } from '../lists/definition.ts';
import { countTabsCapped, decodeCursor, loadPage, type ListPage } from '../lists/query.ts';
import { resolveRowScope } from '../lists/row-scope.ts';
import type { ListViewer } from '../lists/serve.ts';
import { DEFAULT_PAGE_SIZE, listQuery, MAX_PAGE, PAGE_SIZES, type ListState } from '../lists/url-state.ts';
import { currencyDigits, fromMinor, toDecimalString } from '../money/money.ts';
import { businessDate } from '../tenancy/tenant.ts';
import {
  assertMayReadDataset,
  definitionState,
  findDataset,
  queryDefinitionSchema,
  validateQueryDefinition,
  type Dataset,
  type QueryDefinition,
} from './datasets.ts';

/**
 * List-export queries (migration 0930): a dataset with filters, columns, sort, tab and scope
 * (QueryDefinition, ./datasets.ts), saved under a name unique in the tenant, run with paged results
 * and exported through the lists' export job. Nothing here compiles filters: a definition becomes a
 * list state and the lists machinery (src/lib/lists/query.ts) pages, counts and exports it under the
 * viewer's row scope, exactly as the list pages do. Saved queries are shared by the tenant's
 * analysts; whoever holds analytics.list_export.edit may change or delete one. Every change is
 * audited; an edit carries the revision it was based on and a stale one is refused (409).
 */

export const savedQueryInputSchema = z.object({
  name: z.string().trim().min(1, 'a name is required').max(120, 'at most 120 characters'),
  description: z.string().trim().max(1000, 'at most 1000 characters').default(''),
  definition: z.unknown(),
});
export type SavedQueryInput = z.input<typeof savedQueryInputSchema>;

export type SavedQuery = {
  id: string;
  name: string;
  description: string;
  definition: QueryDefinition;
  createdBy: string;
  ownerName: string;
  revision: number;
  createdAt: Date;
  updatedAt: Date;
};

export type QueryActor = { tenantId: string; userId: string; ip?: string | null; requestId?: string | null };

type Row = Pick<
  SavedQueriesRow,
  'id' | 'name' | 'description' | 'created_by' | 'revision' | 'created_at' | 'updated_at'
> & { definition: QueryDefinition; owner_name: string | null };

const SELECT = `select q.id, q.name, q.description, q.definition, q.created_by, q.revision, q.created_at, q.updated_at,
    u.display_name as owner_name
  from saved_queries q left join users u on u.tenant_id = q.tenant_id and u.id = q.created_by`;

function toQuery(row: Row): SavedQuery {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    definition: queryDefinitionSchema.parse(row.definition),
    createdBy: row.created_by,
    ownerName: row.owner_name ?? '',
    revision: row.revision,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function notFound(): AppError {
  return new AppError('NOT_FOUND', 'This query does not exist.', { field: 'id' });
}

/**
 * Checks a definition against its dataset with the tenant's customized-field columns (issue 13),
 * which a query may show and filter: 422 naming the field otherwise.
 */
export async function checkDefinition(
  tx: Tx,
  raw: unknown,
  language = 'en',
): Promise<{ definition: QueryDefinition; dataset: Dataset }> {
  const { definition } = validateQueryDefinition({ ...(raw as object), filters: {}, columns: [], sort: null });
  const dataset = findDataset(definition.dataset)!;
  const def = await withCustomColumns(tx, dataset.def, language);
  return validateQueryDefinition(raw, def);
}

/** Every saved query of the tenant, by name. */
export async function listSavedQueries(tx: Tx): Promise<SavedQuery[]> {
  const rows = await tx.query<Row>(`${SELECT} order by lower(q.name), q.id limit 500`);
  return rows.map(toQuery);
}

/** One saved query; an unknown id (or another tenant's: row-level security hides it) is 404. */
export async function getSavedQuery(tx: Tx, id: string): Promise<SavedQuery> {
  if (!UUID.test(id)) throw notFound();
  const [row] = await tx.query<Row>(`${SELECT} where q.id = $1`, [id]);
  if (!row) throw notFound();
  return toQuery(row);
}

function duplicate(error: unknown): never {
  if ((error as { code?: string })?.code === '23505')
    throw new AppError('ALREADY_EXISTS', 'name: a query with this name already exists', { field: 'name' });
  throw error;
}

export async function createSavedQuery(tx: Tx, actor: QueryActor, raw: SavedQueryInput): Promise<SavedQuery> {
  const input = savedQueryInputSchema.parse(raw);
  const { definition } = await checkDefinition(tx, input.definition);
  const [created] = await tx
    .query<Pick<SavedQueriesRow, 'id'>>(
      `insert into saved_queries (tenant_id, name, description, definition, created_by)
       values ($1, $2, $3, $4::jsonb, $5) returning id`,
      [actor.tenantId, input.name, input.description, JSON.stringify(definition), actor.userId],
    )
    .catch(duplicate);
  const query = await getSavedQuery(tx, created!.id);
  await recordAudit(tx, {
    tenantId: actor.tenantId,
    actorId: actor.userId,
    action: 'saved_query.create',
    objectType: 'saved_query',
    objectId: query.id,
    after: query,
    ip: actor.ip,
    requestId: actor.requestId,
    outcome: 'success',
  });
  return query;
}

function staleError(current: SavedQuery): AppError {
  return new AppError(
    'CONFLICT',
    'revision: this query was changed by someone else since you opened it; reload it and make your change again.',
    { field: 'revision', details: { revision: current.revision } },
  );
}

/** Replaces a query's name, description and definition; `revision` must be the current one (409 otherwise). */
export async function updateSavedQuery(
  tx: Tx,
  actor: QueryActor,
  id: string,
  raw: SavedQueryInput & { revision: number },
): Promise<SavedQuery> {
  const before = await getSavedQuery(tx, id);
  const input = savedQueryInputSchema.parse(raw);
  const { definition } = await checkDefinition(tx, input.definition);
  const rows = await tx
    .query<Pick<SavedQueriesRow, 'id'>>(
      `update saved_queries set name = $2, description = $3, definition = $4::jsonb, updated_by = $5,
              revision = revision + 1, updated_at = now()
        where id = $1 and revision = $6 returning id`,
      [id, input.name, input.description, JSON.stringify(definition), actor.userId, raw.revision],
    )
    .catch(duplicate);
  if (!rows.length) throw staleError(await getSavedQuery(tx, id));
  const after = await getSavedQuery(tx, id);
  await recordAudit(tx, {
    tenantId: actor.tenantId,
    actorId: actor.userId,
    action: 'saved_query.update',
    objectType: 'saved_query',
    objectId: id,
    before,
    after,
    ip: actor.ip,
    requestId: actor.requestId,
    outcome: 'success',
  });
  return after;
}

/** Deletes a query; with a revision, only if it is still the current one (409 otherwise). */
export async function deleteSavedQuery(
  tx: Tx,
  actor: QueryActor,
  id: string,
  revision: number | null = null,
): Promise<void> {
  const before = await getSavedQuery(tx, id);
  const rows = await tx.query(
    'delete from saved_queries where id = $1 and ($2::int is null or revision = $2::int) returning id',
    [id, revision],
  );
  if (!rows.length) throw staleError(before);
  await recordAudit(tx, {
    tenantId: actor.tenantId,
    actorId: actor.userId,
    action: 'saved_query.delete',
    objectType: 'saved_query',
    objectId: id,
    before,
    ip: actor.ip,
    requestId: actor.requestId,
    outcome: 'success',
  });
}

const revisionField = z.coerce.number().int().min(1);

/** Creates a query (no id) or replaces one (id and the revision it was based on). */
export const saveQueryCommand = defineCommand({
  action: 'saved_query.save',
  objectType: 'saved_query',
  permission: need('analytics.list_export.edit'),
  input: savedQueryInputSchema.extend({ id: z.string().nullable().default(null), revision: revisionField.nullable() }),
  run: (tx, actor, { id, revision, ...input }) => {
    if (!id) return createSavedQuery(tx, actor, input);
    if (revision === null)
      throw new AppError('UNPROCESSABLE', 'revision: the revision you edited is required', { field: 'revision' });
    return updateSavedQuery(tx, actor, id, { ...input, revision });
  },
});

export const deleteQueryCommand = defineCommand({
  action: 'saved_query.delete',
  objectType: 'saved_query',
  permission: need('analytics.list_export.edit'),
  input: z.object({ id: z.string(), revision: revisionField.nullable().default(null) }),
  run: async (tx, actor, { id, revision }) => {
    await deleteSavedQuery(tx, actor, id, revision);
    return { id };
  },
});

/** Where the results start: `page` (offset paging) or `cursor` (keyset), and the page size. */
export type ResultsPosition = { page: number; cursor: string | null; limit: number };

/** Reads the position from a URL; a malformed one is a 400 naming the parameter. */
export function resultsPosition(params: URLSearchParams): ResultsPosition {
  const position: ResultsPosition = { page: 1, cursor: null, limit: DEFAULT_PAGE_SIZE };
  const limit = params.get('limit');
  if (limit !== null) {
    const n = Number(limit);
    if (!(PAGE_SIZES as readonly number[]).includes(n))
      throw new AppError('BAD_REQUEST', `limit: page size must be one of ${PAGE_SIZES.join(', ')}`, {
        field: 'limit',
      });
    position.limit = n;
  }
  const page = params.get('page');
  if (page !== null) {
    const n = Number(page);
    if (!Number.isInteger(n) || n < 1 || n > MAX_PAGE)
      throw new AppError('BAD_REQUEST', `page: page must be between 1 and ${MAX_PAGE}`, { field: 'page' });
    position.page = n;
  }
  const cursor = params.get('cursor');
  if (cursor !== null && cursor !== '') {
    if (!/^[A-Za-z0-9_-]{1,512}$/.test(cursor) || !decodeCursor(cursor))
      throw new AppError('BAD_REQUEST', 'cursor: malformed cursor', { field: 'cursor' });
    position.cursor = cursor;
  }
  return position;
}

export type QueryResults = {
  definition: QueryDefinition;
  dataset: Dataset;
  /** The dataset's definition with the tenant's customized-field columns. */
  def: ListDef;
  state: ListState;
  page: ListPage;
  /** Matching rows, at most COUNT_CAP; `isTotalCapped` when there are more ("1,000+"). */
  total: number;
  isTotalCapped: boolean;
  businessDate: string;
};

/**
 * One page of a definition's rows with their (capped) count, under the viewer's data permissions
 * and the definition's scope, in one tenant transaction. A scope outside the viewer's data
 * permissions is refused (403 on `scope`), as the lists' exports refuse it.
 */
export async function runQuery(
  db: Db,
  viewer: ListViewer & PermissionSubject,
  raw: unknown,
  position: ResultsPosition = { page: 1, cursor: null, limit: DEFAULT_PAGE_SIZE },
): Promise<QueryResults> {
  return db.tenant(viewer.tenantId, async (tx) => {
    const { definition, dataset } = await checkDefinition(tx, raw, viewer.language ?? 'en');
    assertMayReadDataset(viewer, dataset.name);
    const def = dataset.def;
    const state = { ...definitionState(def, definition), ...position };
    await assertScopeParamInScope(tx, { ...viewer, language: viewer.language ?? 'en' }, state.scope);
    const date = await businessDate(tx, viewer.tenantId);
    const options = {
      businessDate: date,
      currencyDigits: currencyDigits(viewer.currency),
      rowScope: await resolveRowScope(tx, viewer, state.scope),
    };
    const page = await loadPage(tx, def, state, options);
    // Only the chosen tab is counted (a list page counts all of them for its tab bar).
    const activeTab = def.tabs.filter((t) => t.name === state.tab);
    const { counts, cappedTabs } = await countTabsCapped(tx, { ...def, tabs: activeTab }, state, options);
    return {
      definition,
      dataset,
      def,
      state,
      page,
      total: counts[state.tab] ?? 0,
      isTotalCapped: cappedTabs.includes(state.tab),
      businessDate: date,
    };
  });
}

/** A file name part from a query's name: lower-case letters, digits and dashes. */
export function fileBaseName(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return slug || 'query';
}

/**
 * Queues the export of every row of a definition (CSV or XLSX) through the lists' export job, which
 * re-reads the user's data permissions when it runs; answers the download (status 'queued'), which
 * appears in the user's downloads list.
 */
export async function requestQueryExport(
  db: Db,
  viewer: ListViewer & PermissionSubject & { language: string },
  raw: unknown,
  format: ExportFormat,
  name: string,
): Promise<Download> {
  const { dataset, query, date } = await db.tenant(viewer.tenantId, async (tx) => {
    const { definition, dataset } = await checkDefinition(tx, raw, viewer.language);
    assertMayReadDataset(viewer, dataset.name);
    const state = definitionState(dataset.def, definition);
    return {
      dataset,
      // Customized-field columns keep their keys in the query string; the job adds them back.
      query: listQuery(dataset.def, state),
      date: await businessDate(tx, viewer.tenantId),
    };
  });
  return requestListExport(db, {
    tenantId: viewer.tenantId,
    userId: viewer.userId,
    def: dataset.def,
    query,
    format,
    language: viewer.language,
    fileBaseName: fileBaseName(name),
    businessDate: date,
  });
}

/**
 * The audit row of an export asked from the results page's form (the /v1 route is audited by the route
 * manifest's `audited` rule): who exported which query or ad hoc definition, in which format.
 */
export async function auditQueryExport(
  db: Db,
  actor: QueryActor,
  input: { queryId: string | null; dataset: string; format: ExportFormat },
): Promise<void> {
  await db.tenant(actor.tenantId, (tx) =>
    recordAudit(tx, {
      tenantId: actor.tenantId,
      actorId: actor.userId,
      action: 'saved_query.export',
      objectType: 'saved_query',
      objectId: input.queryId,
      after: { dataset: input.dataset, format: input.format },
      ip: actor.ip,
      requestId: actor.requestId,
      outcome: 'success',
    }),
  );
}

/**
 * The JSON of a results page: rows as `{ id, href, values }` with money as decimal strings in major
 * units (with `currencies` per money column), dates as 'YYYY-MM-DD'; `total` is capped at 1,000
 * (`is_total_capped` then says there are more).
 */
export function resultsJson(results: QueryResults, tenantCurrency: string) {
  const { page } = results;
  return {
    dataset: results.dataset.name,
    definition: results.definition,
    mode: page.mode,
    page: page.page,
    limit: page.limit,
    has_next: page.hasNext,
    has_prev: page.hasPrev,
    next_cursor: page.nextCursor,
    prev_cursor: page.prevCursor,
    columns: page.columns.map((c) => ({ key: c.key, type: c.type, ...(c.labelText ? { label: c.labelText } : {}) })),
    rows: page.rows.map((row) => ({
      id: row.id,
      href: row.href,
      values: Object.fromEntries(
        page.columns.map((c) => {
          const value = row.values[c.key];
          if (value === null || value === undefined) return [c.key, null];
          if (c.type === 'money')
            return [
              c.key,
              toDecimalString(fromMinor(BigInt(value as string), row.currencies[c.key] ?? tenantCurrency)),
            ];
          return [c.key, value];
        }),
      ),
      currencies: row.currencies,
    })),
    total: results.total,
    is_total_capped: results.isTotalCapped,
    business_date: results.businessDate,
  };
}
