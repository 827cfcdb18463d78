import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { createWebhookCommand, listWebhooks, webhookJson } from '#lib/webhooks/endpoints.ts';

/** GET /v1/webhooks → { items: [{ id, url, description, events, enabled, disabledReason, lastDeliveryAt, failed, pending, delivered, … }] }. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx) => ({
    items: (await listWebhooks(tx)).map((w) => ({
      ...webhookJson(w),
      lastDeliveryAt: w.lastDeliveryAt,
      lastStatus: w.lastStatus,
      failed: w.failed,
      pending: w.pending,
      delivered: w.delivered,
    })),
  }));

/**
 * POST /v1/webhooks { url, events: ["loan.repayment.created", "loan.*", "*"], description?, enabled? } →
 * 201 { id, secret, … }: the secret (whsec_…) is shown this once. 400 naming `url` (not a public
 * http(s) address) or `events` (an unknown type).
 */
export const POST: APIRoute = (context) =>
  commandEndpoint(apiContext(context), createWebhookCommand, {
    answer: ({ endpoint, secret }) => ({ status: 201, body: { ...webhookJson(endpoint), secret } }),
  });
