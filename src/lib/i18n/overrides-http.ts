import { getDb } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { contentDisposition } from '../http/content-disposition.ts';
import { QueryReader } from '../http/query-params.ts';
import { errorResponse } from '../http/respond.ts';
import { readUploadedFile } from '../http/upload.ts';
import { requirePrincipal } from '../auth/principal.ts';
import type { ApiContext } from '../lending/api.ts';
import { getT, type Language } from './index.ts';
import {
  IMPORT_XLSX_MAX_BYTES,
  detectFormat,
  exportOverridesJson,
  exportOverridesXlsx,
  parseImportFile,
} from './overrides.ts';

/** The HTTP glue of export and import (kept out of Astro so tests call it with plain Requests). */

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** GET /v1/translation-overrides/export?format=json|xlsx (the route's rule: admin.translations.view). */
export async function exportOverridesResponse(ctx: ApiContext): Promise<Response> {
  try {
    const principal = requirePrincipal(ctx.principal);
    const q = new QueryReader(new URL(ctx.request.url).searchParams, ['format']);
    const format = q.oneOf('format', ['json', 'xlsx'] as const) ?? 'json';
    const db = ctx.db ?? (await getDb());
    const stamp = new Date().toISOString().slice(0, 10);
    const headers = (type: string, ext: string) => ({
      'content-type': type,
      'content-disposition': contentDisposition('attachment', `translations-${stamp}.${ext}`),
      'cache-control': 'private, no-store',
      'x-content-type-options': 'nosniff',
    });
    if (format === 'xlsx') {
      const bytes = await db.tenant(principal.tenantId, (tx) => exportOverridesXlsx(tx));
      return new Response(new Uint8Array(bytes), { headers: headers(XLSX_TYPE, 'xlsx') });
    }
    const data = await db.tenant(principal.tenantId, (tx) => exportOverridesJson(tx));
    return new Response(`${JSON.stringify(data, null, 2)}\n`, {
      headers: headers('application/json; charset=utf-8', 'json'),
    });
  } catch (error) {
    return errorResponse(error, ctx.requestId, ctx.language);
  }
}

/** The import command's input from a request: a multipart `file`, or the body itself (JSON or XLSX). */
export async function importInputFromRequest(request: Request, language: Language): Promise<{ rows: unknown[] }> {
  const t = await getT(language);
  const file = await readUploadedFile(request, IMPORT_XLSX_MAX_BYTES);
  if (!file) throw new AppError('BAD_REQUEST', t('platform:translations.errors.noFile'), { field: 'file' });
  return { rows: await parseImportFile(t, { format: detectFormat(file.bytes), bytes: file.bytes }) };
}
