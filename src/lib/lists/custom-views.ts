import { z } from 'zod';
import { withCustomColumns } from './custom-columns.ts';
import type { Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { columnOf, type ListDef } from './definition.ts';
import { defaultListState, listQuery, parseFilter, parseSort, type ListState } from './url-state.ts';
import type { CustomViewsRow } from '../db/schema.generated.ts';

/**
 * Custom views (migration 0300): saved columns, filters, sort and tab of a list, personal or shared
 * with the team. Anyone who can open the list sees their own views and the shared ones; only the
 * owner changes or deletes a view. Every change is written to the audit trail.
 */

/** What a form or the API sends. Filters use their URL form: `{ "status": "ACTIVE" }`. */
export const customViewInputSchema = z.object({
  name: z.string().trim().min(1, 'a name is required').max(80, 'at most 80 characters'),
  columns: z.array(z.string().max(64)).max(40).default([]),
  filters: z.record(z.string().max(64), z.string().max(200)).default({}),
  sort: z.string().max(70).nullable().default(null),
  tab: z.string().max(64).nullable().default(null),
  isShared: z.boolean().default(false),
});
export type CustomViewInput = z.input<typeof customViewInputSchema>;

export type CustomView = {
  id: string;
  ownerId: string;
  listName: string;
  name: string;
  columns: string[];
  filters: Record<string, string>;
  sort: string | null;
  tab: string | null;
  isShared: boolean;
  isOwn: boolean;
  createdAt: Date;
  updatedAt: Date;
};

type Row = Pick<
  CustomViewsRow,
  'id' | 'owner_id' | 'list_name' | 'name' | 'columns' | 'sort' | 'tab' | 'is_shared' | 'created_at' | 'updated_at'
> & {
  filters: Record<string, string>;
};
const COLUMNS = 'id, owner_id, list_name, name, columns, filters, sort, tab, is_shared, created_at, updated_at';

function toView(row: Row, userId: string): CustomView {
  return {
    id: row.id,
    ownerId: row.owner_id,
    listName: row.list_name,
    name: row.name,
    columns: row.columns,
    filters: row.filters,
    sort: row.sort,
    tab: row.tab,
    isShared: row.is_shared,
    isOwn: row.owner_id === userId,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Checks a view against its list: every column, filter, sort and tab must exist; errors name the field. */
export function validateCustomView(def: ListDef, raw: CustomViewInput): z.output<typeof customViewInputSchema> {
  const input = customViewInputSchema.parse(raw);
  input.columns.forEach((key, i) => {
    if (!columnOf(def, key))
      throw new AppError('BAD_REQUEST', `columns.${i}: unknown column ${key}`, { field: `columns.${i}` });
  });
  input.columns = [...new Set(input.columns)];
  for (const [key, value] of Object.entries(input.filters)) {
    if (!parseFilter(def, key, value))
      throw new AppError('BAD_REQUEST', `filters.${key}: invalid filter value`, { field: `filters.${key}` });
  }
  if (input.sort !== null && !parseSort(def, input.sort))
    throw new AppError('BAD_REQUEST', `sort: cannot sort by ${input.sort}`, { field: 'sort' });
  if (input.tab !== null && !def.tabs.some((t) => t.name === input.tab))
    throw new AppError('BAD_REQUEST', `tab: unknown tab ${input.tab}`, { field: 'tab' });
  return input;
}

/** The list state a view opens (what the list page's URL becomes when the view is chosen). */
export function viewState(def: ListDef, view: CustomView): ListState {
  const state = defaultListState(def);
  state.view = view.id;
  if (view.tab && def.tabs.some((t) => t.name === view.tab)) state.tab = view.tab;
  const sort = parseSort(def, view.sort);
  if (sort) state.sort = sort;
  for (const [key, value] of Object.entries(view.filters)) {
    const filter = parseFilter(def, key, value);
    if (filter) state.filters[key] = filter;
  }
  const columns = view.columns.filter((key) => columnOf(def, key));
  state.columns = columns.length ? columns : null;
  return state;
}

export function viewHref(def: ListDef, view: CustomView, path: string): string {
  return `${path}?${listQuery(def, viewState(def, view))}`;
}

/** What a view form starts from when saving the current list state as a view. */
export function inputFromState(
  state: ListState,
  def: ListDef,
): Omit<z.output<typeof customViewInputSchema>, 'name' | 'isShared'> {
  const filters: Record<string, string> = {};
  const params = new URLSearchParams(listQuery(def, state));
  for (const [name, value] of params) if (name.startsWith('f.')) filters[name.slice(2)] = value;
  return {
    columns: state.columns ?? [],
    filters,
    sort: params.get('sort'),
    tab: state.tab === def.defaultTab ? null : state.tab,
  };
}

export type Actor = { tenantId: string; userId: string; ip?: string | null; requestId?: string | null };

function duplicate(error: unknown): never {
  if ((error as { code?: string })?.code === '23505')
    throw new AppError('ALREADY_EXISTS', 'name: you already have a view with this name', { field: 'name' });
  throw error;
}

export async function createCustomView(
  tx: Tx,
  actor: Actor,
  registered: ListDef,
  raw: CustomViewInput,
): Promise<CustomView> {
  // A view may show and filter the tenant's customized-field columns (issue 13).
  const def = await withCustomColumns(tx, registered, 'en');
  const input = validateCustomView(def, raw);
  const rows = await tx
    .query<Row>(
      `insert into custom_views (tenant_id, owner_id, list_name, name, columns, filters, sort, tab, is_shared)
       values ($1, $2, $3, $4, $5::text[], $6::jsonb, $7, $8, $9) returning ${COLUMNS}`,
      [
        actor.tenantId,
        actor.userId,
        def.name,
        input.name,
        input.columns,
        JSON.stringify(input.filters),
        input.sort,
        input.tab,
        input.isShared,
      ],
    )
    .catch(duplicate);
  const view = toView(rows[0]!, actor.userId);
  await recordAudit(tx, {
    tenantId: actor.tenantId,
    actorId: actor.userId,
    action: 'custom_view.create',
    objectType: 'custom_view',
    objectId: view.id,
    after: view,
    ip: actor.ip,
    requestId: actor.requestId,
    outcome: 'success',
  });
  return view;
}

/** The user's own views and the shared ones of a list: own first, then by name. */
export async function listCustomViews(tx: Tx, actor: Actor, listName: string): Promise<CustomView[]> {
  const rows = await tx.query<Row>(
    `select ${COLUMNS} from custom_views where list_name = $1 and (owner_id = $2 or is_shared)
      order by (owner_id = $2) desc, lower(name), id limit 200`,
    [listName, actor.userId],
  );
  return rows.map((r) => toView(r, actor.userId));
}

/** A view the user may open (own or shared); someone else's personal view is NOT_FOUND, as if absent. */
export async function getCustomView(tx: Tx, actor: Actor, listName: string, id: string): Promise<CustomView> {
  if (!UUID.test(id)) throw new AppError('NOT_FOUND', 'This view does not exist.', { field: 'id' });
  const [row] = await tx.query<Row>(
    `select ${COLUMNS} from custom_views where id = $1 and list_name = $2 and (owner_id = $3 or is_shared)`,
    [id, listName, actor.userId],
  );
  if (!row) throw new AppError('NOT_FOUND', 'This view does not exist.', { field: 'id' });
  return toView(row, actor.userId);
}

async function ownView(tx: Tx, actor: Actor, listName: string, id: string, action: string): Promise<CustomView> {
  const view = await getCustomView(tx, actor, listName, id);
  if (!view.isOwn) {
    throw new AppError(
      'FORBIDDEN',
      'Only the owner of a shared view can change it; save it as your own view instead.',
      { details: { action } },
    );
  }
  return view;
}

export async function updateCustomView(
  tx: Tx,
  actor: Actor,
  def: ListDef,
  id: string,
  raw: CustomViewInput,
): Promise<CustomView> {
  const before = await ownView(tx, actor, def.name, id, 'update');
  const input = validateCustomView(await withCustomColumns(tx, def, 'en'), raw);
  const rows = await tx
    .query<Row>(
      `update custom_views set name = $2, columns = $3::text[], filters = $4::jsonb, sort = $5, tab = $6, is_shared = $7, updated_at = now()
        where id = $1 and owner_id = $8 returning ${COLUMNS}`,
      [
        id,
        input.name,
        input.columns,
        JSON.stringify(input.filters),
        input.sort,
        input.tab,
        input.isShared,
        actor.userId,
      ],
    )
    .catch(duplicate);
  const after = toView(rows[0]!, actor.userId);
  await recordAudit(tx, {
    tenantId: actor.tenantId,
    actorId: actor.userId,
    action: 'custom_view.update',
    objectType: 'custom_view',
    objectId: id,
    before,
    after,
    ip: actor.ip,
    requestId: actor.requestId,
    outcome: 'success',
  });
  return after;
}

export async function deleteCustomView(tx: Tx, actor: Actor, listName: string, id: string): Promise<void> {
  const before = await ownView(tx, actor, listName, id, 'delete');
  await tx.query('delete from custom_views where id = $1 and owner_id = $2', [id, actor.userId]);
  await recordAudit(tx, {
    tenantId: actor.tenantId,
    actorId: actor.userId,
    action: 'custom_view.delete',
    objectType: 'custom_view',
    objectId: id,
    before,
    ip: actor.ip,
    requestId: actor.requestId,
    outcome: 'success',
  });
}
