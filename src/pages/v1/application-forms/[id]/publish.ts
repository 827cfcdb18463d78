import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { publishFormCommand, withFormId } from '#lib/forms/application-forms.ts';

/**
 * POST /v1/application-forms/{id}/publish { expectedRevision? } → the form: the draft becomes a new
 * immutable version served at /application/<slug>; 409 `nothing_to_publish` when it has no field or is
 * the published version unchanged.
 */
export const POST: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), publishFormCommand, {
    objectId: id,
    input: withFormId(id),
    answer: (form) => ({ status: 200, body: form }),
  });
};
