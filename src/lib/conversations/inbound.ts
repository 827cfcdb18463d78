import crypto from 'node:crypto';
import { z } from 'zod';
import type { Db, Tx } from '../db/index.ts';
import { logger } from '../observability/log.ts';
import { notifyParticipants } from './threads.ts';
import type { TenantsRow } from '../db/schema.generated.ts';

/**
 * Inbound SMS and e-mail replies posted by the provider to POST /v1/conversations/inbound, signed
 * with the Standard Webhooks scheme: `webhook-signature: v1,<base64 HMAC-SHA256(secret, "id.timestamp.body")>`
 * (several space-separated signatures allowed), the secret being the base64 after `whsec_` of
 * INBOUND_WEBHOOK_SECRET. Timestamps more than 5 minutes away are refused.
 *
 * Tenant and thread: an e-mail reply carries the thread's reply token (globally unique), in
 * `replyToken` or in the To address `reply+<token>@…`. An SMS names its tenant by the slug in the
 * URL (`?tenant=<slug>`, one webhook URL per tenant at the provider) and finds the customer by phone
 * (digits compared), then that customer's latest open SMS thread, else a new one. Replays (same
 * `messageId`) store nothing more.
 */
export const MAX_INBOUND_BYTES = 256 * 1024;
export const TOLERANCE_SECONDS = 5 * 60;

export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  return `v1,${crypto.createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

export function verifyWebhook(
  secret: string | undefined,
  headers: { id: string | null; timestamp: string | null; signature: string | null },
  body: string,
  now = Date.now(),
): boolean {
  if (!secret || !headers.id || !headers.timestamp || !headers.signature) return false;
  if (!/^\d{1,12}$/.test(headers.timestamp)) return false;
  const ts = Number(headers.timestamp);
  if (Math.abs(now / 1000 - ts) > TOLERANCE_SECONDS) return false;
  const expected = Buffer.from(signWebhook(secret, headers.id, ts, body).slice(3), 'base64');
  return headers.signature.split(' ').some((part) => {
    const [version, sig] = part.split(',', 2);
    if (version !== 'v1' || !sig) return false;
    const given = Buffer.from(sig, 'base64');
    return given.length === expected.length && crypto.timingSafeEqual(given, expected);
  });
}

export const inboundBody = z.object({
  type: z.enum(['sms', 'email']),
  from: z.string().trim().min(1).max(320),
  to: z.string().trim().max(320).default(''),
  // A long reply (quoted history) is kept, cut to what a message holds, never refused and lost.
  text: z
    .string()
    .max(1_000_000)
    .transform((v) => v.slice(0, 10000)),
  subject: z
    .string()
    .max(10_000)
    .transform((v) => v.slice(0, 200))
    .optional(),
  messageId: z.string().trim().min(1).max(300),
  replyToken: z.string().trim().max(100).optional(),
});
export type InboundBody = z.infer<typeof inboundBody>;

export type InboundOutcome =
  | { status: 'stored'; conversationId: string; messageId: string }
  | { status: 'duplicate' }
  | { status: 'unknown_sender' };

function tokenOf(body: InboundBody): string | null {
  if (body.replyToken && /^[a-z0-9]{16,64}$/i.test(body.replyToken)) return body.replyToken;
  const m = /reply\+([a-z0-9]{16,64})@/i.exec(body.to);
  return m ? m[1] : null;
}

const digits = (s: string) => s.replace(/\D/g, '');

async function store(tx: Tx, tenantId: string, conversationId: string, body: InboundBody): Promise<InboundOutcome> {
  const providerId = `in:${body.type}:${body.messageId}`;
  const [dupe] = await tx.query('select 1 from conversation_messages where provider_message_id = $1', [providerId]);
  if (dupe) return { status: 'duplicate' };
  const [row] = await tx.query<{ id: string }>(
    `insert into conversation_messages (tenant_id, conversation_id, kind, channel, purpose, subject, body, status, provider_message_id, sent_at)
     values ($1, $2, 'inbound', $3, 'service', $4, $5, 'received', $6, now())
     on conflict (tenant_id, provider_message_id) where provider_message_id is not null do nothing returning id`,
    [tenantId, conversationId, body.type, (body.subject ?? '').slice(0, 200), body.text, providerId],
  );
  if (!row) return { status: 'duplicate' };
  const [thread] = await tx.query<{ subject: string; name: string }>(
    `update conversations c set last_message_at = now(), status = 'open' from customers cu
      where c.id = $1 and cu.tenant_id = c.tenant_id and cu.id = c.customer_id
      returning c.subject, cu.first_name || ' ' || cu.last_name as name`,
    [conversationId],
  );
  await notifyParticipants(
    tx,
    tenantId,
    conversationId,
    `${thread.name}: ${thread.subject}`,
    null,
    `message:${row.id}`,
  );
  return { status: 'stored', conversationId, messageId: row.id };
}

export async function receiveInbound(db: Db, body: InboundBody, tenantSlug: string | null): Promise<InboundOutcome> {
  const tenants = await db.system((tx) =>
    tx.query<Pick<TenantsRow, 'id' | 'slug'>>('select id, slug from tenants where is_active order by id'),
  );
  if (body.type === 'email') {
    const token = tokenOf(body);
    if (token)
      for (const t of tenants) {
        const outcome = await db.tenant(t.id, async (tx) => {
          const [c] = await tx.query<{ id: string }>('select id from conversations where reply_token = $1', [token]);
          return c ? store(tx, t.id, c.id, body) : null;
        });
        if (outcome) return outcome;
      }
    logger.warn('inbound e-mail for no known thread', { messageId: body.messageId });
    return { status: 'unknown_sender' };
  }
  const tenant = tenants.find((t) => t.slug === tenantSlug);
  const phone = digits(body.from);
  if (!tenant || phone.length < 6) {
    logger.warn('inbound SMS for no known tenant or number', { messageId: body.messageId });
    return { status: 'unknown_sender' };
  }
  return db.tenant(tenant.id, async (tx) => {
    const customers = await tx.query<{ id: string; branch_id: string | null; officer_id: string | null }>(
      `select id, branch_id, officer_id from customers where id in (select app_find_customer_by_phone($1))`,
      [phone],
    );
    const customer = customers[0];
    if (!customer) {
      logger.warn('inbound SMS from an unknown number', { messageId: body.messageId, tenant: tenant.id });
      return { status: 'unknown_sender' } as const;
    }
    const [open] = await tx.query<{ id: string }>(
      `select id from conversations where customer_id = $1 and channel = 'sms' and status = 'open'
        order by last_message_at desc limit 1`,
      [customer.id],
    );
    const conversationId =
      open?.id ??
      (
        await tx.query<{ id: string }>(
          `insert into conversations (tenant_id, customer_id, customer_branch_id, customer_officer_id, subject, channel, created_by)
           values ($1, $2, $3, $4, $5, 'sms', 'system:inbound') returning id`,
          [tenant.id, customer.id, customer.branch_id, customer.officer_id, `SMS — ${body.text.slice(0, 60) || '…'}`],
        )
      )[0].id;
    return store(tx, tenant.id, conversationId, body);
  });
}
