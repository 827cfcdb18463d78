/**
 * After each daily close (called by runDailyClose once its transaction committed, next to
 * originateAfterClose): what the new business date D brings to people's task lists.
 *
 *  a) `task_due`: the assignee of every open task due on D gets one notification (dedupe key
 *     `task_due:<task>:<D>`, and `due_notified_on` records it). Team tasks (assigned to a branch
 *     node) notify nobody: the team sees them in its "team" tab and, once late, under "overdue";
 *     notifying every user of a branch would be noise.
 *  b) event tasks, created through createTask with a `sourceKey`, so a second run creates nothing:
 *     - a loan application still `submitted` that was already waiting when the previous close ran
 *       (so it has waited more than one business day) → "Decide on the application of …", assigned
 *       to the branch (team) of its customer (`application:<id>:decision`);
 *     - an officer node with offers to propose → "Propose N new offers", assigned to the officer's
 *       user (or, without one, to the officer's branch), once per officer and business date
 *       (`offers:<officerNode>:<D>`), only when N > 0; the task opens the officer's offers list, and
 *       the officer's earlier open one is cancelled (superseded). Its assignee was just told of it, so
 *       it gets no `task_due` besides.
 * Errors are logged and answered, never thrown: the close is done and stays done.
 */
import type { TFunction } from 'i18next';
import type { Db, Tx } from '../db/index.ts';
import type { HierarchyNodesRow, TasksRow } from '../db/schema.generated.ts';
import { getT, languageOf } from '../i18n/index.ts';
import { logger } from '../observability/log.ts';
import { notify } from '../notifications/notify.ts';
import { createTask } from './create.ts';

export type TasksAfterClose = { dueNotified: number; applicationTasks: number; offerTasks: number } | { error: string };

const SYSTEM = 'system:events';

async function notifyDue(tx: Tx, tenantId: string, day: string): Promise<number> {
  const due = await tx.query<Pick<TasksRow, 'id' | 'title' | 'assignee_user_id'>>(
    `select id, title, assignee_user_id from tasks
      where due_date = $1 and status in ('open', 'in_progress') and assignee_user_id is not null
        -- A task made for that very day (offers to propose) has just told its assignee.
        and not (source = 'event' and source_key like '%:' || $1::text)`,
    [day],
  );
  let count = 0;
  for (const task of due) {
    const isNew = await notify(tx, tenantId, {
      userId: task.assignee_user_id!,
      kind: 'task_due',
      title: task.title,
      link: `/loans/tasks/edit/${task.id}`,
      dedupeKey: `task_due:${task.id}:${day}`,
    });
    if (isNew) count += 1;
  }
  if (due.length)
    await tx.query(`update tasks set due_notified_on = $1 where id = any($2::uuid[])`, [day, due.map((t) => t.id)]);
  return count;
}

async function applicationTasks(tx: Tx, tenantId: string, day: string, t: TFunction) {
  // Waiting since before the previous close: the application has been waiting more than one business day.
  const rows = await tx.query<{ id: string; customer_id: string; branch_id: string | null; name: string }>(
    `select a.id, a.customer_id, c.branch_id, trim(c.first_name || ' ' || c.last_name) as name
       from loan_applications a join customers c on c.tenant_id = a.tenant_id and c.id = a.customer_id
      where a.status = 'submitted'
        and a.submitted_at < (select max(started_at) from close_runs where new_business_date < $1)
        and not exists (select 1 from tasks t where t.source_key = 'application:' || a.id || ':decision')`,
    [day],
  );
  let created = 0;
  for (const row of rows) {
    const result = await createTask(tx, tenantId, {
      title: t('tasks:events.decideApplication', { name: row.name }),
      assigneeNodeId: row.branch_id,
      dueDate: day,
      priority: 'high',
      applicationId: row.id,
      source: 'event',
      sourceKey: `application:${row.id}:decision`,
      createdBy: SYSTEM,
    });
    if (result.created) created += 1;
  }
  return created;
}

async function offerTasks(tx: Tx, tenantId: string, day: string, t: TFunction) {
  const rows = await tx.query<
    Pick<HierarchyNodesRow, 'id' | 'user_id' | 'parent_id'> & { n: number; active: boolean | null }
  >(
    `select n.id, n.user_id, n.parent_id, x.n, u.is_active as active
       from (select customer_officer_id as officer, count(*)::int as n from offers
              where status = 'to_propose' and customer_officer_id is not null group by customer_officer_id) x
       join hierarchy_nodes n on n.id = x.officer and n.level = 'officer'
       left join users u on u.tenant_id = n.tenant_id and u.id = n.user_id
      where x.n > 0`,
  );
  let created = 0;
  for (const row of rows) {
    const hasUser = row.user_id !== null && row.active === true;
    const result = await createTask(tx, tenantId, {
      title: t('tasks:events.proposeOffers', { count: row.n }),
      assigneeUserId: hasUser ? row.user_id : null,
      assigneeNodeId: hasUser ? null : row.parent_id,
      dueDate: day,
      source: 'event',
      sourceKey: `offers:${row.id}:${day}`,
      createdBy: SYSTEM,
    });
    if (!result.created) continue;
    created += 1;
    // Yesterday's list is superseded by today's: one open "propose offers" task per officer.
    await tx.query(
      `update tasks set status = 'cancelled', completed_at = now(), completed_by = $3, revision = revision + 1,
              updated_at = now()
        where source = 'event' and source_key like 'offers:' || $1 || ':%' and source_key <> $2
          and status in ('open', 'in_progress')`,
      [row.id, `offers:${row.id}:${day}`, SYSTEM],
    );
  }
  return created;
}

/** Runs (a) and (b) for the tenant at its new business date, in one transaction. */
export async function tasksAfterClose(db: Db, tenantId: string, newBusinessDate: string): Promise<TasksAfterClose> {
  try {
    return await db.tenant(tenantId, async (tx) => {
      const [tenant] = await tx.query<{ default_language: string }>(
        'select default_language from tenants where id = $1',
        [tenantId],
      );
      const t = await getT(languageOf(tenant?.default_language ?? 'en'));
      // Event tasks first, so those due today are in the due notifications of this same run.
      const applications = await applicationTasks(tx, tenantId, newBusinessDate, t);
      const offers = await offerTasks(tx, tenantId, newBusinessDate, t);
      const dueNotified = await notifyDue(tx, tenantId, newBusinessDate);
      return { dueNotified, applicationTasks: applications, offerTasks: offers };
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    logger.error('tasks after the close failed', { tenant: tenantId, date: newBusinessDate, error: message });
    return { error: message };
  }
}
