/** Page glue of /loans/tasks/**: who asks, as an actor, the business date, and what they may do. */
import type { AstroGlobal } from 'astro';
import { allowedActions, type ActionsOf } from '#lib/auth/allowed-actions.ts';
import { requirePrincipal, type Principal } from '#lib/auth/principal.ts';
import { actorFromPrincipal, type Actor } from '#lib/lending/actor.ts';
import { businessDate } from '#lib/tenancy/tenant.ts';
import type { TaskItem } from '#lib/tasks/tasks.ts';
import { pageDb, type Db } from '../../server/db.ts';
import { requestIp } from '../../server/session.ts';

export type TaskPageContext = {
  db: Db;
  principal: Principal;
  actor: Actor;
  today: string;
  can: ActionsOf<'task'>;
};

export async function taskContext(Astro: AstroGlobal): Promise<TaskPageContext> {
  const principal = requirePrincipal(Astro.locals.principal);
  const db = await pageDb();
  const actor = actorFromPrincipal(principal, { ip: requestIp(Astro), requestId: Astro.locals.requestId ?? null });
  const today = await db.tenant(principal.tenantId, (tx) => businessDate(tx, principal.tenantId));
  return { db, principal, actor, today, can: allowedActions(principal, 'task') };
}

/** The picker value of a task's assignee: `user:<id>`, `team:<id>` or ''. */
export function assigneeValue(task: Pick<TaskItem, 'assignee_user_id' | 'assignee_node_id'>): string {
  if (task.assignee_user_id) return `user:${task.assignee_user_id}`;
  if (task.assignee_node_id) return `team:${task.assignee_node_id}`;
  return '';
}

/** The command fields of a picker value (a forged value is the command's to refuse). */
export function assigneeFields(value: string | undefined): {
  assigneeUserId: string | null;
  assigneeNodeId: string | null;
} {
  const [kind, id] = (value ?? '').split(':', 2);
  if (kind === 'user' && id) return { assigneeUserId: id, assigneeNodeId: null };
  if (kind === 'team' && id) return { assigneeUserId: null, assigneeNodeId: id };
  return { assigneeUserId: null, assigneeNodeId: null };
}

/** Whether an open task's due date is before the business date. */
export function isOverdue(task: Pick<TaskItem, 'due_date' | 'status'>, today: string): boolean {
  return Boolean(task.due_date && task.due_date < today && (task.status === 'open' || task.status === 'in_progress'));
}
