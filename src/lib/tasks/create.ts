import type { Tx } from '../db/index.ts';
import { notify } from '../notifications/notify.ts';

export type TaskPriority = 'low' | 'normal' | 'high' | 'urgent';
export type TaskSource = 'manual' | 'workflow' | 'event';

export type NewTask = {
  title: string;
  description?: string;
  /** A user, or a team (a branch node), or neither (unassigned). */
  assigneeUserId?: string | null;
  assigneeNodeId?: string | null;
  dueDate?: string | null;
  priority?: TaskPriority;
  customerId?: string | null;
  loanId?: string | null;
  applicationId?: string | null;
  offerId?: string | null;
  source: TaskSource;
  /** Automatic tasks: one task per key, ever (a re-run of the close or of an event creates none). */
  sourceKey?: string | null;
  /** A user id, or `system:close` / `system:events`. */
  createdBy: string;
};

/**
 * Inserts a task in the caller's transaction: the one way tasks are created (by hand, by collection
 * workflows, by events). Scope follows the linked customer (directly, or through the loan,
 * application or offer). With a `sourceKey` already used, nothing is written and `created` is false.
 * The assignee (when a user other than the creator) is notified in the same transaction.
 * Permission and scope checks are the caller's (the command or the workflow).
 */
export async function createTask(
  tx: Tx,
  tenantId: string,
  input: NewTask,
): Promise<{ id: string | null; created: boolean }> {
  const rows = await tx.query<{ id: string }>(
    `with linked as (
       select coalesce($8::uuid,
                       (select customer_id from loans where id = $9::uuid),
                       (select customer_id from loan_applications where id = $10::uuid),
                       (select customer_id from offers where id = $11::uuid)) as customer_id
     )
     insert into tasks (tenant_id, title, description, assignee_user_id, assignee_node_id, due_date, priority,
                        customer_id, loan_id, application_id, offer_id, customer_branch_id, customer_officer_id,
                        source, source_key, created_by)
     select $1, $2, $3, $4, $5, $6, $7, l.customer_id, $9, $10, $11, c.branch_id, c.officer_id, $12, $13, $14
       from linked l left join customers c on c.id = l.customer_id
     on conflict (tenant_id, source_key) where source_key is not null do nothing
     returning id`,
    [
      tenantId,
      input.title,
      input.description ?? '',
      input.assigneeUserId ?? null,
      input.assigneeNodeId ?? null,
      input.dueDate ?? null,
      input.priority ?? 'normal',
      input.customerId ?? null,
      input.loanId ?? null,
      input.applicationId ?? null,
      input.offerId ?? null,
      input.source,
      input.sourceKey ?? null,
      input.createdBy,
    ],
  );
  const id = rows[0]?.id ?? null;
  if (id && input.assigneeUserId && input.assigneeUserId !== input.createdBy)
    await notify(tx, tenantId, {
      userId: input.assigneeUserId,
      kind: 'task_assigned',
      title: input.title,
      link: `/loans/tasks/edit/${id}`,
      dedupeKey: `task_assigned:${id}:${input.assigneeUserId}`,
    });
  return { id, created: id !== null };
}
