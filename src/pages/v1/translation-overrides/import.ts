import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { importOverridesCommand } from '#lib/i18n/overrides.ts';
import { importInputFromRequest } from '#lib/i18n/overrides-http.ts';

/**
 * POST /v1/translation-overrides/import: a JSON body (the export's shape or a flat list), or a
 * multipart form with `file` (JSON or XLSX) → { imported } or 400 with `rows: [{ row, field, message }]`
 * (nothing applied).
 */
export const POST: APIRoute = (context) => {
  const ctx = apiContext(context);
  return commandEndpoint(ctx, importOverridesCommand, {
    readInput: (request) => importInputFromRequest(request, ctx.language ?? 'en'),
    answer: (result) => ({ status: 200, body: result }),
  });
};
