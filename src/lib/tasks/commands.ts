/**
 * The task commands (src/lib/http/command.ts): create, update (edit with a revision), assign, complete
 * and delete. The /v1 endpoints (src/pages/v1/tasks/**) and the pages' plain forms run the same ones.
 *
 * Rules enforced here, whatever the caller sent:
 *  - input errors are 422 naming the field, in the caller's language (title 1–200, description ≤ 4000,
 *    priority/status from their lists, due date a real day not before the business date on create);
 *  - linked objects (customer, loan, application, offer) must exist in the caller's scope: 404 naming
 *    the field otherwise; the loan/application/offer must belong to the linked customer;
 *  - "manage = assign to others" (spec §6): assigning to anyone but yourself, or to a team, needs
 *    loans.tasks.manage (403 naming the field), read from the caller's roles in the database, so a
 *    forged form or JSON body gets the same answer as the picker that did not offer it;
 *  - an assignee must be an active user of the tenant who can see the linked customer, or a branch
 *    (team) of the caller's scope;
 *  - every success is audited (task.create, task.update, task.assign, task.complete, task.delete).
 */
import { z } from 'zod';
import type { Tx } from '../db/index.ts';
import type { TasksRow } from '../db/schema.generated.ts';
import { recordAudit, auditActor } from '../audit/record-audit.ts';
import { allows, need } from '../auth/permissions.ts';
import { isInNodes, isInScope, notFoundError, outsideScopeError, scopeNodesFor } from '../auth/data-permissions.ts';
import { defineCommand } from '../http/command.ts';
import { AppError } from '../errors/app-error.ts';
import { validationError } from '../errors/messages.ts';
import { parseDateInput } from '../dates/parse-date.ts';
import type { Actor } from '../lending/actor.ts';
import { businessDate } from '../tenancy/tenant.ts';
import { resolveScopeNodes } from '../tenancy/scope.ts';
import { currentUser } from '../tenancy/users.ts';
import { notify } from '../notifications/notify.ts';
import { createTask, type TaskPriority } from './create.ts';
import { getTask, TASK_PRIORITIES, TASK_STATUSES, type TaskItem, type TaskStatus } from './tasks.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const text = z.string().max(20_000);
const optionalId = z.string().max(100).nullable().optional();
const revisionField = z.coerce.number().int().positive().max(2_000_000_000);

const taskFields = {
  title: text.optional(),
  description: text.optional(),
  assigneeUserId: optionalId,
  assigneeNodeId: optionalId,
  dueDate: z.string().max(100).nullable().optional(),
  priority: z.string().max(100).optional(),
  customerId: optionalId,
  loanId: optionalId,
  applicationId: optionalId,
  offerId: optionalId,
};

const unprocessable = (field: string, key: string, params: Record<string, string | number> = {}) =>
  validationError(field, key, params, 'UNPROCESSABLE');

function checkTitle(value: string | undefined): string {
  const title = (value ?? '').trim();
  if (!title) throw unprocessable('title', 'required');
  if (title.length > 200) throw unprocessable('title', 'text.tooLong', { max: 200 });
  return title;
}

function checkDescription(value: string | undefined): string {
  const description = value ?? '';
  if (description.length > 4000) throw unprocessable('description', 'text.tooLong', { max: 4000 });
  return description;
}

function checkChoice<T extends string>(field: string, value: string, options: readonly T[]): T {
  if (!(options as readonly string[]).includes(value))
    throw unprocessable(field, 'choice', { options: options.join(', ') });
  return value as T;
}

function checkDue(value: string | null | undefined, min: string | null): string | null {
  if (value === undefined || value === null || value.trim() === '') return null;
  const parsed = parseDateInput(value.trim(), { min, minIsBusinessDate: true });
  if (!parsed.ok) throw unprocessable('dueDate', parsed.problem.key, parsed.problem.params);
  return parsed.date;
}

