import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { readAllNotificationsCommand } from '#lib/notifications/inbox.ts';

/** POST /v1/notifications/read-all {} → { read }: every unread notification of the caller marked read. */
export const POST: APIRoute = (context) =>
  commandEndpoint(apiContext(context), readAllNotificationsCommand, {
    input: () => ({}),
    answer: (out) => ({ status: 200, body: out }),
  });
