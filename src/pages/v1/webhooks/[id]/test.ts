import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { testWebhookCommand } from '#lib/webhooks/endpoints.ts';

/** POST /v1/webhooks/{id}/test → 202 { deliveryId, webhookId }: a `webhook.test` event queued for sending. */
export const POST: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), testWebhookCommand, {
    objectId: id,
    input: () => ({ id }),
    answer: ({ deliveryId, msgId }) => ({ status: 202, body: { deliveryId, webhookId: msgId } }),
  });
};
