/**
 * The bell: a staff member's unread notifications (GET /v1/notifications, the header) and marking
 * them read (POST /v1/notifications/{id}/read, POST /v1/notifications/read-all). One query per page
 * for the header, on the partial index `notifications_unread`.
 */
import { z } from 'zod';
import type { Tx } from '../db/index.ts';
import type { NotificationsRow } from '../db/schema.generated.ts';
import { SIGNED_IN } from '../auth/permissions.ts';
import { defineCommand } from '../http/command.ts';
import { AppError } from '../errors/app-error.ts';

export type InboxItem = Pick<NotificationsRow, 'id' | 'kind' | 'title' | 'link' | 'created_at'>;
export type Inbox = { unread: number; items: InboxItem[] };

export const INBOX_SIZE = 10;

/** The latest unread notifications of the user and how many are unread, in one indexed query. */
export async function unreadInbox(tx: Tx, userId: string): Promise<Inbox> {
  const rows = await tx.query<InboxItem & { total: number }>(
    `select id, kind, title, link, created_at, count(*) over ()::int as total
       from notifications where user_id = $1 and read_at is null
      order by created_at desc limit ${INBOX_SIZE}`,
    [userId],
  );
  return { unread: rows[0]?.total ?? 0, items: rows.map(({ total: _total, ...item }) => item) };
}

/** Only links inside the product are followed (a stored link is a path such as /loans/tasks/edit/…). */
export function safeLink(link: string): string {
  return /^\/(?!\/)[^\s\\]*$/.test(link) ? link : '/';
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** POST /v1/notifications/{id}/read → { id, link }: the caller's own notification only (404 otherwise). */
export const readNotificationCommand = defineCommand({
  action: 'notification.read',
  objectType: 'notification',
  permission: SIGNED_IN,
  input: z.object({ id: z.string().max(100) }).strict(),
  run: async (tx, actor, input) => {
    const rows = UUID.test(input.id)
      ? await tx.query<Pick<NotificationsRow, 'id' | 'link'>>(
          `update notifications set read_at = coalesce(read_at, now()) where id = $1 and user_id = $2 returning id, link`,
          [input.id, actor.userId],
        )
      : [];
    if (!rows[0]) throw new AppError('NOT_FOUND', 'Notification not found', { field: 'id' });
    return { id: rows[0].id, link: safeLink(rows[0].link) };
  },
});

/** POST /v1/notifications/read-all → { read }: how many were marked read. */
export const readAllNotificationsCommand = defineCommand({
  action: 'notification.read_all',
  objectType: 'notification',
  permission: SIGNED_IN,
  input: z.object({}).strict(),
  run: async (tx, actor) => {
    const rows = await tx.query(
      `update notifications set read_at = now() where user_id = $1 and read_at is null returning id`,
      [actor.userId],
    );
    return { read: rows.length };
  },
});
