import type { AstroGlobal } from 'astro';
import { z } from 'zod';
import {
  definitionFromParams,
  definitionQuery,
  findDataset,
  type Dataset,
  type QueryDefinitionInput,
} from '#lib/analytics/datasets.ts';
import {
  deleteQueryCommand,
  getSavedQuery,
  requestQueryExport,
  auditQueryExport,
  resultsPosition,
  runQuery,
  saveQueryCommand,
  type QueryResults,
  type SavedQuery,
} from '#lib/analytics/queries.ts';
import { listViewerOf, queryCan, type QueryCan } from '#lib/analytics/query-viewer.ts';
import { boardScope, type ScopeOption } from '#lib/boards/scope-picker.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { formErrorOf } from '#lib/errors/messages.ts';
import { ensureListExportJob } from '#lib/exports/register.ts';
import { EXPORT_FORMATS } from '#lib/exports/write-list-export.ts';
import { withCustomColumns } from '#lib/lists/custom-columns.ts';
import type { ListDef } from '#lib/lists/definition.ts';
import { logger } from '#lib/observability/log.ts';
import { pageDb } from '../../server/db.ts';
import { formCommand, type FieldError } from '../pages/form-command.ts';

export type { QueryCan };

/**
 * Astro glue of the query pages (/analytics/queries/new, /:id and their /results): reading the
 * definition from the URL or a posted form, the save / delete / export posts through the commands,
 * the run through src/lib/analytics/queries.ts. Decisions live there; this only wires requests.
 */

export type EditorValues = { name: string; description: string; revision: string; definition: QueryDefinitionInput };

export type EditorPage = {
  saved: SavedQuery | null;
  values: EditorValues;
  dataset: Dataset;
  /** The dataset with the tenant's customized-field columns, in the viewer's language. */
  def: ListDef;
  scopeOptions: ScopeOption[];
  error: FieldError | null;
  can: QueryCan;
  isConfirmingDelete: boolean;
};

/** The form's fields as URL parameters, repeated checkboxes kept. */
function formParams(form: FormData): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of form.entries()) if (typeof value === 'string') params.append(name, value);
  return params;
}

/** The dataset a form shows: the definition's, or loans for a new query. */
function datasetOf(definition: QueryDefinitionInput): Dataset {
  return findDataset(definition.dataset) ?? findDataset('loans')!;
}

function requireSignedIn(Astro: AstroGlobal) {
  const { principal, tenant } = Astro.locals;
  if (!principal || !tenant) throw new AppError('UNAUTHORIZED', 'Sign in first.');
  return { principal, tenant };
}

/**
 * The editor (/new when `id` is null, /:id otherwise): GET shows the saved query (or the definition
 * in the URL: `?dataset=…` chooses a dataset or carries a definition back from its results); POST
 * `_action=save` creates or updates (a stale revision is a 409 that keeps what was typed),
 * `_action=delete` deletes after the confirmation step (`?confirm=delete`).
 */
export async function loadEditor(
  Astro: AstroGlobal,
  id: string | null,
): Promise<{ kind: 'redirect'; location: string } | ({ kind: 'ok' } & EditorPage)> {
  const { principal, tenant } = requireSignedIn(Astro);
  const db = await pageDb();
  const saved = id ? await db.tenant(tenant.id, (tx) => getSavedQuery(tx, id)) : null;
  const url = Astro.url.searchParams;
  let values: EditorValues = {
    name: saved?.name ?? url.get('name') ?? '',
    description: saved?.description ?? url.get('description') ?? '',
    revision: saved ? String(saved.revision) : '',
    definition: url.has('dataset') || !saved ? definitionFromParams(url) : saved.definition,
  };
  let error: FieldError | null = null;
  if (Astro.request.method === 'POST') {
    const form = await Astro.request.formData();
    const action = String(form.get('_action') ?? '');
    const outcome =
      action === 'delete' && saved
        ? await formCommand(Astro, deleteQueryCommand, {
            form,
            objectId: saved.id,
            input: (v) => ({ id: saved.id, revision: v.revision || null }),
            redirect: () => '/analytics/queries?done=deleted',
          })
        : await formCommand(Astro, saveQueryCommand, {
            form,
            objectId: saved?.id ?? null,
            input: (v, f) => ({
              id: saved?.id ?? null,
              revision: saved ? v.revision || null : null,
              name: v.name ?? '',
              description: v.description ?? '',
              definition: definitionFromParams(formParams(f)),
            }),
            redirect: (query) => `/analytics/queries/${query.id}?done=saved`,
          });
    if (outcome.kind === 'redirect') return outcome;
    if (outcome.kind === 'refused') {
      error = outcome.error;
      if (action !== 'delete')
        values = {
          name: outcome.values.name ?? '',
          description: outcome.values.description ?? '',
          revision: outcome.values.revision ?? '',
          definition: definitionFromParams(formParams(form)),
        };
    }
  }
  const dataset = datasetOf(values.definition);
  const { def, scopeOptions } = await db.tenant(tenant.id, async (tx) => ({
    def: await withCustomColumns(tx, dataset.def, Astro.locals.language ?? 'en'),
    scopeOptions: (await boardScope(tx, principal, null)).options,
  }));
  return {
    kind: 'ok',
    saved,
    values,
    dataset,
    def,
    scopeOptions,
    error,
    can: queryCan(principal),
    isConfirmingDelete: Boolean(saved) && url.get('confirm') === 'delete',
  };
}

