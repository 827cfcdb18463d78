import { z } from 'zod';
import { auditActor, recordAudit } from '../audit/record-audit.ts';
import { ADMIN } from '../auth/permissions.ts';
import type { Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { defineCommand } from '../http/command.ts';
import type { MessageTemplatesRow } from '../db/schema.generated.ts';
import { renderTemplate, templateVariables } from './queue.ts';

/** Message templates (EN and FR texts with `{{variables}}`): everyone who writes to customers reads them, administrators edit them. */
export const TEMPLATE_VARIABLES = ['firstName', 'lastName', 'loanNumber', 'daysPastDue', 'amountOverdue'] as const;

export async function listTemplates(tx: Tx): Promise<MessageTemplatesRow[]> {
  return tx.query<MessageTemplatesRow>('select * from message_templates order by lower(name)');
}

export async function getTemplate(tx: Tx, id: string): Promise<MessageTemplatesRow> {
  const [row] = /^[0-9a-f-]{36}$/i.test(id)
    ? await tx.query<MessageTemplatesRow>('select * from message_templates where id = $1', [id])
    : [];
  if (!row) throw new AppError('NOT_FOUND', 'Message template not found', { field: 'templateId' });
  return row;
}

/** A template's subject and body in the language, with the customer's (and loan's) variables filled in. */
export async function renderForCustomer(
  tx: Tx,
  templateId: string,
  customerId: string,
  loanId: string | null,
  language: string,
): Promise<{ subject: string; body: string; channel: string; purpose: string }> {
  const t = await getTemplate(tx, templateId);
  const fr = language.startsWith('fr');
  const vars = await templateVariables(tx, customerId, loanId, fr ? 'fr' : 'en');
  return {
    subject: renderTemplate(fr ? t.subject_fr : t.subject_en, vars),
    body: renderTemplate(fr ? t.body_fr : t.body_en, vars),
    channel: t.channel,
    purpose: t.purpose,
  };
}

export const templateInput = z.object({
  code: z
    .string()
    .trim()
    .regex(/^[a-z0-9][a-z0-9_-]{1,62}$/),
  name: z.string().trim().min(1).max(120),
  channel: z.enum(['email', 'sms']),
  purpose: z.enum(['service', 'marketing']),
  subjectEn: z.string().trim().max(200).default(''),
  bodyEn: z.string().trim().min(1).max(5000),
  subjectFr: z.string().trim().max(200).default(''),
  bodyFr: z.string().trim().min(1).max(5000),
});
export type TemplateInput = z.infer<typeof templateInput>;

async function audit(tx: Tx, actor: Parameters<typeof auditActor>[0], action: string, id: string, after: unknown) {
  await recordAudit(tx, {
    ...auditActor(actor),
    action,
    objectType: 'message_template',
    objectId: id,
    after,
    outcome: 'success',
  });
}

export const createTemplateCommand = defineCommand({
  action: 'message_template.create',
  objectType: 'message_template',
  permission: ADMIN,
  input: templateInput,
  run: async (tx, actor, i) => {
    const [row] = await tx.query<MessageTemplatesRow>(
      `insert into message_templates (tenant_id, code, name, channel, purpose, subject_en, body_en, subject_fr, body_fr)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning *`,
      [actor.tenantId, i.code, i.name, i.channel, i.purpose, i.subjectEn, i.bodyEn, i.subjectFr, i.bodyFr],
    );
    await audit(tx, actor, 'message_template.create', row.id, i);
    return row;
  },
});

/**
 * A template the daily close sends by its code (a collection workflow's `send_template` step, or the
 * bullet-loan reminder) keeps its code and stays: renaming or deleting it would make those steps record
 * "template not found" and, run once per episode, never send it. 409 naming `code`.
 */
async function assertCodeUnused(tx: Tx, code: string): Promise<void> {
  const [used] = await tx.query<{ name: string }>(
    `select name from collection_workflows
      where steps @> jsonb_build_array(jsonb_build_object('params', jsonb_build_object('templateCode', $1::text)))
      limit 1`,
    [code],
  );
  if (used || code === 'bullet_maturity_reminder')
    throw new AppError(
      'CONFLICT',
      used
        ? `The collection workflow "${used.name}" sends this template by its code: change the workflow first.`
        : 'The daily close sends this template to bullet loans before maturity: its code stays.',
      { field: 'code', key: used ? 'templateInUse' : 'templateReminder', params: { workflow: used?.name ?? '' } },
    );
}

export const updateTemplateCommand = defineCommand({
  action: 'message_template.update',
  objectType: 'message_template',
  permission: ADMIN,
  input: templateInput.partial().extend({ id: z.string() }),
  run: async (tx, actor, i) => {
    const before = await getTemplate(tx, i.id);
    if (i.code !== undefined && i.code !== before.code) await assertCodeUnused(tx, before.code);
    const [row] = await tx.query<MessageTemplatesRow>(
      `update message_templates set code = $2, name = $3, channel = $4, purpose = $5, subject_en = $6, body_en = $7,
              subject_fr = $8, body_fr = $9, revision = revision + 1, updated_at = now()
        where id = $1 returning *`,
      [
        before.id,
        i.code ?? before.code,
        i.name ?? before.name,
        i.channel ?? before.channel,
        i.purpose ?? before.purpose,
        i.subjectEn ?? before.subject_en,
        i.bodyEn ?? before.body_en,
        i.subjectFr ?? before.subject_fr,
        i.bodyFr ?? before.body_fr,
      ],
    );
    await audit(tx, actor, 'message_template.update', row.id, i);
    return row;
  },
});

export const deleteTemplateCommand = defineCommand({
  action: 'message_template.delete',
  objectType: 'message_template',
  permission: ADMIN,
  input: z.object({ id: z.string() }),
  run: async (tx, actor, i) => {
    const t = await getTemplate(tx, i.id);
    await assertCodeUnused(tx, t.code);
    await tx.query('update conversation_messages set template_id = null where template_id = $1', [t.id]);
    await tx.query('delete from message_templates where id = $1', [t.id]);
    await audit(tx, actor, 'message_template.delete', t.id, { code: t.code });
    return { id: t.id };
  },
});

export function templateJson(t: MessageTemplatesRow) {
  return {
    id: t.id,
    code: t.code,
    name: t.name,
    channel: t.channel,
    purpose: t.purpose,
    subjectEn: t.subject_en,
    bodyEn: t.body_en,
    subjectFr: t.subject_fr,
    bodyFr: t.body_fr,
    revision: t.revision,
    updatedAt: t.updated_at,
  };
}
