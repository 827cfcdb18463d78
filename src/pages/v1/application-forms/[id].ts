import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { deleteFormCommand, getApplicationForm, updateFormCommand, withFormId } from '#lib/forms/application-forms.ts';

/** GET /v1/application-forms/{id} → the form with its draft and revision. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), (tx) => getApplicationForm(tx, context.params.id ?? ''));

/**
 * PUT /v1/application-forms/{id} { expectedRevision, name?, description?, document?, productIds? } → the
 * form: saves the draft (422 with `details.problems` when the document is not valid, 409 when stale).
 */
export const PUT: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), updateFormCommand, {
    objectId: id,
    input: withFormId(id),
    answer: (form) => ({ status: 200, body: form }),
  });
};

/** DELETE /v1/application-forms/{id} → { id }: only a form that was never published (409 otherwise). */
export const DELETE: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), deleteFormCommand, {
    objectId: id,
    input: withFormId(id),
    answer: (out) => ({ status: 200, body: out }),
  });
};