export type ResultsPage = {
  saved: SavedQuery | null;
  /** Whether the URL carries a definition (a new query, or a saved one being changed). */
  isFromUrl: boolean;
  name: string;
  description: string;
  results: QueryResults | null;
  /** The definition's query string (links to the editor and to other pages of results). */
  definitionQuery: string;
  error: FieldError | null;
  can: QueryCan;
};

const exportFormSchema = z.object({ format: z.enum(EXPORT_FORMATS) });

/**
 * The results (/new/results when `id` is null, /:id/results otherwise): the definition in the URL,
 * or the saved one; one page of rows and the capped count. POST `_action=export` queues the export
 * (analytics.list_export.export_query) and opens the downloads list; `_action=save` saves the
 * definition (a new query, or the saved one's next revision).
 */
export async function loadResults(
  Astro: AstroGlobal,
  id: string | null,
): Promise<{ kind: 'redirect'; location: string } | ({ kind: 'ok' } & ResultsPage)> {
  const { principal, tenant } = requireSignedIn(Astro);
  const language = Astro.locals.language ?? 'en';
  const db = await pageDb();
  const saved = id ? await db.tenant(tenant.id, (tx) => getSavedQuery(tx, id)) : null;
  const url = Astro.url.searchParams;
  const isFromUrl = !saved || url.has('dataset');
  const definition: QueryDefinitionInput | SavedQuery['definition'] = isFromUrl
    ? definitionFromParams(url)
    : saved.definition;
  const can = queryCan(principal);
  const viewer = listViewerOf(principal, tenant, language);
  let error: FieldError | null = null;
  let name = url.get('name') ?? saved?.name ?? '';
  let description = url.get('description') ?? saved?.description ?? '';
  if (Astro.request.method === 'POST') {
    const form = await Astro.request.formData();
    if (form.get('_action') === 'save') {
      const outcome = await formCommand(Astro, saveQueryCommand, {
        form,
        objectId: saved?.id ?? null,
        input: (v) => ({
          id: saved?.id ?? null,
          revision: saved ? v.revision || null : null,
          name: v.name ?? '',
          description: v.description ?? '',
          definition,
        }),
        redirect: (query) => `/analytics/queries/${query.id}/results?done=saved`,
      });
      if (outcome.kind === 'redirect') return outcome;
      if (outcome.kind === 'refused') {
        error = outcome.error;
        name = outcome.values.name ?? name;
        description = outcome.values.description ?? description;
      }
    } else {
      try {
        if (form.get('_action') !== 'export')
          throw new AppError('BAD_REQUEST', 'Unknown action.', { field: '_action' });
        if (!can.export) throw new AppError('FORBIDDEN', 'You may not export queries.');
        const { format } = exportFormSchema.parse({ format: form.get('format') });
        ensureListExportJob();
        await requestQueryExport(db, viewer, definition, format, saved?.name ?? name ?? '');
        await auditQueryExport(
          db,
          { tenantId: viewer.tenantId, userId: viewer.userId, requestId: Astro.locals.requestId },
          { queryId: saved?.id ?? null, dataset: String((definition as { dataset?: unknown }).dataset ?? ''), format },
        );
        return { kind: 'redirect', location: '/analytics/user/downloads-list' };
      } catch (caught) {
        const refusal = formErrorOf(caught, language);
        if (!refusal) throw caught;
        logger.warn('query export refused', { request_id: Astro.locals.requestId, error: String(caught) });
        Astro.response.status = refusal.status;
        error = { field: refusal.field, message: refusal.message };
      }
    }
  }
  let results: QueryResults | null = null;
  const position = resultsPosition(
    new URLSearchParams([...url].filter(([k]) => ['page', 'cursor', 'limit'].includes(k))),
  );
  try {
    results = await runQuery(db, viewer, definition, position);
  } catch (caught) {
    const refusal = formErrorOf(caught, language);
    if (!refusal || refusal.status >= 500) throw caught;
    Astro.response.status = refusal.status;
    error ??= { field: refusal.field, message: refusal.message };
  }
  return {
    kind: 'ok',
    saved,
    isFromUrl,
    name,
    description,
    results,
    definitionQuery: results ? definitionQuery(results.definition) : new URLSearchParams(url).toString(),
    error,
    can,
  };
}
