import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { deleteWebhookCommand, updateWebhookCommand, webhookJson } from '#lib/webhooks/endpoints.ts';
import { webhookOrNotFound } from '#lib/webhooks/api.ts';

/** GET /v1/webhooks/{id} → the endpoint (never its secret); 404 when unknown. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx) => webhookJson(await webhookOrNotFound(tx, context.params.id ?? '')));

/** PATCH /v1/webhooks/{id} { url?, events?, description?, enabled?, expectedRevision? } → the endpoint (409 on a stale revision). */
export const PATCH: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), updateWebhookCommand, {
    objectId: id,
    input: (body) => ({ ...(body && typeof body === 'object' ? body : {}), id }),
    answer: (endpoint) => ({ status: 200, body: webhookJson(endpoint) }),
  });
};

/** DELETE /v1/webhooks/{id} → 200 the deleted endpoint; its deliveries and their log go with it. */
export const DELETE: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), deleteWebhookCommand, {
    objectId: id,
    input: () => ({ id }),
    answer: (endpoint) => ({ status: 200, body: { ...webhookJson(endpoint), deleted: true } }),
  });
};
