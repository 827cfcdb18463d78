import fs from 'node:fs/promises';
import { sendMail } from '../auth/mailer.ts';
import { env } from '../config/env.ts';
import type { Db } from '../db/index.ts';
import { PermanentJobError, registerJobHandler, type JobContext } from '../jobs/worker.ts';
import { logger } from '../observability/log.ts';
import { sendSms, SmsError } from './sms.ts';
import { attachmentPath } from './attachments.ts';
import type { ConversationAttachmentsRow } from '../db/schema.generated.ts';

export const DELIVER_JOB = 'conversations.deliver';

/**
 * Delivery of one queued outbound message (the `conversations.deliver` job that `queueMessage`
 * enqueues). E-mail goes through `sendMail` (SMTP_URL, else DATA_DIR/outbox) with
 * `Reply-To: reply+<reply token>@<domain>` and a `Message-ID` carrying the token, so a reply finds its
 * thread; SMS through the provider adapter (sms.ts). Idempotent: a message that is no longer `queued`
 * is not sent again. A temporary failure keeps it `queued` with the error and the job retries with
 * back-off; on the last attempt, or on a permanent refusal (a 4xx of the provider), it becomes `failed`.
 */
export type DeliverConfig = {
  dataDir: string;
  smtpUrl?: string;
  smsProviderUrl?: string;
  smsProviderToken?: string;
  replyDomain?: string;
};

export function deliverConfigFromEnv(): DeliverConfig {
  const e = env();
  let domain = e.replyDomain;
  if (!domain && e.publicUrl) {
    try {
      domain = new URL(e.publicUrl).hostname;
    } catch {
      domain = undefined;
    }
  }
  return {
    dataDir: e.dataDir,
    smtpUrl: e.smtpUrl,
    smsProviderUrl: e.smsProviderUrl,
    smsProviderToken: e.smsProviderToken,
    replyDomain: domain,
  };
}

export function replyAddress(token: string, domain = 'localhost'): string {
  return `reply+${token}@${domain}`;
}

type Outgoing = {
  id: string;
  status: string;
  channel: string;
  subject: string;
  body: string;
  reply_token: string;
  thread_subject: string;
  email: string | null;
  phone: string | null;
};

export type DeliverOutcome = { status: 'sent' | 'skipped'; providerMessageId?: string };

export async function deliverMessage(
  db: Db,
  tenantId: string,
  messageId: string,
  attempt: { attempts: number; maxAttempts: number },
  config: DeliverConfig = deliverConfigFromEnv(),
): Promise<DeliverOutcome> {
  const loaded = await db.tenant(tenantId, async (tx) => {
    const [m] = await tx.query<Outgoing>(
      `select m.id, m.status, m.channel, m.subject, m.body, c.reply_token, c.subject as thread_subject, cu.email, cu.phone
         from conversation_messages m
         join conversations c on c.tenant_id = m.tenant_id and c.id = m.conversation_id
         join customers cu on cu.tenant_id = c.tenant_id and cu.id = c.customer_id
        where m.id = $1 and m.kind = 'outbound'`,
      [messageId],
    );
    const files = m
      ? await tx.query<ConversationAttachmentsRow>(
          'select * from conversation_attachments where message_id = $1 order by created_at',
          [messageId],
        )
      : [];
    return { message: m, files };
  });
  const message = loaded.message;
  if (!message) throw new PermanentJobError(`message ${messageId} not found`);
  if (message.status !== 'queued') return { status: 'skipped' };

  let providerMessageId: string;
  try {
    if (message.channel === 'email') {
      if (!message.email) throw new PermanentJobError('The customer has no e-mail address.');
      const domain = config.replyDomain ?? 'localhost';
      providerMessageId = `<${message.id}.${message.reply_token}@${domain}>`;
      const attachments = await Promise.all(
        loaded.files.map(async (f) => ({
          filename: f.file_name,
          contentType: f.content_type,
          content: await fs.readFile(attachmentPath(config.dataDir, f.storage_key)),
        })),
      );
      await sendMail(
        { smtpUrl: config.smtpUrl, dataDir: config.dataDir },
        {
          to: message.email,
          subject: message.subject || message.thread_subject,
          text: message.body,
          replyTo: replyAddress(message.reply_token, domain),
          messageId: providerMessageId,
          attachments: attachments.length ? attachments : undefined,
        },
      );
    } else {
      if (!message.phone) throw new PermanentJobError('The customer has no phone number.');
      const sent = await sendSms(
        { providerUrl: config.smsProviderUrl, token: config.smsProviderToken, dataDir: config.dataDir },
        { to: message.phone, body: message.body, reference: message.id },
      );
      providerMessageId = `sms:${sent.id}`;
    }
  } catch (error) {
    const permanent = error instanceof PermanentJobError || (error instanceof SmsError && error.permanent);
    const last = permanent || attempt.attempts >= attempt.maxAttempts;
    const text = (error instanceof Error ? error.message : String(error)).slice(0, 500);
    await db.tenant(tenantId, (tx) =>
      tx.query(
        `update conversation_messages set error = $2, status = case when $3 then 'failed' else status end
          where id = $1 and status = 'queued'`,
        [messageId, text, last],
      ),
    );
    logger.warn('conversation message not delivered', { messageId, attempt: attempt.attempts, last, error: text });
    if (permanent && !(error instanceof PermanentJobError)) throw new PermanentJobError(text, { cause: error });
    throw error;
  }
  await db.tenant(tenantId, (tx) =>
    tx.query(
      `update conversation_messages set status = 'sent', sent_at = now(), provider_message_id = $2, error = null
        where id = $1 and status = 'queued'`,
      [messageId, providerMessageId],
    ),
  );
  return { status: 'sent', providerMessageId };
}

export async function deliverJob({ db, tenantId, payload, job }: JobContext): Promise<DeliverOutcome> {
  const messageId = typeof payload.messageId === 'string' ? payload.messageId : '';
  if (!tenantId || !messageId) throw new PermanentJobError('conversations.deliver needs a tenant and a messageId');
  return deliverMessage(db, tenantId, messageId, { attempts: job.attempts, maxAttempts: job.maxAttempts });
}

/** Registers the handler (at boot, from src/lib/jobs/runtime.ts, and when this module is first imported). */
export function registerDeliverJob(): void {
  registerJobHandler(DELIVER_JOB, deliverJob);
}

registerDeliverJob();
