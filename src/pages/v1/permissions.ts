import type { APIRoute } from 'astro';
import { AppError } from '#lib/errors/app-error.ts';
import { errorResponse } from '#lib/http/respond.ts';
import { getT } from '#lib/i18n/index.ts';
import { apiContext, query } from '#lib/lending/api.ts';
import { grantLabels } from '#lib/roles/labels.ts';
import { matrixDownload, matrixFilterOf } from '#lib/roles/matrix-api.ts';
import { filterMatrix, matrixJson, permissionMatrix } from '#lib/roles/matrix.ts';

/**
 * GET /v1/permissions[?area=loans&q=offers] → the roles × permission keys matrix with each role's users.
 * `?format=csv` or `?format=xlsx` downloads the same rows as a file, in the caller's language.
 */
export const GET: APIRoute = async (context) => {
  const ctx = apiContext(context);
  const format = context.url.searchParams.get('format') ?? 'json';
  const t = await getT(ctx.language ?? 'en');
  const labels = grantLabels((key) => t(key));
  if (format === 'json')
    return query(ctx, async (tx, _actor, url) =>
      matrixJson(filterMatrix(await permissionMatrix(tx), matrixFilterOf(url), labels)),
    );
  if (format !== 'csv' && format !== 'xlsx')
    return errorResponse(
      new AppError('BAD_REQUEST', 'format must be one of: json, csv, xlsx.', { field: 'format' }),
      ctx.requestId,
      ctx.language,
    );
  return matrixDownload(ctx, format);
};