const blank = (value: string | null | undefined) =>
  value === undefined || value === null || value.trim() === '' ? null : value.trim();

/** Whether the caller holds loans.tasks.manage, read from their roles now (never from the request). */
export async function canManageTasks(tx: Tx, actor: Actor): Promise<boolean> {
  if (actor.isAdmin) return true;
  const me = await currentUser(tx, actor.userId);
  return allows({ isAdmin: me.is_admin, authorities: me.authorities }, need('loans.tasks.manage'));
}

type Links = { customerId: string | null; loanId: string | null; applicationId: string | null; offerId: string | null };

/** Each linked object exists in the caller's scope (404 naming its field) and all name one customer. */
async function checkLinks(tx: Tx, actor: Actor, input: Links): Promise<Links> {
  const kinds = [
    ['customerId', 'customer', 'customers'],
    ['loanId', 'loan', 'loans'],
    ['applicationId', 'application', 'loan_applications'],
    ['offerId', 'offer', 'offers'],
  ] as const;
  let customer: string | null = null;
  for (const [field, kind, table] of kinds) {
    const id = input[field];
    if (!id) continue;
    if (!UUID.test(id) || !(await isInScope(tx, actor, kind, id))) throw notFoundError(kind);
    const owner =
      kind === 'customer'
        ? id
        : (await tx.query<{ customer_id: string }>(`select customer_id::text from ${table} where id = $1`, [id]))[0]
            .customer_id;
    if (customer && owner !== customer) throw unprocessable(field, 'task.otherCustomer');
    customer = owner;
  }
  return { ...input, customerId: customer };
}

type Assignee = { userId: string | null; nodeId: string | null };

/**
 * Checks an assignee: yourself always; anyone else or a team only with loans.tasks.manage. The user
 * must be active in the tenant and able to see the linked customer; the team a branch of the scope.
 */
async function checkAssignee(tx: Tx, actor: Actor, assignee: Assignee, customerId: string | null): Promise<void> {
  if (assignee.userId && assignee.nodeId) throw unprocessable('assigneeNodeId', 'task.oneAssignee');
  const isSelf = assignee.userId === actor.userId || (!assignee.userId && !assignee.nodeId);
  const field = assignee.nodeId ? 'assigneeNodeId' : 'assigneeUserId';
  if (!isSelf && !(await canManageTasks(tx, actor)))
    throw new AppError('FORBIDDEN', 'Assigning a task to someone else needs the permission to manage tasks.', {
      field,
      key: 'task.manageNeeded',
      params: {},
    });
  if (assignee.userId) {
    if (!UUID.test(assignee.userId)) throw unprocessable('assigneeUserId', 'invalid');
    const [user] = await tx.query<{ id: string }>('select id::text from users where id = $1 and is_active', [
      assignee.userId,
    ]);
    if (!user) throw unprocessable('assigneeUserId', 'invalid');
    if (customerId && assignee.userId !== actor.userId) {
      const them = await currentUser(tx, assignee.userId);
      const nodes = await resolveScopeNodes(
        tx,
        {
          isAdmin: them.is_admin,
          dataPermissions: them.data_permissions.map((p) => ({ field: p.field, value: p.value })),
        },
        null,
      );
      if (!(await isInNodes(tx, 'customer', customerId, nodes)))
        throw unprocessable('assigneeUserId', 'task.assigneeCannotSee');
    }
  }
  if (assignee.nodeId) {
    const nodes = await scopeNodesFor(tx, actor);
    const exists =
      UUID.test(assignee.nodeId) &&
      (await tx.query(`select 1 from hierarchy_nodes where id = $1 and level = 'branch'`, [assignee.nodeId])).length >
        0;
    if (nodes !== null && (!exists || !nodes.includes(assignee.nodeId)))
      throw outsideScopeError(actor, 'assigneeNodeId');
    if (!exists) throw unprocessable('assigneeNodeId', 'invalid');
  }
}

