import type { APIRoute } from 'astro';
import { env } from '#lib/config/env.ts';
import { pageDb } from '../../../server/db.ts';
import { json } from '#lib/http/respond.ts';
import { inboundBody, MAX_INBOUND_BYTES, receiveInbound, verifyWebhook } from '#lib/conversations/inbound.ts';
import { logger } from '#lib/observability/log.ts';

/**
 * POST /v1/conversations/inbound?tenant=<slug> — the provider's inbound SMS and e-mail replies, signed
 * with Standard Webhooks headers (src/lib/conversations/inbound.ts). 401 unsigned or badly signed or
 * out of time; 200 stored (or a replay, stored once); 202 for a sender we do not know (stored nowhere).
 */
export const POST: APIRoute = async ({ request, url }) => {
  const raw = await request.text();
  if (Buffer.byteLength(raw) > MAX_INBOUND_BYTES)
    return json({ error: { code: 'PAYLOAD_TOO_LARGE', message: 'The request body is too large.' } }, { status: 413 });
  const ok = verifyWebhook(
    env().inboundWebhookSecret,
    {
      id: request.headers.get('webhook-id'),
      timestamp: request.headers.get('webhook-timestamp'),
      signature: request.headers.get('webhook-signature'),
    },
    raw,
  );
  if (!ok) return json({ error: { code: 'UNAUTHORIZED', message: 'Invalid webhook signature.' } }, { status: 401 });
  let parsed;
  try {
    parsed = inboundBody.parse(JSON.parse(raw));
  } catch {
    return json(
      { error: { code: 'BAD_REQUEST', message: 'The body is not a valid inbound message.' } },
      { status: 400 },
    );
  }
  try {
    const outcome = await receiveInbound(await pageDb(), parsed, url.searchParams.get('tenant'));
    if (outcome.status === 'unknown_sender') return json({ status: 'ignored' }, { status: 202 });
    return json({ status: outcome.status }, { status: 200 });
  } catch (error) {
    logger.error('inbound message failed', { error });
    return json({ error: { code: 'INTERNAL', message: 'Internal error.' } }, { status: 500 });
  }
};
