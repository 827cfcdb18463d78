import type { APIRoute } from 'astro';
import { z } from 'zod';
import { apiContext, loanAnswer, moneyCommand } from '#lib/lending/api.ts';
import { reAmortizeLoan } from '#lib/lending/commands/reage-loan.ts';

const Body = z.object({ note: z.string().max(500).optional() });

/**
 * POST /v1/loans/{id}/re-amortizations + Idempotency-Key → 201 { transaction, loan }: spreads the
 * past-due principal over the installments still to come (Fineract REAMORTIZE).
 */
export const POST: APIRoute = (context) => {
  const loanId = context.params.id ?? '';
  return moneyCommand(apiContext(context), {
    action: 'loan.reamortize',
    objectType: 'loan',
    objectId: loanId,
    loanId,
    schema: Body,
    run: async (tx, actor, body) => {
      const { transaction } = await reAmortizeLoan(tx, actor, { loanId, ...body });
      return loanAnswer(tx, 201, transaction, loanId);
    },
  });
};
