import type { APIRoute } from 'astro';
import { apiContext } from '#lib/lending/api.ts';
import { getSubmissionHttp } from '#lib/forms/submissions-http.ts';

/** GET /v1/application-forms/:id/submissions/:submissionId → the submission, its answers, files and links. */
export const GET: APIRoute = (context) =>
  getSubmissionHttp(apiContext(context), context.params.id ?? '', context.params.submissionId ?? '');
