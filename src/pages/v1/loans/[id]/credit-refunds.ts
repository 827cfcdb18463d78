import type { APIRoute } from 'astro';
import { z } from 'zod';
import { amountField, apiContext, dateField, loanAnswer, moneyCommand } from '#lib/lending/api.ts';
import { refundCreditBalance } from '#lib/lending/commands/refund-credit-balance.ts';

const Body = z.object({
  amount: amountField.optional(),
  date: dateField.optional(),
  note: z.string().max(500).optional(),
});

/** POST /v1/loans/{id}/credit-refunds { amount? } + Idempotency-Key → 201 { transaction, loan }: pays an overpaid loan's credit back. */
export const POST: APIRoute = (context) => {
  const loanId = context.params.id ?? '';
  return moneyCommand(apiContext(context), {
    action: 'loan.refund_credit',
    objectType: 'loan',
    objectId: loanId,
    loanId,
    schema: Body,
    run: async (tx, actor, body) => {
      const { transaction } = await refundCreditBalance(tx, actor, { loanId, ...body });
      return loanAnswer(tx, 201, transaction, loanId);
    },
  });
};
