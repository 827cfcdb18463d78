import type { APIRoute } from 'astro';
import { AppError } from '#lib/errors/app-error.ts';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { readUploadedFile } from '#lib/http/upload.ts';
import { MAX_IMPORT_BYTES } from '#lib/data-import/file.ts';
import { importJson, listImports, uploadImportCommand } from '#lib/data-import/imports.ts';

/** GET /v1/data-imports → { items: [the import history, newest first] }. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx) => ({ items: (await listImports(tx)).map((row) => importJson(row)) }));

/**
 * POST /v1/data-imports?kind=customers&name=file.csv with the file as the body (or multipart with
 * `file` and `kind` fields) → 201 the import: its headers and the suggested `mapping`. Over 20 MB: 413
 * (before the body is read); not CSV or XLSX by content: 400.
 */
export const POST: APIRoute = (context) =>
  commandEndpoint(apiContext(context), uploadImportCommand, {
    readInput: async (request) => {
      const file = await readUploadedFile(request, MAX_IMPORT_BYTES);
      if (!file) throw new AppError('BAD_REQUEST', 'file is required', { field: 'file', key: 'required' });
      const url = new URL(request.url);
      return {
        kind: file.fields.get('kind') ?? url.searchParams.get('kind') ?? '',
        fileName: file.fileName,
        bytes: file.bytes,
      };
    },
    answer: (out) => ({ status: 201, body: { ...importJson(out.import), suggestedMapping: out.mapping } }),
  });
