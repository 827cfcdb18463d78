import { requirePrincipal } from '../auth/principal.ts';
import { getDb } from '../db/index.ts';
import { errorResponse } from '../http/respond.ts';
import { getT } from '../i18n/index.ts';
import type { ApiContext } from '../lending/api.ts';
import { grantLabels } from './labels.ts';
import { filterMatrix, matrixCsv, matrixXlsx, permissionMatrix, type MatrixFilter } from './matrix.ts';

/** The matrix filters of a URL: `area` (one of the table's areas) and `q` (text). */
export function matrixFilterOf(url: URL): MatrixFilter {
  return { area: url.searchParams.get('area') || null, text: url.searchParams.get('q') || null };
}

const TYPES = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
} as const;

/**
 * The matrix as a file to download (GET /v1/permissions?format=csv|xlsx): the rows the filters of the
 * URL keep, words in the caller's language. A few hundred rows at most, so it is built in memory
 * rather than as a background export.
 */
export async function matrixDownload(ctx: ApiContext, format: keyof typeof TYPES): Promise<Response> {
  try {
    const principal = requirePrincipal(ctx.principal);
    const translate = await getT(ctx.language ?? 'en');
    const t = (key: string) => translate(key);
    const labels = grantLabels(t);
    const db = ctx.db ?? (await getDb());
    const matrix = filterMatrix(
      await db.tenant(principal.tenantId, (tx) => permissionMatrix(tx)),
      matrixFilterOf(new URL(ctx.request.url)),
      labels,
    );
    const body = format === 'csv' ? matrixCsv(matrix, labels, t) : await matrixXlsx(matrix, labels, t);
    return new Response(body, {
      status: 200,
      headers: {
        'content-type': TYPES[format],
        'content-disposition': `attachment; filename="permissions.${format}"`,
        'cache-control': 'no-store',
      },
    });
  } catch (error) {
    return errorResponse(error, ctx.requestId, ctx.language);
  }
}
