import type { APIRoute } from 'astro';
import { apiContext, moneyCommand, query } from '#lib/lending/api.ts';
import { listRescheduleRequests, submitRescheduleRequest } from '#lib/lending/commands/reschedule-loan.ts';
import { RescheduleBody } from '#lib/lending/reschedule-api.ts';

/** GET /v1/loans/{id}/reschedule-requests → the loan's reschedule requests, newest first. */
export const GET: APIRoute = (context) => {
  const loanId = context.params.id ?? '';
  return query(apiContext(context), async (tx, actor) => ({ items: await listRescheduleRequests(tx, actor, loanId) }), {
    loanId,
  });
};

/**
 * POST /v1/loans/{id}/reschedule-requests { rescheduleFromDate, newInterestRate?, adjustedDueDate?,
 * extraTerms?, graceOnPrincipal?, graceOnInterest?, reason? } + Idempotency-Key → 201 the request
 * (submitted; another user approves it).
 */
export const POST: APIRoute = (context) => {
  const loanId = context.params.id ?? '';
  return moneyCommand(apiContext(context), {
    action: 'loan.reschedule.submit',
    objectType: 'loan',
    objectId: loanId,
    loanId,
    schema: RescheduleBody,
    run: async (tx, actor, body) => ({ status: 201, body: await submitRescheduleRequest(tx, actor, loanId, body) }),
  });
};
