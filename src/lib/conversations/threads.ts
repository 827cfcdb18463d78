import { z } from 'zod';
import { auditActor, recordAudit } from '../audit/record-audit.ts';
import { assertInScope, scopeNodesFor, userSeesObject, type ScopeHolder } from '../auth/data-permissions.ts';
import { need } from '../auth/permissions.ts';
import type { Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { defineCommand } from '../http/command.ts';
import type { Actor } from '../lending/actor.ts';
import { notify } from '../notifications/notify.ts';
import { queueMessage, refusal, type Channel, type Purpose } from './queue.ts';
import type { ConversationAttachmentsRow, ConversationsRow } from '../db/schema.generated.ts';

/**
 * Threads with customers as staff see them: lists in the viewer's scope (through the customer's
 * branch and officer copies on the thread), one thread with its messages, read marks and unread
 * counts, and the two writes (start a thread, post in one). Every outbound message goes through
 * `queueMessage`; a note stays internal. A thread outside the viewer's scope is a 404.
 */

export const CONVERSATIONS_RULE = need('loans.customers.view');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type ThreadListItem = {
  id: string;
  customerId: string;
  customerName: string;
  loanId: string | null;
  loanNumber: string | null;
  subject: string;
  channel: Channel;
  status: 'open' | 'closed';
  lastMessageAt: Date;
  unread: number;
};

export type ThreadFilters = {
  unreadOnly?: boolean;
  channel?: Channel | null;
  status?: 'open' | 'closed' | null;
  search?: string | null;
  customerId?: string | null;
  /** "My conversations": threads I wrote in or was mentioned in, plus unread ones. */
  mine?: boolean;
  limit?: number;
};

type Viewer = ScopeHolder & { userId: string };

function scopeSql(nodesParam: string): string {
  return `(${nodesParam}::uuid[] is null or c.customer_branch_id = any(${nodesParam}::uuid[]) or c.customer_officer_id = any(${nodesParam}::uuid[]))`;
}

const UNREAD_SQL = `(select count(*) from conversation_messages m
   where m.tenant_id = c.tenant_id and m.conversation_id = c.id and m.seq > coalesce(r.last_read_seq, 0)
     and m.author_id is distinct from $1::uuid)::int`;

export async function listThreads(tx: Tx, viewer: Viewer, filters: ThreadFilters = {}): Promise<ThreadListItem[]> {
  const nodes = await scopeNodesFor(tx, viewer);
  const where = [scopeSql('$2')];
  const params: unknown[] = [viewer.userId, nodes];
  const add = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  if (filters.channel) where.push(`c.channel = ${add(filters.channel)}`);
  if (filters.status) where.push(`c.status = ${add(filters.status)}`);
  if (filters.customerId && UUID.test(filters.customerId)) where.push(`c.customer_id = ${add(filters.customerId)}`);
  const term = filters.search?.trim().toLowerCase();
  if (term) {
    const p = add(`%${term.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`);
    where.push(
      `(lower(cu.first_name || ' ' || cu.last_name) like ${p} or lower(coalesce(cu.email, '')) like ${p} or coalesce(cu.phone, '') like ${p})`,
    );
  }
  if (filters.unreadOnly) where.push(`${UNREAD_SQL} > 0`);
  if (filters.mine)
    where.push(`(${UNREAD_SQL} > 0 or exists (select 1 from conversation_messages w where w.tenant_id = c.tenant_id
      and w.conversation_id = c.id and (w.author_id = $1::uuid or $1::uuid = any(w.mentions))))`);
  const rows = await tx.query<{
    id: string;
    customer_id: string;
    first_name: string;
    last_name: string;
    loan_id: string | null;
    account_no: string | null;
    subject: string;
    channel: Channel;
    status: 'open' | 'closed';
    last_message_at: Date;
    unread: number;
  }>(
    `select c.id, c.customer_id, cu.first_name, cu.last_name, c.loan_id, l.account_no, c.subject, c.channel, c.status,
            c.last_message_at, ${UNREAD_SQL} as unread
       from conversations c
       join customers cu on cu.tenant_id = c.tenant_id and cu.id = c.customer_id
       left join loans l on l.tenant_id = c.tenant_id and l.id = c.loan_id
       left join conversation_reads r on r.tenant_id = c.tenant_id and r.conversation_id = c.id and r.user_id = $1::uuid
      where ${where.join(' and ')}
      order by c.last_message_at desc
      limit ${Math.min(Math.max(filters.limit ?? 100, 1), 500)}`,
    params,
  );
  return rows.map((r) => ({
    id: r.id,
    customerId: r.customer_id,
    customerName: `${r.first_name} ${r.last_name}`.trim(),
    loanId: r.loan_id,
    loanNumber: r.account_no,
    subject: r.subject,
    channel: r.channel,
    status: r.status,
    lastMessageAt: r.last_message_at,
    unread: Number(r.unread),
  }));
}

/** Threads in the viewer's scope with a message they have not read (capped at 100: the nav shows 99+). */
export async function unreadThreadCount(tx: Tx, viewer: Viewer): Promise<number> {
  const nodes = await scopeNodesFor(tx, viewer);
  const [row] = await tx.query<{ n: number }>(
    `select count(*)::int as n from (
       select 1 from conversations c
         left join conversation_reads r on r.tenant_id = c.tenant_id and r.conversation_id = c.id and r.user_id = $1::uuid
        where ${scopeSql('$2')}
          and exists (select 1 from conversation_messages m where m.tenant_id = c.tenant_id and m.conversation_id = c.id
                        and m.seq > coalesce(r.last_read_seq, 0) and m.author_id is distinct from $1::uuid)
        limit 100) x`,
    [viewer.userId, nodes],
  );
  return Number(row?.n ?? 0);
}

/** The viewer's open tasks due on or before the business date (for the nav; capped at 100). */
export async function dueTaskCount(tx: Tx, userId: string, businessDay: string): Promise<number> {
  const [row] = await tx.query<{ n: number }>(
    `select count(*)::int as n from (select 1 from tasks where assignee_user_id = $1::uuid and status in ('open', 'in_progress')
       and due_date <= $2::date limit 100) x`,
    [userId, businessDay],
  );
  return Number(row?.n ?? 0);
}

export type ThreadDetail = ConversationsRow & {
  customer_name: string;
  customer_email: string | null;
  customer_phone: string | null;
  opt_in_status: string;
  account_no: string | null;
};

/** One thread in the viewer's scope (through its customer), else 404. */
export async function getThread(tx: Tx, viewer: ScopeHolder, id: string): Promise<ThreadDetail> {
  if (!UUID.test(id)) throw new AppError('NOT_FOUND', 'Conversation not found', { field: 'conversationId' });
  const [row] = await tx.query<ThreadDetail>(
    `select c.*, cu.first_name || ' ' || cu.last_name as customer_name, cu.email as customer_email, cu.phone as customer_phone,
            cu.opt_in_status, l.account_no
       from conversations c join customers cu on cu.tenant_id = c.tenant_id and cu.id = c.customer_id
       left join loans l on l.tenant_id = c.tenant_id and l.id = c.loan_id
      where c.id = $1`,
    [id],
  );
  if (!row) throw new AppError('NOT_FOUND', 'Conversation not found', { field: 'conversationId' });
  try {
    await assertInScope(tx, viewer, 'customer', row.customer_id);
  } catch {
    throw new AppError('NOT_FOUND', 'Conversation not found', { field: 'conversationId' });
  }
  return row;
}

export type MessageItem = {
  id: string;
  seq: number;
  kind: 'outbound' | 'inbound' | 'note';
  channel: 'email' | 'sms' | 'note';
  purpose: Purpose;
  subject: string;
  body: string;
  status: 'queued' | 'sent' | 'failed' | 'received' | 'note';
  error: string | null;
  authorId: string | null;
  authorName: string | null;
  createdAt: string;
  sentAt: string | null;
  attachments: { id: string; fileName: string; contentType: string; sizeBytes: number }[];
};

export async function listMessages(
  tx: Tx,
  viewer: ScopeHolder,
  conversationId: string,
  after = 0,
): Promise<MessageItem[]> {
  await getThread(tx, viewer, conversationId);
  const rows = await tx.query<{
    id: string;
    seq: string;
    kind: MessageItem['kind'];
    channel: MessageItem['channel'];
    purpose: Purpose;
    subject: string;
    body: string;
    status: MessageItem['status'];
    error: string | null;
    author_id: string | null;
    display_name: string | null;
    created_at: Date;
    sent_at: Date | null;
  }>(
    `select m.id, m.seq::text as seq, m.kind, m.channel, m.purpose, m.subject, m.body, m.status, m.error, m.author_id,
            u.display_name, m.created_at, m.sent_at
       from conversation_messages m left join users u on u.tenant_id = m.tenant_id and u.id = m.author_id
      where m.conversation_id = $1 and m.seq > $2 order by m.seq limit 500`,
    [conversationId, after],
  );
  const files = rows.length
    ? await tx.query<ConversationAttachmentsRow>(
        'select * from conversation_attachments where message_id = any($1::uuid[]) order by created_at',
        [rows.map((r) => r.id)],
      )
    : [];
  return rows.map((r) => ({
    id: r.id,
    seq: Number(r.seq),
    kind: r.kind,
    channel: r.channel,
    purpose: r.purpose,
    subject: r.subject,
    body: r.body,
    status: r.status,
    error: r.error,
    authorId: r.author_id,
    authorName: r.display_name,
    createdAt: new Date(r.created_at).toISOString(),
    sentAt: r.sent_at ? new Date(r.sent_at).toISOString() : null,
    attachments: files
      .filter((f) => f.message_id === r.id)
      .map((f) => ({ id: f.id, fileName: f.file_name, contentType: f.content_type, sizeBytes: f.size_bytes })),
  }));
}

/** Marks everything in the thread read for the viewer (up to its last message). */
export async function markRead(tx: Tx, actor: Actor, conversationId: string): Promise<{ lastReadSeq: number }> {
  await getThread(tx, actor, conversationId);
  const [row] = await tx.query<{ seq: string }>(
    `insert into conversation_reads (tenant_id, conversation_id, user_id, last_read_seq)
     select $1, $2, $3, coalesce(max(seq), 0) from conversation_messages where conversation_id = $2
     on conflict (tenant_id, user_id, conversation_id) do update set last_read_seq = greatest(conversation_reads.last_read_seq, excluded.last_read_seq)
     returning last_read_seq::text as seq`,
    [actor.tenantId, conversationId, actor.userId],
  );
  return { lastReadSeq: Number(row.seq) };
}

/** Staff users who can be @mentioned (active users of the tenant). */
export async function mentionableUsers(tx: Tx): Promise<{ id: string; name: string; email: string }[]> {
  const rows = await tx.query<{ id: string; display_name: string; email: string }>(
    'select id, display_name, email from users where is_active order by lower(display_name) limit 500',
  );
  return rows.map((r) => ({ id: r.id, name: r.display_name, email: r.email }));
}

/** Tells each participant of the thread (staff who wrote in it, and its creator) something happened, except `except`. */
export async function notifyParticipants(
  tx: Tx,
  tenantId: string,
  conversationId: string,
  title: string,
  except: string | null,
  dedupeKey: string,
): Promise<number> {
  const users = await tx.query<{ id: string }>(
    `select distinct u.id from users u
      where u.is_active and u.id is distinct from $2::uuid and (
        u.id in (select author_id from conversation_messages where conversation_id = $1 and author_id is not null)
        or u.id::text = (select created_by from conversations where id = $1))`,
    [conversationId, except],
  );
  for (const u of users)
    await notify(tx, tenantId, {
      userId: u.id,
      kind: 'message',
      title,
      link: `/loans/conversations/${conversationId}`,
      dedupeKey: `${dedupeKey}:${u.id}`,
    });
  return users.length;
}

const text = (max: number) => z.string().trim().max(max);

export const newConversationInput = z.object({
  customerId: z.string().uuid(),
  loanId: z
    .string()
    .uuid()
    .nullish()
    .or(z.literal('').transform(() => null)),
  channel: z.enum(['email', 'sms']),
  purpose: z.enum(['service', 'marketing']),
  templateId: z
    .string()
    .uuid()
    .nullish()
    .or(z.literal('').transform(() => null)),
  subject: text(200).default(''),
  body: text(10000).min(1),
});
export type NewConversationInput = z.infer<typeof newConversationInput>;

export const postMessageInput = z.object({
  conversationId: z.string().uuid(),
  kind: z.enum(['email', 'sms', 'note']),
  purpose: z.enum(['service', 'marketing']).default('service'),
  subject: text(200).default(''),
  body: text(10000).min(1),
  mentions: z.array(z.string().uuid()).max(20).default([]),
});
export type PostMessageInput = z.infer<typeof postMessageInput>;

export type FileUpload = { fileName: string; contentType: string; bytes: Buffer };

async function writeMessageAudit(tx: Tx, actor: Actor, action: string, id: string, after: unknown): Promise<void> {
  await recordAudit(tx, {
    ...auditActor(actor),
    action,
    objectType: 'conversation',
    objectId: id,
    after,
    outcome: 'success',
  });
}

export type AttachmentStore = (
  tx: Tx,
  tenantId: string,
  messageId: string,
  files: FileUpload[],
) => Promise<ConversationAttachmentsRow[]>;

/** Starts a thread with a customer: the first outbound message, queued. */
export async function startConversation(
  tx: Tx,
  actor: Actor,
  input: NewConversationInput,
  files: FileUpload[] = [],
  store?: AttachmentStore,
): Promise<{ conversationId: string; messageId: string }> {
  await assertInScope(tx, actor, 'customer', input.customerId);
  if (input.channel === 'email' && !input.subject)
    throw new AppError('UNPROCESSABLE', 'The subject is required for an e-mail.', { field: 'subject' });
  if (files.length && input.channel !== 'email')
    throw new AppError('UNPROCESSABLE', 'Only e-mails carry attachments.', { field: 'file' });
  const [created] = await tx.query<{ id: string }>(
    `insert into conversations (tenant_id, customer_id, loan_id, customer_branch_id, customer_officer_id, subject, channel, created_by)
     select $1, c.id, $3, c.branch_id, c.officer_id, $4, $5, $6 from customers c where c.id = $2 returning id`,
    [
      actor.tenantId,
      input.customerId,
      input.loanId ?? null,
      (input.subject || input.body).slice(0, 200),
      input.channel,
      actor.userId,
    ],
  );
  const queued = await queueMessage(tx, actor.tenantId, {
    customerId: input.customerId,
    loanId: input.loanId ?? null,
    conversationId: created.id,
    channel: input.channel,
    purpose: input.purpose,
    subject: input.subject,
    body: input.body,
    templateId: input.templateId ?? null,
    authorId: actor.userId,
    createdBy: actor.userId,
  });
  if (files.length && store) await store(tx, actor.tenantId, queued.messageId, files);
  await markRead(tx, actor, queued.conversationId);
  await writeMessageAudit(tx, actor, 'conversation.create', queued.conversationId, {
    customerId: input.customerId,
    loanId: input.loanId ?? null,
    channel: input.channel,
    purpose: input.purpose,
    messageId: queued.messageId,
  });
  return queued;
}

/** Posts in a thread: an outbound e-mail/SMS (queued) or an internal note (with @mentions notified). */
export async function postMessage(
  tx: Tx,
  actor: Actor,
  input: PostMessageInput,
  files: FileUpload[] = [],
  store?: AttachmentStore,
): Promise<{ conversationId: string; messageId: string }> {
  const thread = await getThread(tx, actor, input.conversationId);
  let messageId: string;
  if (input.kind === 'note') {
    // Only colleagues who see the customer are mentioned (and notified): a mention tells the customer's name.
    const mentioned: { id: string }[] = [];
    for (const id of new Set(input.mentions))
      if (await userSeesObject(tx, id, 'customer', thread.customer_id)) mentioned.push({ id });
    const [row] = await tx.query<{ id: string }>(
      `insert into conversation_messages (tenant_id, conversation_id, kind, channel, purpose, body, status, author_id, mentions)
       values ($1, $2, 'note', 'note', 'service', $3, 'note', $4, $5::uuid[]) returning id`,
      [actor.tenantId, thread.id, input.body, actor.userId, mentioned.map((m) => m.id)],
    );
    messageId = row.id;
    await tx.query('update conversations set last_message_at = now() where id = $1', [thread.id]);
    for (const m of mentioned)
      if (m.id !== actor.userId)
        await notify(tx, actor.tenantId, {
          userId: m.id,
          kind: 'mention',
          title: `@ ${thread.subject} — ${thread.customer_name}`,
          link: `/loans/conversations/${thread.id}`,
          dedupeKey: `mention:${messageId}`,
        });
  } else {
    if (files.length && input.kind !== 'email')
      throw new AppError('UNPROCESSABLE', 'Only e-mails carry attachments.', { field: 'file' });
    const queued = await queueMessage(tx, actor.tenantId, {
      customerId: thread.customer_id,
      loanId: thread.loan_id,
      conversationId: thread.id,
      channel: input.kind,
      purpose: input.purpose,
      subject: input.subject || (input.kind === 'email' ? `Re: ${thread.subject}`.slice(0, 200) : ''),
      body: input.body,
      authorId: actor.userId,
      createdBy: actor.userId,
    });
    messageId = queued.messageId;
  }
  if (files.length && store) await store(tx, actor.tenantId, messageId, files);
  await markRead(tx, actor, thread.id);
  await writeMessageAudit(tx, actor, input.kind === 'note' ? 'conversation.note' : 'conversation.message', thread.id, {
    messageId,
    kind: input.kind,
    purpose: input.kind === 'note' ? undefined : input.purpose,
  });
  return { conversationId: thread.id, messageId };
}

/** Refusal check for a page's form before it posts (the opt-out reason shown next to the purpose). */
export { refusal };

export const markReadCommand = defineCommand({
  action: 'conversation.read',
  objectType: 'conversation',
  permission: CONVERSATIONS_RULE,
  input: z.object({ conversationId: z.string() }),
  run: async (tx, actor, input) => {
    const out = await markRead(tx, actor, input.conversationId);
    await writeMessageAudit(tx, actor, 'conversation.read', input.conversationId, out);
    return out;
  },
});

/**
 * The side navigation's two counts in one statement: threads in the viewer's scope with a message they
 * have not read, and their open tasks due on or before the business date (each capped at 100; null
 * when not asked for).
 */
export async function navCounts(
  tx: Tx,
  viewer: Viewer,
  want: { conversations: boolean; tasks: boolean },
): Promise<{ conversations: number | null; tasks: number | null }> {
  if (!want.conversations && !want.tasks) return { conversations: null, tasks: null };
  const nodes = want.conversations ? await scopeNodesFor(tx, viewer) : null;
  const [row] = await tx.query<{ conversations: number | null; tasks: number | null }>(
    `select
       case when $3 then (select count(*)::int from (
         select 1 from conversations c
           left join conversation_reads r on r.tenant_id = c.tenant_id and r.conversation_id = c.id and r.user_id = $1::uuid
          where ${scopeSql('$2')}
            and exists (select 1 from conversation_messages m where m.tenant_id = c.tenant_id and m.conversation_id = c.id
                          and m.seq > coalesce(r.last_read_seq, 0) and m.author_id is distinct from $1::uuid)
          limit 100) x) end as conversations,
       case when $4 then (select count(*)::int from (
         select 1 from tasks where assignee_user_id = $1::uuid and status in ('open', 'in_progress')
            and due_date <= (select business_date from tenants where id = app_tenant()) limit 100) y) end as tasks`,
    [viewer.userId, nodes, want.conversations, want.tasks],
  );
  return { conversations: row?.conversations ?? null, tasks: row?.tasks ?? null };
}
