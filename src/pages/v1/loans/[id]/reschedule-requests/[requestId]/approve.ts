import type { APIRoute } from 'astro';
import { apiContext, moneyCommand } from '#lib/lending/api.ts';
import { approveRescheduleRequest } from '#lib/lending/commands/reschedule-loan.ts';
import { DecisionBody } from '#lib/lending/reschedule-api.ts';
import { getLoanView } from '#lib/lending/loans.ts';

/**
 * POST /v1/loans/{id}/reschedule-requests/{requestId}/approve { note? } + Idempotency-Key → 200
 * { request, loan }: the checker (never the submitter) applies the new schedule.
 */
export const POST: APIRoute = (context) => {
  const loanId = context.params.id ?? '';
  const requestId = context.params.requestId ?? '';
  return moneyCommand(apiContext(context), {
    action: 'loan.reschedule.approve',
    objectType: 'loan',
    objectId: loanId,
    loanId,
    schema: DecisionBody,
    run: async (tx, actor, body) => {
      const { request } = await approveRescheduleRequest(tx, actor, loanId, requestId, body.note);
      return { status: 200, body: { request, loan: await getLoanView(tx, loanId) } };
    },
  });
};
