import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { getCustomizedForm, saveCustomizedFormCommand } from '#lib/forms/application-forms.ts';

/** GET /v1/customized-forms/{entity} (customer | loan_application | collateral) → { entity, document, revision, fields }. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), (tx) => getCustomizedForm(tx, context.params.entity ?? ''));

/**
 * PUT /v1/customized-forms/{entity} { document, expectedRevision } → the saved form (applies at once).
 * No file, consent or bound field; `expectedRevision` null for the first save; 409 when stale.
 */
export const PUT: APIRoute = (context) => {
  const entity = context.params.entity ?? '';
  return commandEndpoint(apiContext(context), saveCustomizedFormCommand, {
    objectId: entity,
    input: (body) => ({ ...(body && typeof body === 'object' && !Array.isArray(body) ? body : {}), entity }),
    answer: (form) => ({ status: 200, body: form }),
  });
};
