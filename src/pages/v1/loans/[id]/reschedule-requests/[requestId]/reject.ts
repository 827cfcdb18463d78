import type { APIRoute } from 'astro';
import { apiContext, moneyCommand } from '#lib/lending/api.ts';
import { rejectRescheduleRequest } from '#lib/lending/commands/reschedule-loan.ts';
import { DecisionBody } from '#lib/lending/reschedule-api.ts';

/** POST /v1/loans/{id}/reschedule-requests/{requestId}/reject { note? } + Idempotency-Key → 200 the request (the loan is unchanged). */
export const POST: APIRoute = (context) => {
  const loanId = context.params.id ?? '';
  const requestId = context.params.requestId ?? '';
  return moneyCommand(apiContext(context), {
    action: 'loan.reschedule.reject',
    objectType: 'loan',
    objectId: loanId,
    loanId,
    schema: DecisionBody,
    run: async (tx, actor, body) => ({
      status: 200,
      body: await rejectRescheduleRequest(tx, actor, loanId, requestId, body.note),
    }),
  });
};
