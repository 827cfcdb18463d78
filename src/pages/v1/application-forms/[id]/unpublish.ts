import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { unpublishFormCommand, withFormId } from '#lib/forms/application-forms.ts';

/** POST /v1/application-forms/{id}/unpublish { expectedRevision? } → the form: its public link answers 404 from now on. */
export const POST: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), unpublishFormCommand, {
    objectId: id,
    input: withFormId(id),
    answer: (form) => ({ status: 200, body: form }),
  });
};
