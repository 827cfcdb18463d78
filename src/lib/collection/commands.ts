import { z } from 'zod';
import type { Tx } from '../db/index.ts';
import { need } from '../auth/permissions.ts';
import { assertInScope, isInScope, notFoundError } from '../auth/data-permissions.ts';
import { auditActor, recordAudit } from '../audit/record-audit.ts';
import { defineCommand } from '../http/command.ts';
import { AppError } from '../errors/app-error.ts';
import { validationError } from '../errors/messages.ts';
import type { Actor } from '../lending/actor.ts';
import { parseMoney } from '../money/money.ts';
import { isValidDate } from '../schedule/dates.ts';
import { exampleAmount } from '../money/parse.ts';
import { currencyDigits } from '../money/money.ts';
import { addDays } from '../schedule/dates.ts';
import type { MessageTemplatesRow } from '../db/schema.generated.ts';
import { queueTemplateMessage, refusal } from '../conversations/queue.ts';

/**
 * The collector's actions on one overdue loan: log a contact, record a promise to pay, schedule a
 * call-back, send a message from a template, assign or take the case. Each loads the loan through
 * the caller's scope (404 outside it), refuses bad input with a 422 naming the field, writes a
 * collection_activities row (the loan's collection timeline) and an audit row.
 */
export const CHANNELS = ['phone', 'sms', 'email', 'visit', 'letter', 'other'] as const;
export const OUTCOMES = [
  'reached',
  'no_answer',
  'wrong_number',
  'refused',
  'voicemail',
  'promised',
  'paid',
  'other',
] as const;
/** How far ahead a promise to pay may be dated (days after the business date). */
export const PROMISE_MAX_DAYS = 90;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const text = z.preprocess((v) => (v === undefined || v === null ? '' : v), z.string().max(10000));
const invalid = (field: string, key: string, params: Record<string, string | number> = {}) =>
  validationError(field, key, params, 'UNPROCESSABLE');

type LoanOfCase = {
  id: string;
  customer_id: string;
  currency: string;
  outstanding: bigint;
  business_date: string;
};

async function loanOf(tx: Tx, actor: Actor, loanId: string): Promise<LoanOfCase> {
  if (!UUID.test(loanId)) throw notFoundError('loan');
  await assertInScope(tx, actor, 'loan', loanId);
  const [loan] = await tx.query<LoanOfCase>(
    `select l.id, l.customer_id, trim(l.currency) as currency, l.outstanding,
            to_char(t.business_date, 'YYYY-MM-DD') as business_date
       from loans l join tenants t on t.id = l.tenant_id where l.id = $1 for update of l`,
    [loanId],
  );
  if (!loan) throw notFoundError('loan');
  return loan;
}

function choice<T extends string>(field: string, value: string, options: readonly T[]): T {
  if (!value) throw invalid(field, 'required');
  if (!(options as readonly string[]).includes(value)) throw invalid(field, 'choice', { options: options.join(', ') });
  return value as T;
}

function note(value: string): string {
  const v = value.trim();
  if (v.length > 2000) throw invalid('note', 'text.tooLong', { max: 2000 });
  return v;
}

async function audit(tx: Tx, actor: Actor, action: string, loanId: string, after: unknown): Promise<void> {
  await recordAudit(tx, {
    ...auditActor(actor),
    action,
    objectType: 'loan',
    objectId: loanId,
    after,
    outcome: 'success',
  });
}

async function activity(
  tx: Tx,
  actor: Actor,
  loan: LoanOfCase,
  fields: Record<string, unknown> & { kind: string },
): Promise<string> {
  const names = Object.keys(fields);
  const [row] = await tx.query<{ id: string }>(
    `insert into collection_activities (tenant_id, loan_id, customer_id, business_date, actor, ${names.join(', ')})
     values ($1, $2, $3, $4, $5, ${names.map((_, i) => `$${i + 6}`).join(', ')}) returning id`,
    [actor.tenantId, loan.id, loan.customer_id, loan.business_date, actor.userId, ...Object.values(fields)],
  );
  return row.id;
}

// ── Contacts and promises ─────────────────────────────────────────────────────────────

export type PromiseInput = { date: string; amount: string };

