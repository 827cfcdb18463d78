import type { Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { enqueueJob } from '../jobs/queue.ts';
import type { CustomersRow, MessageTemplatesRow } from '../db/schema.generated.ts';
import type { Language } from '../i18n/index.ts';
import { formatMoney, fromMinor } from '../money/money.ts';

/**
 * Outbound customer messages: the one way a message to a customer is written (by a user in a
 * thread, by a collection action or a collection workflow). The message is stored `queued` in the
 * caller's transaction with a `conversations.deliver` job, so it exists (and is sent, after commit)
 * exactly when the caller's change does. Delivery (SMTP_URL or the outbox for e-mail, the SMS
 * provider adapter for SMS) is the job's: src/lib/conversations/deliver.ts.
 *
 * Opt-out rule (spec §4): an opted-out customer receives no marketing message (refused, 422, with the
 * reason); a service message about an existing loan stays allowed. A service message without a loan
 * to an opted-out customer is refused too: only a loan makes it a service message.
 */

export type Channel = 'email' | 'sms';
export type Purpose = 'service' | 'marketing';

export type QueueMessageInput = {
  customerId: string;
  /** The loan the message is about (required for a service message to an opted-out customer). */
  loanId?: string | null;
  /** An existing thread of this customer; else the customer's latest open thread on this loan and channel, or a new one. */
  conversationId?: string | null;
  channel: Channel;
  purpose: Purpose;
  /** Subject of a new thread and of an e-mail (ignored for SMS). */
  subject?: string;
  /** The text as sent (templates already rendered). */
  body: string;
  templateId?: string | null;
  /** The staff author, or null for the system (workflows). */
  authorId?: string | null;
  /** Who did it: a user id or `system:close`. */
  createdBy: string;
};

export type QueuedMessage = { conversationId: string; messageId: string };

type Recipient = Pick<CustomersRow, 'id' | 'email' | 'phone' | 'opt_in_status' | 'first_name' | 'last_name'>;

/** Why a message may not go to this customer, or null when it may (the opt-out and contact rules). */
export function refusal(
  customer: Pick<Recipient, 'email' | 'phone' | 'opt_in_status'>,
  channel: Channel,
  purpose: Purpose,
  loanId: string | null | undefined,
): { code: 'opted_out' | 'no_email' | 'no_phone'; message: string } | null {
  if (customer.opt_in_status === 'opted_out' && (purpose === 'marketing' || !loanId))
    return {
      code: 'opted_out',
      message:
        purpose === 'marketing'
          ? 'The customer has opted out: marketing messages are not sent.'
          : 'The customer has opted out: only service messages about one of their loans are sent.',
    };
  if (channel === 'email' && !customer.email)
    return { code: 'no_email', message: 'The customer has no e-mail address.' };
  if (channel === 'sms' && !customer.phone) return { code: 'no_phone', message: 'The customer has no phone number.' };
  return null;
}

/** Message keys (validation namespace) of the refusals, so the 422 reads in the user's language. */
const REFUSAL_KEYS = {
  opted_out: 'conversationOptedOutMarketing',
  opted_out_no_loan: 'conversationOptedOutNoLoan',
  no_email: 'conversationNoEmail',
  no_phone: 'conversationNoPhone',
} as const;

export async function queueMessage(tx: Tx, tenantId: string, input: QueueMessageInput): Promise<QueuedMessage> {
  const [customer] = await tx.query<Recipient>(
    'select id, email, phone, opt_in_status, first_name, last_name from customers where id = $1',
    [input.customerId],
  );
  if (!customer) throw new AppError('NOT_FOUND', 'Customer not found.', { field: 'customerId' });
  if (input.loanId) {
    const [loan] = await tx.query<{ id: string }>('select id from loans where id = $1 and customer_id = $2', [
      input.loanId,
      input.customerId,
    ]);
    if (!loan)
      throw new AppError('UNPROCESSABLE', 'The loan is not one of this customer’s loans.', { field: 'loanId' });
  }
  // A template decides what the message is: a marketing template is never sent as "service" (the opt-out
  // rule reads the purpose) nor on another channel than its own.
  if (input.templateId) {
    const [template] = await tx.query<Pick<MessageTemplatesRow, 'purpose' | 'channel'>>(
      'select purpose, channel from message_templates where id = $1',
      [input.templateId],
    );
    if (!template)
      throw new AppError('UNPROCESSABLE', 'The message template does not exist.', {
        field: 'templateId',
        key: 'conversationTemplateUnknown',
      });
    if (template.purpose !== input.purpose)
      throw new AppError('UNPROCESSABLE', 'The purpose must be the template’s own.', {
        field: 'purpose',
        key: 'conversationTemplatePurpose',
      });
    if (template.channel !== input.channel)
      throw new AppError('UNPROCESSABLE', 'The channel must be the template’s own.', {
        field: 'channel',
        key: 'conversationTemplateChannel',
      });
  }
  const refused = refusal(customer, input.channel, input.purpose, input.loanId);
  if (refused)
    throw new AppError('UNPROCESSABLE', refused.message, {
      field: refused.code === 'opted_out' ? 'purpose' : 'channel',
      key: REFUSAL_KEYS[
        refused.code === 'opted_out' && input.purpose !== 'marketing' ? 'opted_out_no_loan' : refused.code
      ],
    });

  let conversationId = input.conversationId ?? null;
  if (conversationId) {
    const [thread] = await tx.query<{ id: string }>('select id from conversations where id = $1 and customer_id = $2', [
      conversationId,
      input.customerId,
    ]);
    if (!thread) throw new AppError('NOT_FOUND', 'Conversation not found.', { field: 'conversationId' });
  } else {
    const [open] = await tx.query<{ id: string }>(
      `select id from conversations where customer_id = $1 and loan_id is not distinct from $2::uuid and channel = $3 and status = 'open'
        order by last_message_at desc limit 1`,
      [input.customerId, input.loanId ?? null, input.channel],
    );
    conversationId =
      open?.id ??
      (
        await tx.query<{ id: string }>(
          `insert into conversations (tenant_id, customer_id, loan_id, customer_branch_id, customer_officer_id, subject, channel, created_by)
           select $1, c.id, $3, c.branch_id, c.officer_id, $4, $5, $6 from customers c where c.id = $2
           returning id`,
          [
            tenantId,
            input.customerId,
            input.loanId ?? null,
            (input.subject || input.body).slice(0, 200) || '—',
            input.channel,
            input.createdBy,
          ],
        )
      )[0].id;
  }
  const [message] = await tx.query<{ id: string }>(
    `insert into conversation_messages (tenant_id, conversation_id, kind, channel, purpose, subject, body, template_id, status, author_id)
     values ($1, $2, 'outbound', $3, $4, $5, $6, $7, 'queued', $8) returning id`,
    [
      tenantId,
      conversationId,
      input.channel,
      input.purpose,
      input.channel === 'email' ? (input.subject ?? '').slice(0, 200) : '',
      input.body,
      input.templateId ?? null,
      input.authorId ?? null,
    ],
  );
  await tx.query('update conversations set last_message_at = now() where id = $1', [conversationId]);
  await enqueueJob(tx, {
    name: 'conversations.deliver',
    tenantId,
    payload: { messageId: message.id },
    // jobs.created_by is a user id (uuid): the system's own messages (`system:close`) have none.
    createdBy: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(input.createdBy)
      ? input.createdBy
      : null,
  });
  return { conversationId, messageId: message.id };
}

/** `{{name}}` placeholders replaced by their values; unknown names are left visible so a mistake shows. */
export function renderTemplate(text: string, vars: Record<string, string>): string {
  return text.replace(/\{\{\s*([a-zA-Z][a-zA-Z0-9_]*)\s*\}\}/g, (whole, name: string) =>
    Object.prototype.hasOwnProperty.call(vars, name) ? vars[name] : whole,
  );
}

/** The variables a template can use, read for one customer and (optionally) one of their loans. */
export async function templateVariables(
  tx: Tx,
  customerId: string,
  loanId?: string | null,
  language: Language = 'en',
): Promise<Record<string, string>> {
  const [c] = await tx.query<Pick<CustomersRow, 'first_name' | 'last_name'>>(
    'select first_name, last_name from customers where id = $1',
    [customerId],
  );
  const vars: Record<string, string> = { firstName: c?.first_name ?? '', lastName: c?.last_name ?? '' };
  if (loanId) {
    const [l] = await tx.query<{
      account_no: string;
      currency: string;
      past_due_days: number | null;
      overdue: string | null;
    }>(
      `select l.account_no, l.currency, d.past_due_days, d.delinquent_amount::text as overdue
         from loans l left join loan_delinquency d on d.loan_id = l.id where l.id = $1`,
      [loanId],
    );
    if (l) {
      vars.loanNumber = l.account_no;
      vars.currency = l.currency;
      vars.daysPastDue = String(l.past_due_days ?? 0);
      vars.amountOverdueMinor = l.overdue ?? '0';
      try {
        vars.amountOverdue = formatMoney(fromMinor(BigInt(l.overdue ?? '0'), l.currency), language);
      } catch {
        vars.amountOverdue = `${l.overdue ?? '0'} ${l.currency}`;
      }
    }
  }
  return vars;
}

/**
 * A template rendered in the language asked (French when it starts with `fr`) for one customer and
 * loan, then queued. Used by collection actions and workflow steps.
 */
export async function queueTemplateMessage(
  tx: Tx,
  tenantId: string,
  input: {
    templateId?: string;
    templateCode?: string;
    customerId: string;
    loanId?: string | null;
    language?: string | null;
    authorId?: string | null;
    createdBy: string;
    /** Extra or overriding variables (e.g. a formatted amount). */
    vars?: Record<string, string>;
  },
): Promise<QueuedMessage> {
  const [template] = await tx.query<MessageTemplatesRow>(
    'select * from message_templates where ($1::uuid is not null and id = $1::uuid) or ($1::uuid is null and code = $2)',
    [input.templateId ?? null, input.templateCode ?? null],
  );
  if (!template) throw new AppError('NOT_FOUND', 'Message template not found.', { field: 'templateId' });
  const fr = (input.language ?? '').toLowerCase().startsWith('fr');
  const vars = {
    ...(await templateVariables(tx, input.customerId, input.loanId, fr ? 'fr' : 'en')),
    ...(input.vars ?? {}),
  };
  return queueMessage(tx, tenantId, {
    customerId: input.customerId,
    loanId: input.loanId,
    channel: template.channel as Channel,
    purpose: template.purpose as Purpose,
    subject: renderTemplate(fr ? template.subject_fr : template.subject_en, vars),
    body: renderTemplate(fr ? template.body_fr : template.body_en, vars),
    templateId: template.id,
    authorId: input.authorId,
    createdBy: input.createdBy,
  });
}
