import type { APIRoute } from 'astro';
import { apiContext, query } from '#lib/lending/api.ts';
import { getThread } from '#lib/conversations/threads.ts';

/** GET /v1/conversations/{id} → the thread (customer, loan, subject, channel, status); 404 outside the caller's scope. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx, actor) => {
    const t = await getThread(tx, actor, context.params.id ?? '');
    return {
      id: t.id,
      customerId: t.customer_id,
      customerName: t.customer_name,
      loanId: t.loan_id,
      loanNumber: t.account_no,
      subject: t.subject,
      channel: t.channel,
      status: t.status,
      lastMessageAt: t.last_message_at,
    };
  });