async function recordPromiseOn(
  tx: Tx,
  actor: Actor,
  loan: LoanOfCase,
  input: PromiseInput & { note: string },
  language: string,
): Promise<{ promiseId: string; cancelled: string | null }> {
  const date = input.date.trim();
  if (!date) throw invalid('date', 'required');
  if (!isValidDate(date)) throw invalid('date', 'date.invalid', { example: loan.business_date });
  if (date < loan.business_date) throw invalid('date', 'date.notBeforeBusinessDate', { min: loan.business_date });
  const max = addDays(loan.business_date, PROMISE_MAX_DAYS);
  if (date > max) throw invalid('date', 'date.notAfter', { max });
  if (!input.amount.trim()) throw invalid('amount', 'required');
  let minor: bigint;
  try {
    minor = parseMoney(input.amount.trim(), loan.currency, 'amount', { decimalComma: language === 'fr' }).minor;
  } catch (error) {
    if (error instanceof AppError && error.key) throw invalid('amount', error.key, error.params ?? {});
    throw error;
  }
  const outstanding = BigInt(loan.outstanding);
  if (minor > outstanding) {
    const digits = currencyDigits(loan.currency);
    const max = (Number(outstanding) / 10 ** digits).toFixed(digits);
    throw invalid('amount', 'money.tooLarge', { max, example: exampleAmount(digits) });
  }
  // At most one open promise per loan: a new one cancels the previous open one.
  const cancelled = await tx.query<{ id: string }>(
    `update collection_activities set promise_status = 'cancelled', promise_settled_on = $2,
            details = details || jsonb_build_object('cancelledBy', $3::text)
      where loan_id = $1 and kind = 'promise' and promise_status = 'open' returning id`,
    [loan.id, loan.business_date, actor.userId],
  );
  const promiseId = await activity(tx, actor, loan, {
    kind: 'promise',
    promise_date: date,
    promise_amount: minor.toString(),
    promise_status: 'open',
    note: input.note,
  });
  await tx.query('update collection_cases set open_promise_id = $2 where loan_id = $1', [loan.id, promiseId]);
  return { promiseId, cancelled: cancelled[0]?.id ?? null };
}

const ContactInput = z.object({
  loanId: z.string(),
  channel: text,
  outcome: text,
  note: text,
  promiseDate: text,
  promiseAmount: text,
});

/** Logs a contact attempt; with a promise date and amount, records the promise to pay too. */
export const logContactCommand = defineCommand({
  action: 'collection.contact',
  objectType: 'loan',
  permission: need('loans.collection.view'),
  input: ContactInput,
  run: async (tx, actor, input, request) => {
    const loan = await loanOf(tx, actor, input.loanId);
    const channel = choice('channel', input.channel, CHANNELS);
    const outcome = choice('outcome', input.outcome, OUTCOMES);
    const text = note(input.note);
    const withPromise = Boolean(input.promiseDate.trim() || input.promiseAmount.trim());
    const promise = withPromise
      ? await recordPromiseOn(
          tx,
          actor,
          loan,
          { date: input.promiseDate, amount: input.promiseAmount, note: text },
          request.language,
        )
      : null;
    const id = await activity(tx, actor, loan, { kind: 'contact', channel, outcome, note: text });
    await tx.query('update collection_cases set last_contact_at = now() where loan_id = $1', [loan.id]);
    await audit(tx, actor, 'collection.contact', loan.id, { activityId: id, channel, outcome, promise });
    return { loanId: loan.id, activityId: id, promiseId: promise?.promiseId ?? null };
  },
});

const PromiseBody = z.object({ loanId: z.string(), date: text, amount: text, note: text });

/** Records a promise to pay (business date ≤ date ≤ +90 days, 0 < amount ≤ what the loan owes). */
export const recordPromiseCommand = defineCommand({
  action: 'collection.promise',
  objectType: 'loan',
  permission: need('loans.collection.view'),
  input: PromiseBody,
  run: async (tx, actor, input, request) => {
    const loan = await loanOf(tx, actor, input.loanId);
    const promise = await recordPromiseOn(tx, actor, loan, { ...input, note: note(input.note) }, request.language);
    await audit(tx, actor, 'collection.promise', loan.id, promise);
    return { loanId: loan.id, ...promise };
  },
});

// ── Call-backs ────────────────────────────────────────────────────────────────────────

const CallbackBody = z.object({ loanId: z.string(), at: text, note: text });

/** Schedules a call-back (a future date-time; without an offset it is read in the tenant's time zone). */
export const scheduleCallbackCommand = defineCommand({
  action: 'collection.callback',
  objectType: 'loan',
  permission: need('loans.collection.view'),
  input: CallbackBody,
  run: async (tx, actor, input) => {
    const loan = await loanOf(tx, actor, input.loanId);
    const at = input.at.trim();
    if (!at) throw invalid('callbackAt', 'required');
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/.test(at))
      throw invalid('callbackAt', 'invalid');
    const hasZone = /(Z|[+-]\d{2}:?\d{2})$/.test(at);
    const [when] = await tx.query<{ at: Date; future: boolean }>(
      `select v.at, v.at > now() as future from (
         select case when $2 then $1::timestamptz
                     else $1::timestamp at time zone (select coalesce(time_zone, 'UTC') from tenants where id = $3) end as at) v`,
      [at, hasZone, actor.tenantId],
    );
    if (!when.future) throw invalid('callbackAt', 'collection.callbackPast');
    const text = note(input.note);
    const id = await activity(tx, actor, loan, { kind: 'callback', callback_at: when.at, note: text });
    await tx.query('update collection_cases set next_callback_at = $2 where loan_id = $1', [loan.id, when.at]);
    await audit(tx, actor, 'collection.callback', loan.id, { activityId: id, at: when.at });
    return { loanId: loan.id, activityId: id, callbackAt: when.at };
  },
});

// ── Messages ──────────────────────────────────────────────────────────────────────────

