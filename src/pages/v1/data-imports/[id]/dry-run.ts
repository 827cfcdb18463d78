import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { importJson, runImportCommand } from '#lib/data-import/imports.ts';

/**
 * POST /v1/data-imports/{id}/dry-run { mapping?: { field: "Header" }, expectedVersion? } → 202 the import,
 * queued as a job; poll GET /v1/data-imports/{id} for its progress and outcome.
 */
export const POST: APIRoute = (context) =>
  commandEndpoint(apiContext(context), runImportCommand, {
    objectId: context.params.id ?? null,
    input: (body) => ({
      ...(typeof body === 'object' && body ? body : {}),
      id: context.params.id ?? '',
      mode: 'dry_run',
    }),
    answer: (row) => ({ status: 202, body: importJson(row) }),
  });
