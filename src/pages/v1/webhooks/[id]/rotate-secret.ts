import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { rotateWebhookSecretCommand } from '#lib/webhooks/endpoints.ts';

/** POST /v1/webhooks/{id}/rotate-secret → { secret, previousSecretUntil }: the old secret keeps signing too for 24 hours. */
export const POST: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), rotateWebhookSecretCommand, {
    objectId: id,
    input: () => ({ id }),
    answer: ({ endpoint, secret }) => ({
      status: 200,
      body: { secret, previousSecretUntil: endpoint.previousSecretUntil },
    }),
  });
};