const MessageBody = z.object({ loanId: z.string(), templateId: text });

/** The tenant's message templates (the choices of the send-a-message form). */
export function listTemplates(
  tx: Tx,
): Promise<Pick<MessageTemplatesRow, 'id' | 'code' | 'name' | 'channel' | 'purpose'>[]> {
  return tx.query('select id, code, name, channel, purpose from message_templates order by name');
}

/** Sends a message from a template about the loan (queued; the opt-out rule refuses with its reason). */
export const sendCollectionMessageCommand = defineCommand({
  action: 'collection.message',
  objectType: 'loan',
  permission: need('loans.collection.view'),
  input: MessageBody,
  run: async (tx, actor, input) => {
    const loan = await loanOf(tx, actor, input.loanId);
    const templateId = input.templateId.trim();
    if (!templateId) throw invalid('templateId', 'required');
    const [template] = UUID.test(templateId)
      ? await tx.query<Pick<MessageTemplatesRow, 'id' | 'channel' | 'purpose'>>(
          'select id, channel, purpose from message_templates where id = $1',
          [templateId],
        )
      : [];
    if (!template) throw invalid('templateId', 'invalid');
    const [customer] = await tx.query<{ email: string | null; phone: string | null; opt_in_status: string }>(
      'select email, phone, opt_in_status from customers where id = $1',
      [loan.customer_id],
    );
    const refused = refusal(customer, template.channel as 'email' | 'sms', template.purpose as 'service', loan.id);
    if (refused) throw invalid('templateId', `collection.${refused.code}`);
    const queued = await queueTemplateMessage(tx, actor.tenantId, {
      templateId: template.id,
      customerId: loan.customer_id,
      loanId: loan.id,
      language: null,
      authorId: actor.userId,
      createdBy: actor.userId,
    });
    const id = await activity(tx, actor, loan, {
      kind: 'message',
      channel: template.channel,
      message_id: queued.messageId,
      details: JSON.stringify({ templateId: template.id, conversationId: queued.conversationId }),
    });
    await audit(tx, actor, 'collection.message', loan.id, { activityId: id, ...queued, templateId: template.id });
    return { loanId: loan.id, activityId: id, ...queued };
  },
});

// ── Assignment ────────────────────────────────────────────────────────────────────────

async function assign(tx: Tx, actor: Actor, loan: LoanOfCase, collectorId: string): Promise<string> {
  const [current] = await tx.query<{ collector_id: string | null }>(
    'select collector_id from collection_cases where loan_id = $1 for update',
    [loan.id],
  );
  if (!current) throw invalid('loanId', 'collection.notInCollection');
  const id = await activity(tx, actor, loan, {
    kind: 'assignment',
    assignee_id: collectorId,
    details: JSON.stringify({ from: current.collector_id }),
  });
  await tx.query('update collection_cases set collector_id = $2 where loan_id = $1', [loan.id, collectorId]);
  await audit(tx, actor, 'collection.assign', loan.id, { activityId: id, from: current.collector_id, to: collectorId });
  return id;
}

const AssignBody = z.object({ loanId: z.string(), collectorId: text });

/** Assigns the case to a collector (a user holding loans.collection.view who can see the loan). */
export const assignCollectorCommand = defineCommand({
  action: 'collection.assign',
  objectType: 'loan',
  permission: need('loans.tasks.manage'),
  input: AssignBody,
  run: async (tx, actor, input) => {
    const loan = await loanOf(tx, actor, input.loanId);
    const collectorId = input.collectorId.trim();
    if (!collectorId) throw invalid('collectorId', 'required');
    const [user] = UUID.test(collectorId)
      ? await tx.query<{ is_admin: boolean; can: boolean }>(
          `select coalesce(bool_or(r.is_admin), false) as is_admin,
                  coalesce(bool_or(r.is_admin or 'loans.collection.view' = any(r.authorities)), false) as can
             from users u left join user_roles ur on ur.user_id = u.id left join roles r on r.id = ur.role_id
            where u.id = $1 and u.is_active group by u.id`,
          [collectorId],
        )
      : [];
    if (!user?.can) throw invalid('collectorId', 'collection.notCollector');
    const dataPermissions = await tx.query<{ field: string; value: string }>(
      'select field, value from user_data_permissions where user_id = $1',
      [collectorId],
    );
    if (!(await isInScope(tx, { isAdmin: user.is_admin, dataPermissions }, 'loan', loan.id)))
      throw invalid('collectorId', 'collection.notCollector');
    const activityId = await assign(tx, actor, loan, collectorId);
    return { loanId: loan.id, activityId, collectorId };
  },
});

/** Takes the case: assigns it to the caller. */
export const takeCaseCommand = defineCommand({
  action: 'collection.assign',
  objectType: 'loan',
  permission: need('loans.collection.view'),
  input: z.object({ loanId: z.string() }),
  run: async (tx, actor, input) => {
    const loan = await loanOf(tx, actor, input.loanId);
    const activityId = await assign(tx, actor, loan, actor.userId);
    return { loanId: loan.id, activityId, collectorId: actor.userId };
  },
});
