import type { Tx } from '../db/index.ts';

/**
 * The timeline of a loan or a customer: everything that happened to it, newest first, in one page
 * (TIMELINE_LIMIT entries): collection activities (contacts, promises with their status,
 * call-backs, messages, assignments, bucket moves, kept/broken promises, workflow steps with their
 * task's title, reminders), tasks linked to it (created, done), the messages of its conversations,
 * and the loan transactions (disbursement, repayment, reversal). One SQL union over indexed
 * per-loan / per-customer rows: never a scan of the portfolio.
 */
export const TIMELINE_LIMIT = 50;

export type TimelineEntry = {
  at: Date;
  /** 'activity' | 'task_created' | 'task_done' | 'message' | 'transaction' */
  source: 'activity' | 'task_created' | 'task_done' | 'message' | 'transaction';
  /** activity: collection_activities.kind; message: outbound/inbound/note; transaction: its type. */
  kind: string;
  id: string;
  loanId: string | null;
  accountNo: string | null;
  /** Task title, message subject or first line, workflow step's task title. */
  title: string | null;
  /** Promise status, message status, task status. */
  status: string | null;
  channel: string | null;
  outcome: string | null;
  note: string | null;
  date: string | null;
  amount: bigint | null;
  currency: string | null;
  /** The conversation (message) or task the entry links to. */
  linkId: string | null;
  details: Record<string, unknown>;
  callbackAt: Date | null;
  actorName: string | null;
};

type Row = {
  at: Date;
  source: TimelineEntry['source'];
  kind: string;
  id: string;
  loan_id: string | null;
  title: string | null;
  status: string | null;
  channel: string | null;
  outcome: string | null;
  note: string | null;
  date: string | null;
  amount: bigint | null;
  link_id: string | null;
  details: Record<string, unknown> | null;
  actor: string | null;
  callback_at: Date | null;
};

/** The union's branches; `$1` is the loan id or the customer id, `on` says which column it matches. */
function unionSql(on: 'loan' | 'customer'): string {
  const activity = on === 'loan' ? 'a.loan_id = $1' : 'a.customer_id = $1';
  const task = on === 'loan' ? 't.loan_id = $1' : 't.customer_id = $1';
  const conversation = on === 'loan' ? 'c.loan_id = $1' : 'c.customer_id = $1';
  const transaction = on === 'loan' ? 'x.loan_id = $1' : 'x.loan_id in (select id from loans where customer_id = $1)';
  return `
    select a.created_at as at, 'activity' as source, a.kind, a.id, a.loan_id,
           coalesce(t.title, nullif(m.subject, ''), split_part(m.body, E'\\n', 1), a.details->>'title') as title,
           coalesce(a.promise_status, m.status) as status, a.channel, a.outcome, nullif(a.note, '') as note,
           a.promise_date::text as date, a.promise_amount as amount,
           case when a.kind = 'message' then coalesce(m.conversation_id, (a.details->>'conversationId')::uuid)
                when a.task_id is not null then a.task_id end as link_id,
           a.details, a.actor, a.callback_at
      from collection_activities a
      left join tasks t on t.id = a.task_id
      left join conversation_messages m on m.id = a.message_id
     where ${activity}
    union all
    select t.created_at, 'task_created', t.source, t.id, t.loan_id, t.title, t.status, null, null, null,
           t.due_date::text, null, t.id, null, t.created_by, null
      from tasks t where ${task}
       -- a workflow step's task shows once, as the step (with the task's title)
       and not exists (select 1 from collection_activities a2 where a2.loan_id = t.loan_id and a2.task_id = t.id)
    union all
    select t.completed_at, 'task_done', t.source, t.id, t.loan_id, t.title, t.status, null, null, null,
           null, null, t.id, null, t.completed_by, null
      from tasks t where ${task} and t.completed_at is not null
    union all
    select m.created_at, 'message', m.kind, m.id, c.loan_id,
           coalesce(nullif(m.subject, ''), split_part(m.body, E'\\n', 1)), m.status, m.channel, null, null,
           null, null, c.id, null, m.author_id::text, null
      from conversation_messages m join conversations c on c.id = m.conversation_id
     where ${conversation} and m.kind <> 'note'
       and not exists (select 1 from collection_activities a2 where a2.loan_id = c.loan_id and a2.message_id = m.id)
    union all
    select x.created_at, 'transaction', x.type::text, x.id, x.loan_id, null, null, null, null, x.note,
           x.transaction_date::text, x.amount, null, null, x.created_by, null
      from loan_transactions x
     where ${transaction} and x.type in ('DISBURSEMENT', 'REPAYMENT', 'REVERSAL')`;
}

async function timeline(tx: Tx, on: 'loan' | 'customer', id: string, page: number): Promise<TimelineEntry[]> {
  const rows = await tx.query<Row & { account_no: string | null; currency: string | null; actor_name: string | null }>(
    `select e.*, l.account_no, trim(l.currency) as currency, u.display_name as actor_name
       from (${unionSql(on)}) e
       left join loans l on l.id = e.loan_id
       left join users u on e.actor ~ '^[0-9a-f-]{36}$' and u.id = e.actor::uuid
      order by e.at desc, e.id desc
      limit ${TIMELINE_LIMIT} offset $2`,
    [id, Math.max(0, page - 1) * TIMELINE_LIMIT],
  );
  return rows.map((r) => ({
    at: r.at,
    source: r.source,
    kind: r.kind,
    id: r.id,
    loanId: r.loan_id,
    accountNo: r.account_no,
    title: r.title,
    status: r.status,
    channel: r.channel,
    outcome: r.outcome,
    note: r.note,
    date: r.date,
    amount: r.amount === null ? null : BigInt(r.amount),
    currency: r.currency,
    linkId: r.link_id,
    details: r.details ?? {},
    callbackAt: r.callback_at,
    actorName: r.actor_name ?? (r.actor?.startsWith('system') ? 'system' : null),
  }));
}

/** The loan's timeline, newest first (page 1 = the latest TIMELINE_LIMIT entries). */
export function loanTimeline(tx: Tx, loanId: string, page = 1): Promise<TimelineEntry[]> {
  return timeline(tx, 'loan', loanId, page);
}

/** The customer's timeline over all their loans and conversations, newest first. */
export function customerTimeline(tx: Tx, customerId: string, page = 1): Promise<TimelineEntry[]> {
  return timeline(tx, 'customer', customerId, page);
}
