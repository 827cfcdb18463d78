import type { APIRoute } from 'astro';
import { apiContext, query } from '#lib/lending/api.ts';
import { unreadInbox } from '#lib/notifications/inbox.ts';

/** GET /v1/notifications → { unread, items }: the caller's latest 10 unread notifications and the unread count. */
export const GET: APIRoute = (context) => query(apiContext(context), (tx, actor) => unreadInbox(tx, actor.userId));
