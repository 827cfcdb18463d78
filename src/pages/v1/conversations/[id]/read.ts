import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { markReadCommand } from '#lib/conversations/threads.ts';

/** POST /v1/conversations/{id}/read → { lastReadSeq }: the thread is read for the caller up to its last message. */
export const POST: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), markReadCommand, {
    objectId: id,
    input: () => ({ conversationId: id }),
    answer: (out) => ({ status: 200, body: out }),
  });
};
