import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { listThreads } from '#lib/conversations/threads.ts';
import { readMessageRequest, startConversationCommand } from '#lib/conversations/commands.ts';

/**
 * GET /v1/conversations?unread=1&channel=email|sms&status=open|closed&q=<customer>&customerId=&mine=1
 * → { items }: threads in the caller's scope with the caller's unread count, newest first.
 */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx, actor, url) => {
    const p = url.searchParams;
    const channel = p.get('channel');
    const status = p.get('status');
    return {
      items: await listThreads(tx, actor, {
        unreadOnly: p.get('unread') === '1',
        mine: p.get('mine') === '1',
        channel: channel === 'email' || channel === 'sms' ? channel : null,
        status: status === 'open' || status === 'closed' ? status : null,
        search: p.get('q'),
        customerId: p.get('customerId'),
      }),
    };
  });

/**
 * POST /v1/conversations { customerId, loanId?, channel, purpose, templateId?, subject, body } (JSON, or
 * multipart with `file` parts for e-mail attachments) → 201 { conversationId, messageId }. An opted-out
 * customer's marketing message is a 422 naming `purpose`.
 */
export const POST: APIRoute = (context) =>
  commandEndpoint(apiContext(context), startConversationCommand, {
    readInput: (request) => readMessageRequest(request),
    answer: (out) => ({ status: 201, body: out }),
  });
