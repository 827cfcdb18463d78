import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { listMessages } from '#lib/conversations/threads.ts';
import { postMessageCommand, readMessageRequest } from '#lib/conversations/commands.ts';

/** GET /v1/conversations/{id}/messages?after=<seq> → { items }: the thread's messages after that sequence number, in order. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx, actor, url) => {
    const after = Number(url.searchParams.get('after') ?? '0');
    return {
      items: await listMessages(
        tx,
        actor,
        context.params.id ?? '',
        Number.isSafeInteger(after) && after > 0 ? after : 0,
      ),
    };
  });

/**
 * POST /v1/conversations/{id}/messages { kind: email|sms|note, purpose?, subject?, body, mentions? }
 * (JSON, or multipart with `file` parts for an e-mail) → 201 { conversationId, messageId }.
 */
export const POST: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), postMessageCommand, {
    objectId: id,
    readInput: (request) => readMessageRequest(request, { conversationId: id }),
    answer: (out) => ({ status: 201, body: out }),
  });
};
