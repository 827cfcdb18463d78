import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { retrySubmissionCommand } from '#lib/intake/submit.ts';

/** POST /v1/application-forms/{id}/submissions/{submissionId}/retry → the submission, processed again (or failed again with the new error). */
export const POST: APIRoute = (context) => {
  const formId = context.params.id ?? '';
  const submissionId = context.params.submissionId ?? '';
  return commandEndpoint(apiContext(context), retrySubmissionCommand, {
    objectId: submissionId,
    input: () => ({ formId, submissionId }),
    answer: (submission) => ({ status: 200, body: submission }),
  });
};
