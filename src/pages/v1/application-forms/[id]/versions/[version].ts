import type { APIRoute } from 'astro';
import { apiContext, query } from '#lib/lending/api.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { getFormVersion } from '#lib/forms/application-forms.ts';

/** GET /v1/application-forms/{id}/versions/{version} → one published version with its document. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), (tx) => {
    const version = Number(context.params.version);
    if (!Number.isInteger(version) || version < 1 || version > 1_000_000)
      throw new AppError('NOT_FOUND', 'Version not found', { field: 'version' });
    return getFormVersion(tx, context.params.id ?? '', version);
  });