async function audit(tx: Tx, actor: Actor, action: string, id: string, before: unknown, after: unknown): Promise<void> {
  await recordAudit(tx, {
    ...auditActor(actor),
    action,
    objectType: 'task',
    objectId: id,
    before,
    after,
    outcome: 'success',
  });
}

async function notifyAssigned(
  tx: Tx,
  actor: Actor,
  task: Pick<TasksRow, 'id' | 'title' | 'revision'>,
  userId: string | null,
) {
  if (!userId || userId === actor.userId) return;
  await notify(tx, actor.tenantId, {
    userId,
    kind: 'task_assigned',
    title: task.title,
    link: `/loans/tasks/edit/${task.id}`,
    dedupeKey: `task_assigned:${task.id}:${userId}:${task.revision}`,
  });
}

function staleCheck(task: Pick<TaskItem, 'revision'>, expected: number | undefined) {
  if (expected !== undefined && expected !== task.revision)
    throw new AppError('CONFLICT', 'This task was changed by someone else; review it and save again.', {
      field: 'expectedRevision',
      details: { code: 'stale_revision', revision: task.revision },
    });
}

/** Locks the visible task for a write (404 when missing or out of sight; 409 when the revision is stale). */
async function lockTask(tx: Tx, actor: Actor, id: string, expectedRevision: number | undefined): Promise<TaskItem> {
  await getTask(tx, actor, id);
  await tx.query('select 1 from tasks where id = $1 for update', [id]);
  // Re-read after the lock, so the revision compared is the committed one.
  const task = await getTask(tx, actor, id);
  staleCheck(task, expectedRevision);
  return task;
}

/** The task after a write, audited with its state before. */
async function written(tx: Tx, actor: Actor, action: string, before: TaskItem): Promise<TaskItem> {
  const after = await getTask(tx, { ...actor, isAdmin: true }, before.id);
  await audit(tx, actor, action, before.id, before, after);
  return after;
}

// ---------------------------------------------------------------------------------------------

export const createTaskInput = z.object(taskFields).strict();
export type CreateTaskInput = z.infer<typeof createTaskInput>;

/** POST /v1/tasks and /loans/tasks/new → the task. */
export const createTaskCommand = defineCommand({
  action: 'task.create',
  objectType: 'task',
  permission: need('loans.tasks.create'),
  input: createTaskInput,
  run: async (tx, actor, input) => {
    const title = checkTitle(input.title);
    const description = checkDescription(input.description);
    const priority = checkChoice<TaskPriority>('priority', blank(input.priority) ?? 'normal', TASK_PRIORITIES);
    const today = await businessDate(tx, actor.tenantId);
    const dueDate = checkDue(input.dueDate, today);
    const links = await checkLinks(tx, actor, {
      customerId: blank(input.customerId),
      loanId: blank(input.loanId),
      applicationId: blank(input.applicationId),
      offerId: blank(input.offerId),
    });
    let assignee: Assignee = { userId: blank(input.assigneeUserId), nodeId: blank(input.assigneeNodeId) };
    if (!assignee.userId && !assignee.nodeId) assignee = { userId: actor.userId, nodeId: null };
    await checkAssignee(tx, actor, assignee, links.customerId);
    const { id } = await createTask(tx, actor.tenantId, {
      title,
      description,
      priority,
      dueDate,
      assigneeUserId: assignee.userId,
      assigneeNodeId: assignee.nodeId,
      ...links,
      source: 'manual',
      createdBy: actor.userId,
    });
    const task = await getTask(tx, { ...actor, isAdmin: true }, id!);
    await audit(tx, actor, 'task.create', task.id, null, task);
    return task;
  },
});

export const updateTaskInput = z
  .object({
    id: z.string().max(100),
    expectedRevision: revisionField,
    status: z.string().max(100).optional(),
    ...taskFields,
  })
  .strict();

