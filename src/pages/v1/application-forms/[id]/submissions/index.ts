import type { APIRoute } from 'astro';
import { apiContext } from '#lib/lending/api.ts';
import { exportSubmissionsHttp, listSubmissionsHttp } from '#lib/forms/submissions-http.ts';

/**
 * GET /v1/application-forms/:id/submissions?status&outcome&match&from&to&q&after&limit → one page of
 * the form's submissions (newest first, `next` cursor). With `format=csv|xlsx` (same filters): every
 * matching submission as an attachment, the answers as columns.
 */
export const GET: APIRoute = (context) => {
  const ctx = apiContext(context);
  const formId = context.params.id ?? '';
  return new URL(context.request.url).searchParams.has('format')
    ? exportSubmissionsHttp(ctx, formId)
    : listSubmissionsHttp(ctx, formId);
};
