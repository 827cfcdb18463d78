import type { AstroGlobal } from 'astro';
import { pageDb } from '../../server/db.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { inputErrorFromPg } from '#lib/http/respond.ts';
import {
  getCustomView,
  inputFromState,
  viewHref,
  type CustomView,
  type CustomViewInput,
} from '#lib/lists/custom-views.ts';
import { deleteCustomViewCommand, saveCustomViewCommand } from '#lib/lists/custom-view-commands.ts';
import { formCommand } from '../pages/form-command.ts';
import { findList, type ListEntry } from '#lib/lists/registry.ts';
import { withCustomColumns } from '#lib/lists/custom-columns.ts';
import { parseListState } from '#lib/lists/url-state.ts';

/**
 * Astro glue of /loans/<list>/add-custom-view and /loans/<list>/update-custom-view/:id: GET shows
 * the form (a new view starts from the list state it was opened from), POST saves or deletes and
 * goes back to the list showing the view. Plain forms: they work without JavaScript.
 */
export type ViewForm = {
  name: string;
  isShared: boolean;
  tab: string;
  sortKey: string;
  sortDir: 'asc' | 'desc';
  columns: string[];
  filters: Record<string, string>;
};

export type CustomViewPageResult =
  | { kind: 'redirect'; location: string }
  | {
      kind: 'form';
      entry: ListEntry;
      form: ViewForm;
      view: CustomView | null;
      error: { field: string | null; message: string } | null;
    };

function formFromInput(entry: ListEntry, input: Omit<CustomViewInput, 'name'> & { name?: string }): ViewForm {
  const sort = input.sort ?? `${entry.def.defaultSort.dir === 'desc' ? '-' : ''}${entry.def.defaultSort.key}`;
  return {
    name: input.name ?? '',
    isShared: Boolean(input.isShared),
    tab: input.tab ?? entry.def.defaultTab,
    sortKey: sort.replace(/^-/, ''),
    sortDir: sort.startsWith('-') ? 'desc' : 'asc',
    columns: input.columns ?? [],
    filters: input.filters ?? {},
  };
}

function inputFromForm(entry: ListEntry, data: FormData): CustomViewInput {
  const filters: Record<string, string> = {};
  for (const column of entry.def.columns) {
    const value = String(data.get(`f.${column.key}`) ?? '').trim();
    if (column.filter && value) filters[column.key] = value;
  }
  const sortKey = String(data.get('sortKey') ?? '');
  const tab = String(data.get('tab') ?? '');
  return {
    name: String(data.get('name') ?? ''),
    isShared: data.get('isShared') === 'on',
    tab: tab && tab !== entry.def.defaultTab ? tab : null,
    sort: sortKey ? `${data.get('sortDir') === 'desc' ? '-' : ''}${sortKey}` : null,
    columns: data.getAll('columns').map(String),
    filters,
  };
}

export async function loadCustomViewPage(
  Astro: AstroGlobal,
  listName: string,
  viewId: string | null,
): Promise<CustomViewPageResult> {
  const registered = findList(listName);
  // Refusals are thrown from the page's frontmatter: the client-errors middleware step answers the
  // section's 404 / 403 page with that status (a status set while the page streams would be lost).
  if (!registered || !registered.hasCustomViews) throw new AppError('NOT_FOUND', 'This list has no custom views.');
  const { principal, tenant, language } = Astro.locals;
  if (!principal || !tenant)
    return { kind: 'redirect', location: `/user/login?redirect=${encodeURIComponent(Astro.url.pathname)}` };
  // The route manifest gives these pages the custom-views edit permission: the guard has decided.
  const db = await pageDb();
  // The column picker offers the tenant's customized-field columns too (issue 13).
  const entry: ListEntry = {
    ...registered,
    def: await db.tenant(tenant.id, (tx) => withCustomColumns(tx, registered.def, language)),
  };
  const actor = { tenantId: tenant.id, userId: principal.userId, requestId: Astro.locals.requestId };
  let view: CustomView | null = null;
  if (viewId) {
    try {
      view = await db.tenant(tenant.id, (tx) => getCustomView(tx, actor, listName, viewId));
    } catch (error) {
      throw (error instanceof AppError && error.status < 500) || inputErrorFromPg(error)
        ? new AppError('NOT_FOUND', 'This view does not exist.', { field: 'id' })
        : error;
    }
    if (!view.isOwn) throw new AppError('FORBIDDEN', 'Only its owner may change this view.');
  }
  if (Astro.request.method === 'POST') {
    const form = await Astro.request.formData();
    const input = inputFromForm(entry, form);
    const outcome =
      view && form.get('_action') === 'delete'
        ? await formCommand(Astro, deleteCustomViewCommand, {
            form,
            objectId: view.id,
            input: () => ({ list: listName, viewId: view!.id }),
            redirect: () => entry.path,
          })
        : await formCommand(Astro, saveCustomViewCommand, {
            form,
            objectId: view?.id ?? null,
            input: () => ({ ...input, list: listName, viewId: view?.id ?? null }),
            redirect: (saved) => viewHref(entry.def, saved, entry.path),
          });
    if (outcome.kind === 'redirect') return { kind: 'redirect', location: outcome.location };
    return {
      kind: 'form',
      entry,
      view,
      form: formFromInput(entry, input),
      error: { field: outcome.error.field ?? null, message: outcome.error.message },
    };
  }
  if (view) return { kind: 'form', entry, view, form: formFromInput(entry, view), error: null };
  const { state } = parseListState(entry.def, Astro.url.searchParams);
  return {
    kind: 'form',
    entry,
    view: null,
    form: formFromInput(entry, { ...inputFromState(state, entry.def), isShared: false }),
    error: null,
  };
}