/**
 * PATCH /v1/tasks/{id} and /loans/tasks/edit/{id} → the task: the fields sent change (a form sends
 * them all); a stale `expectedRevision` is a 409 and nothing changes. A new assignee is notified.
 */
export const updateTaskCommand = defineCommand({
  action: 'task.update',
  objectType: 'task',
  permission: need('loans.tasks.edit'),
  input: updateTaskInput,
  run: async (tx, actor, input) => {
    const before = await lockTask(tx, actor, input.id, input.expectedRevision);
    const title = input.title === undefined ? before.title : checkTitle(input.title);
    const description = input.description === undefined ? before.description : checkDescription(input.description);
    const priority =
      input.priority === undefined ? before.priority : checkChoice('priority', input.priority, TASK_PRIORITIES);
    const status =
      input.status === undefined ? (before.status as TaskStatus) : checkChoice('status', input.status, TASK_STATUSES);
    // A due date kept as it was may lie in the past; a new one may not.
    const today = await businessDate(tx, actor.tenantId);
    const dueDate =
      input.dueDate === undefined || (blank(input.dueDate) ?? null) === before.due_date
        ? before.due_date
        : checkDue(input.dueDate, today);
    const touchesLinks = ['customerId', 'loanId', 'applicationId', 'offerId'].some(
      (k) => input[k as keyof typeof input] !== undefined,
    );
    const links = touchesLinks
      ? await checkLinks(tx, actor, {
          customerId: input.customerId === undefined ? before.customer_id : blank(input.customerId),
          loanId: input.loanId === undefined ? before.loan_id : blank(input.loanId),
          applicationId: input.applicationId === undefined ? before.application_id : blank(input.applicationId),
          offerId: input.offerId === undefined ? before.offer_id : blank(input.offerId),
        })
      : {
          customerId: before.customer_id,
          loanId: before.loan_id,
          applicationId: before.application_id,
          offerId: before.offer_id,
        };
    const assignee: Assignee =
      input.assigneeUserId === undefined && input.assigneeNodeId === undefined
        ? { userId: before.assignee_user_id, nodeId: before.assignee_node_id }
        : { userId: blank(input.assigneeUserId), nodeId: blank(input.assigneeNodeId) };
    const assigneeChanged = assignee.userId !== before.assignee_user_id || assignee.nodeId !== before.assignee_node_id;
    if (assigneeChanged || links.customerId !== before.customer_id)
      await checkAssignee(tx, actor, assignee, links.customerId);
    const [row] = await tx.query<Pick<TasksRow, 'id' | 'title' | 'revision'>>(
      `update tasks t set title = $2, description = $3, priority = $4, status = $5, due_date = $6,
              assignee_user_id = $7, assignee_node_id = $8, customer_id = $9, loan_id = $10, application_id = $11,
              offer_id = $12, customer_branch_id = c.branch_id, customer_officer_id = c.officer_id,
              completed_at = case when $5 in ('done', 'cancelled') then coalesce(t.completed_at, now()) end,
              completed_by = case when $5 in ('done', 'cancelled') then coalesce(t.completed_by, $13) end,
              due_notified_on = case when $6::date is distinct from t.due_date then null else t.due_notified_on end,
              revision = t.revision + 1, updated_at = now()
         from (select 1) one left join customers c on c.id = $9::uuid
        where t.id = $1
        returning t.id, t.title, t.revision`,
      [
        before.id,
        title,
        description,
        priority,
        status,
        dueDate,
        assignee.userId,
        assignee.nodeId,
        links.customerId,
        links.loanId,
        links.applicationId,
        links.offerId,
        actor.userId,
      ],
    );
    if (assignee.userId !== before.assignee_user_id) await notifyAssigned(tx, actor, row, assignee.userId);
    return written(tx, actor, 'task.update', before);
  },
});

export const assignTaskInput = z
  .object({
    id: z.string().max(100),
    expectedRevision: revisionField.optional(),
    assigneeUserId: optionalId,
    assigneeNodeId: optionalId,
  })
  .strict();

