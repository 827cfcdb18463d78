import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { resendWebhookDeliveryCommand } from '#lib/webhooks/endpoints.ts';

/** POST /v1/webhooks/{id}/deliveries/{deliveryId}/resend → 202 { deliveryId, webhookId }: a new attempt of the same message. */
export const POST: APIRoute = (context) => {
  const id = context.params.id ?? '';
  const deliveryId = context.params.deliveryId ?? '';
  return commandEndpoint(apiContext(context), resendWebhookDeliveryCommand, {
    objectId: id,
    input: () => ({ id, deliveryId }),
    answer: (out) => ({ status: 202, body: { deliveryId: out.deliveryId, webhookId: out.msgId } }),
  });
};
