import type { Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { logger } from '../observability/log.ts';
import { createTask, type TaskPriority } from '../tasks/create.ts';
import { queueTemplateMessage } from '../conversations/queue.ts';
import { refreshCollectionCases } from './cases.ts';
import { recomputePriorities } from './priority.ts';
import { addDays } from '../schedule/dates.ts';
import type { CollectionWorkflowsRow } from '../db/schema.generated.ts';
import { parseSteps, type WorkflowStep } from './workflow-steps.ts';

/**
 * The collection step of the daily close (src/lib/close/README.md, step 3), in the close's transaction:
 *  a. collection cases refreshed from the new delinquency state (refreshCollectionCases);
 *  b. open promises to pay whose date has passed settled (kept when the loan's non-reversed repayments
 *     since the promise reach its amount, else broken);
 *  c. collection workflow steps run, once per (workflow, step, loan, episode) — collection_workflow_runs;
 *  d. bullet loans' pre-maturity reminders (BULLET_REMINDER_OFFSETS days before the due date).
 * Cases, promises and eligibility are set-based; actions run only for the runs inserted today.
 */

export type CollectionCloseStats = {
  collectionCases: number;
  bucketMoves: number;
  promisesKept: number;
  promisesBroken: number;
  workflowSteps: number;
  reminders: number;
};

/** Days before a bullet loan's due date at which its maturity reminder is queued (once each). */
export const BULLET_REMINDER_OFFSETS = [7, 1] as const;
/** Synthetic workflow id under which bullet reminders are guarded in collection_workflow_runs. */
export const BULLET_REMINDER_WORKFLOW_ID = '00000000-0000-0000-0000-00000000b117';
export const BULLET_REMINDER_TEMPLATE = 'bullet_maturity_reminder';

export async function collectionCloseStep(
  tx: Tx,
  tenantId: string,
  newBusinessDate: string,
  actor = 'system:close',
): Promise<CollectionCloseStats> {
  const { cases, moves } = await refreshCollectionCases(tx, tenantId, newBusinessDate);
  const { kept, broken } = await settlePromises(tx, tenantId, newBusinessDate, actor);
  const workflowSteps = await runWorkflows(tx, tenantId, newBusinessDate, actor);
  const reminders = await bulletReminders(tx, tenantId, newBusinessDate, actor);
  return {
    collectionCases: cases,
    bucketMoves: moves,
    promisesKept: kept,
    promisesBroken: broken,
    workflowSteps,
    reminders,
  };
}

/** b. Settles every open promise dated before the new business date. */
export async function settlePromises(
  tx: Tx,
  tenantId: string,
  date: string,
  actor: string,
): Promise<{ kept: number; broken: number }> {
  const settled = await tx.query<{
    id: string;
    loan_id: string;
    customer_id: string;
    promise_status: 'kept' | 'broken';
    paid: string;
    promise_amount: string;
  }>(
    `with due as (
       select a.id, a.loan_id, a.promise_amount, a.business_date
         from collection_activities a
        where a.tenant_id = $1 and a.kind = 'promise' and a.promise_status = 'open' and a.promise_date < $2
     ), paid as (
       select d.id, coalesce(sum(t.amount), 0)::int8 as paid
         from due d
         left join loan_transactions t on t.tenant_id = $1 and t.loan_id = d.loan_id and t.type = 'REPAYMENT'
              and t.transaction_date >= d.business_date
              and not exists (select 1 from loan_transactions r where r.tenant_id = t.tenant_id and r.reverses_id = t.id)
        group by d.id
     )
     update collection_activities a
        set promise_status = case when p.paid >= a.promise_amount then 'kept' else 'broken' end,
            promise_settled_on = $2
       from paid p
      where a.tenant_id = $1 and a.id = p.id
     returning a.id, a.loan_id, a.customer_id, a.promise_status, p.paid::text as paid, a.promise_amount::text as promise_amount`,
    [tenantId, date],
  );
  if (!settled.length) return { kept: 0, broken: 0 };
  await tx.query(
    `insert into collection_activities (tenant_id, loan_id, customer_id, kind, details, business_date, actor)
     select $1, s.loan_id, s.customer_id, 'promise_' || s.status,
            jsonb_build_object('promiseId', s.id, 'paid', s.paid, 'promised', s.promised), $2, $3
       from unnest($4::uuid[], $5::uuid[], $6::uuid[], $7::text[], $8::text[], $9::text[])
            as s(id, loan_id, customer_id, status, paid, promised)`,
    [
      tenantId,
      date,
      actor,
      settled.map((s) => s.id),
      settled.map((s) => s.loan_id),
      settled.map((s) => s.customer_id),
      settled.map((s) => s.promise_status),
      settled.map((s) => s.paid),
      settled.map((s) => s.promise_amount),
    ],
  );
  const brokenIds = settled.filter((s) => s.promise_status === 'broken').map((s) => s.id);
  const brokenLoans = settled.filter((s) => s.promise_status === 'broken').map((s) => s.loan_id);
  // A loan may have had two promises settle the same day: count each broken one.
  await tx.query(
    `update collection_cases c
        set broken_promises = c.broken_promises + b.n,
            open_promise_id = case when c.open_promise_id = any($3::uuid[]) then null else c.open_promise_id end
       from (select loan_id, count(*)::int as n from unnest($2::uuid[]) as x(loan_id) group by loan_id) b
      where c.tenant_id = $1 and c.loan_id = b.loan_id`,
    [tenantId, brokenLoans, brokenIds],
  );
  await tx.query(
    `update collection_cases set open_promise_id = null where tenant_id = $1 and open_promise_id = any($2::uuid[])`,
    [tenantId, settled.map((s) => s.id)],
  );
  await recomputePriorities(tx, tenantId, [...new Set(settled.map((s) => s.loan_id))]);
  return { kept: settled.length - brokenIds.length, broken: brokenIds.length };
}

type DueRun = {
  loan_id: string;
  customer_id: string;
  episode_start: string;
  customer_branch_id: string | null;
  officer_user_id: string | null;
  collector_id: string | null;
  account_no: string;
};

type StepOutcome = {
  loanId: string;
  customerId: string;
  episodeStart: string;
  taskId: string | null;
  messageId: string | null;
  assigneeId: string | null;
  result: Record<string, unknown>;
};

/** c. Runs every enabled workflow's due steps, each at most once per loan and overdue episode. */
export async function runWorkflows(tx: Tx, tenantId: string, date: string, actor: string): Promise<number> {
  const workflows = await tx.query<Pick<CollectionWorkflowsRow, 'id' | 'name' | 'bucket_id' | 'steps'>>(
    'select id, name, bucket_id, steps from collection_workflows where tenant_id = $1 and enabled order by created_at, id',
    [tenantId],
  );
  let total = 0;
  for (const wf of workflows) {
    let steps: WorkflowStep[];
    try {
      steps = parseSteps(wf.steps);
    } catch (error) {
      logger.error('collection workflow has invalid steps; skipped', {
        tenant: tenantId,
        workflow: wf.id,
        error: String(error),
      });
      continue;
    }
    for (const step of steps) {
      const due = await tx.query<DueRun>(
        `with eligible as (
           select c.loan_id, c.customer_id, c.episode_start, c.customer_branch_id, c.collector_id, n.user_id as officer_user_id
             from collection_cases c
             left join hierarchy_nodes n on n.tenant_id = c.tenant_id and n.id = c.customer_officer_id
            where c.tenant_id = $1 and c.bucket_id = $2 and c.bucket_since is not null and ($3::date - c.bucket_since) >= $4
              and (not $5::bool or exists (
                select 1 from collection_activities p
                 where p.tenant_id = $1 and p.loan_id = c.loan_id and p.kind = 'promise' and p.promise_status = 'broken'
                   and p.promise_settled_on >= c.episode_start))
         ), ran as (
           insert into collection_workflow_runs (tenant_id, workflow_id, step_id, loan_id, episode_start, ran_on)
           select $1, $6, $7, e.loan_id, e.episode_start, $3 from eligible e
           on conflict do nothing
           returning loan_id
         )
         select e.*, l.account_no from ran r join eligible e on e.loan_id = r.loan_id
           join loans l on l.tenant_id = $1 and l.id = e.loan_id
          order by e.loan_id`,
        [tenantId, wf.bucket_id, date, step.offsetDays, step.when === 'promise_broken', wf.id, step.id],
      );
      if (!due.length) continue;
      const outcomes: StepOutcome[] = [];
      for (const run of due) outcomes.push(await runStep(tx, tenantId, date, actor, wf, step, run));
      await recordStepOutcomes(tx, tenantId, date, actor, wf.id, step, outcomes);
      total += outcomes.length;
    }
  }
  return total;
}

async function runStep(
  tx: Tx,
  tenantId: string,
  date: string,
  actor: string,
  wf: Pick<CollectionWorkflowsRow, 'id' | 'name'>,
  step: WorkflowStep,
  run: DueRun,
): Promise<StepOutcome> {
  const outcome: StepOutcome = {
    loanId: run.loan_id,
    customerId: run.customer_id,
    episodeStart: run.episode_start,
    taskId: null,
    messageId: null,
    assigneeId: null,
    result: {},
  };
  const sourceKey = `workflow:${wf.id}:${step.id}:${run.loan_id}:${run.episode_start}`;
  const p = step.params;
  if (step.action === 'create_task' || step.action === 'escalate') {
    const escalate = step.action === 'escalate';
    const assignTo = escalate ? 'branch' : (p.assignTo ?? 'collector');
    let assigneeUserId: string | null = null;
    let assigneeNodeId: string | null = null;
    if (assignTo === 'collector') {
      if (run.collector_id) assigneeUserId = run.collector_id;
      else assigneeNodeId = run.customer_branch_id;
    } else if (assignTo === 'branch') assigneeNodeId = run.customer_branch_id;
    else if (assignTo === 'officer') {
      if (run.officer_user_id) assigneeUserId = run.officer_user_id;
      else assigneeNodeId = run.customer_branch_id;
    } else assigneeUserId = assignTo;
    const title = escalate
      ? (p.title ?? '').startsWith('Escalation:')
        ? p.title!
        : `Escalation: ${p.title || wf.name}`
      : p.title || wf.name;
    const task = await createTask(tx, tenantId, {
      title: `${title}`.slice(0, 200),
      description: p.description ?? `${wf.name} — ${run.account_no}`,
      assigneeUserId,
      assigneeNodeId,
      dueDate: addDays(date, p.dueInDays ?? 0),
      priority: escalate ? 'high' : ((p.priority as TaskPriority | undefined) ?? 'normal'),
      loanId: run.loan_id,
      customerId: run.customer_id,
      source: 'workflow',
      sourceKey,
      createdBy: actor,
    });
    outcome.taskId = task.id;
    outcome.result = { result: task.created ? 'task_created' : 'task_exists' };
  } else if (step.action === 'send_template') {
    try {
      const queued = await queueTemplateMessage(tx, tenantId, {
        templateCode: p.templateCode,
        customerId: run.customer_id,
        loanId: run.loan_id,
        createdBy: actor,
      });
      outcome.messageId = queued.messageId;
      outcome.result = { result: 'message_queued' };
    } catch (error) {
      // Queueing throws before writing anything when it refuses (opt-out, no address, no template).
      if (!(error instanceof AppError)) throw error;
      outcome.result = { result: 'refused', reason: error.message, templateCode: p.templateCode ?? null };
    }
  } else if (step.action === 'assign') {
    if (p.userId) {
      await tx.query('update collection_cases set collector_id = $3 where tenant_id = $1 and loan_id = $2', [
        tenantId,
        run.loan_id,
        p.userId,
      ]);
      outcome.assigneeId = p.userId;
      outcome.result = { result: 'assigned' };
    } else outcome.result = { result: 'refused', reason: 'No user to assign.' };
  }
  return outcome;
}

async function recordStepOutcomes(
  tx: Tx,
  tenantId: string,
  date: string,
  actor: string,
  workflowId: string,
  step: WorkflowStep,
  outcomes: StepOutcome[],
): Promise<void> {
  const details = outcomes.map((o) => JSON.stringify({ step: step.id, action: step.action, ...o.result }));
  await tx.query(
    `insert into collection_activities (tenant_id, loan_id, customer_id, kind, workflow_id, task_id, message_id, assignee_id,
       details, business_date, actor)
     select $1, o.loan_id, o.customer_id, 'workflow_step', $4, o.task_id, o.message_id, o.assignee_id, o.details, $2, $3
       from unnest($5::uuid[], $6::uuid[], $7::uuid[], $8::uuid[], $9::uuid[], $10::jsonb[])
            as o(loan_id, customer_id, task_id, message_id, assignee_id, details)`,
    [
      tenantId,
      date,
      actor,
      workflowId,
      outcomes.map((o) => o.loanId),
      outcomes.map((o) => o.customerId),
      outcomes.map((o) => o.taskId),
      outcomes.map((o) => o.messageId),
      outcomes.map((o) => o.assigneeId),
      details,
    ],
  );
  await tx.query(
    `update collection_workflow_runs r set result = o.details
       from unnest($3::uuid[], $4::date[], $5::jsonb[]) as o(loan_id, episode_start, details)
      where r.tenant_id = $1 and r.workflow_id = $2 and r.step_id = $6 and r.loan_id = o.loan_id
        and r.episode_start = o.episode_start`,
    [tenantId, workflowId, outcomes.map((o) => o.loanId), outcomes.map((o) => o.episodeStart), details, step.id],
  );
}

/** d. Bullet loans (a single repayment): a maturity reminder 7 and 1 days before the due date, once each. */
export async function bulletReminders(tx: Tx, tenantId: string, date: string, actor: string): Promise<number> {
  const [template] = await tx.query<{ id: string }>(
    'select id from message_templates where tenant_id = $1 and code = $2',
    [tenantId, BULLET_REMINDER_TEMPLATE],
  );
  if (!template) {
    logger.info('bullet maturity reminders skipped: the tenant has no such template', {
      tenant: tenantId,
      template: BULLET_REMINDER_TEMPLATE,
    });
    return 0;
  }
  let total = 0;
  for (const offset of BULLET_REMINDER_OFFSETS) {
    const due = await tx.query<{ loan_id: string; customer_id: string; due_date: string }>(
      `with bullets as (
         -- From the unpaid installments due exactly \`offset\` days ahead (the partial due-date index),
         -- the single-repayment active loans'.
         select l.id as loan_id, l.customer_id, i.due_date
           from loan_installments i join loans l on l.tenant_id = i.tenant_id and l.id = i.loan_id
          where i.tenant_id = $1 and i.obligations_met_on is null and i.due_date = $2::date + $5::int
            and not i.is_down_payment and l.status = 'ACTIVE' and l.number_of_repayments = 1
       ), ran as (
         insert into collection_workflow_runs (tenant_id, workflow_id, step_id, loan_id, episode_start, ran_on)
         select $1, $3, $4, b.loan_id, b.due_date, $2 from bullets b
         on conflict do nothing
         returning loan_id
       )
       select b.* from ran r join bullets b on b.loan_id = r.loan_id order by b.loan_id`,
      [tenantId, date, BULLET_REMINDER_WORKFLOW_ID, `before-${offset}`, offset],
    );
    for (const loan of due) {
      let details: Record<string, unknown>;
      let messageId: string | null = null;
      try {
        messageId = (
          await queueTemplateMessage(tx, tenantId, {
            templateId: template.id,
            customerId: loan.customer_id,
            loanId: loan.loan_id,
            createdBy: actor,
            vars: { dueDate: loan.due_date, daysBefore: String(offset) },
          })
        ).messageId;
        details = { result: 'message_queued', daysBefore: offset, dueDate: loan.due_date };
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        details = { result: 'refused', reason: error.message, daysBefore: offset, dueDate: loan.due_date };
      }
      await tx.query(
        `insert into collection_activities (tenant_id, loan_id, customer_id, kind, message_id, details, business_date, actor)
         values ($1, $2, $3, 'reminder', $4, $5::jsonb, $6, $7)`,
        [tenantId, loan.loan_id, loan.customer_id, messageId, JSON.stringify(details), date, actor],
      );
      total++;
    }
  }
  return total;
}
