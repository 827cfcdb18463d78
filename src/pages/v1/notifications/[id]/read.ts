import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { readNotificationCommand } from '#lib/notifications/inbox.ts';

/** POST /v1/notifications/{id}/read → { id, link }: the caller's own notification marked read (404 otherwise). */
export const POST: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), readNotificationCommand, {
    objectId: id,
    input: () => ({ id }),
    answer: (out) => ({ status: 200, body: out }),
  });
};
