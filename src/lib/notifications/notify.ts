import type { Tx } from '../db/index.ts';

export type NotificationKind = 'task_assigned' | 'task_due' | 'mention' | 'message' | 'escalation';

export type NotificationInput = {
  userId: string;
  kind: NotificationKind;
  /** Shown as is (already in the recipient's language, or neutral such as a task title). */
  title: string;
  /** A path inside the product, e.g. `/loans/tasks/edit/<id>`. */
  link: string;
  /** At most one notification per user and key (e.g. `task_due:<taskId>:<date>`); repeats are ignored. */
  dedupeKey?: string;
};

/**
 * Tells a staff member something happened (task assigned or due, @mention, message received,
 * escalation), in the caller's transaction, so the notification exists exactly when the change does.
 * Answers whether a row was written (false: the dedupe key was already used).
 */
export async function notify(tx: Tx, tenantId: string, input: NotificationInput): Promise<boolean> {
  const rows = await tx.query<{ id: string }>(
    `insert into notifications (tenant_id, user_id, kind, title, link, dedupe_key)
     values ($1, $2, $3, $4, $5, $6)
     on conflict (tenant_id, user_id, dedupe_key) where dedupe_key is not null do nothing
     returning id`,
    [tenantId, input.userId, input.kind, input.title.slice(0, 300), input.link, input.dedupeKey ?? null],
  );
  return rows.length > 0;
}