/** POST /v1/tasks/{id}/assignment { assigneeUserId | assigneeNodeId } → the task (loans.tasks.manage). */
export const assignTaskCommand = defineCommand({
  action: 'task.assign',
  objectType: 'task',
  permission: need('loans.tasks.manage'),
  input: assignTaskInput,
  run: async (tx, actor, input) => {
    const before = await lockTask(tx, actor, input.id, input.expectedRevision);
    const assignee = { userId: blank(input.assigneeUserId), nodeId: blank(input.assigneeNodeId) };
    if (!assignee.userId && !assignee.nodeId) throw unprocessable('assigneeUserId', 'required');
    await checkAssignee(tx, actor, assignee, before.customer_id);
    const [row] = await tx.query<Pick<TasksRow, 'id' | 'title' | 'revision'>>(
      `update tasks set assignee_user_id = $2, assignee_node_id = $3, revision = revision + 1, updated_at = now()
        where id = $1 returning id, title, revision`,
      [before.id, assignee.userId, assignee.nodeId],
    );
    await notifyAssigned(tx, actor, row, assignee.userId);
    return written(tx, actor, 'task.assign', before);
  },
});

export const taskIdInput = z.object({ id: z.string().max(100), expectedRevision: revisionField.optional() }).strict();

/** POST /v1/tasks/{id}/completion → the task, done (again: no change, no error). */
export const completeTaskCommand = defineCommand({
  action: 'task.complete',
  objectType: 'task',
  permission: need('loans.tasks.edit'),
  input: taskIdInput,
  run: async (tx, actor, input) => {
    const before = await lockTask(tx, actor, input.id, input.expectedRevision);
    if (before.status === 'done') return before;
    await tx.query(
      `update tasks set status = 'done', completed_at = now(), completed_by = $2, revision = revision + 1, updated_at = now()
        where id = $1`,
      [before.id, actor.userId],
    );
    return written(tx, actor, 'task.complete', before);
  },
});

/** DELETE /v1/tasks/{id} and the edit page's delete form → { id }. */
export const deleteTaskCommand = defineCommand({
  action: 'task.delete',
  objectType: 'task',
  permission: need('loans.tasks.delete'),
  input: taskIdInput,
  run: async (tx, actor, input) => {
    const before = await lockTask(tx, actor, input.id, input.expectedRevision);
    await tx.query('delete from tasks where id = $1', [before.id]);
    await audit(tx, actor, 'task.delete', before.id, before, null);
    return { id: before.id };
  },
});

/** The JSON body of a /v1 route with the path's id put in. */
export function withTaskId(id: string) {
  return (body: unknown) => ({ ...(typeof body === 'object' && body !== null ? body : {}), id });
}

export type LinkedSummary = Links & {
  customerName: string | null;
  loanAccountNo: string | null;
  offerCode: string | null;
};

/**
 * The objects a new task is prefilled with (`?customer=`, `?loan=`, `?application=`, `?offer=`),
 * checked as the command checks them (404 naming the field outside the caller's scope), with the
 * names the form shows.
 */
export async function describeLinks(tx: Tx, actor: Actor, input: Partial<Links>): Promise<LinkedSummary> {
  const links = await checkLinks(tx, actor, {
    customerId: blank(input.customerId),
    loanId: blank(input.loanId),
    applicationId: blank(input.applicationId),
    offerId: blank(input.offerId),
  });
  const [row] = await tx.query<{ customer_name: string | null; account_no: string | null; code: string | null }>(
    `select (select trim(first_name || ' ' || last_name) from customers where id = $1::uuid) as customer_name,
            (select account_no from loans where id = $2::uuid) as account_no,
            (select code from offers where id = $3::uuid) as code`,
    [links.customerId, links.loanId, links.offerId],
  );
  return { ...links, customerName: row.customer_name, loanAccountNo: row.account_no, offerCode: row.code };
}
