import type { APIRoute } from 'astro';
import { apiContext } from '#lib/lending/api.ts';
import { downloadSubmissionFileHttp } from '#lib/forms/submissions-http.ts';

/** GET /v1/application-forms/:id/submissions/:submissionId/files/:fileId → the uploaded file (attachment), audited. */
export const GET: APIRoute = (context) =>
  downloadSubmissionFileHttp(apiContext(context), {
    formId: context.params.id ?? '',
    submissionId: context.params.submissionId ?? '',
    fileId: context.params.fileId ?? '',
  });
