import type { APIRoute } from 'astro';
import { z } from 'zod';
import { apiContext, loanAnswer, moneyCommand } from '#lib/lending/api.ts';
import { reverseLoanTransaction } from '#lib/lending/commands/reverse-loan-transaction.ts';

const Body = z.object({ note: z.string().max(500).optional() });

/** POST /v1/loans/{id}/transactions/{transactionId}/reversals + Idempotency-Key → 201 { transaction (the REVERSAL), loan }. */
export const POST: APIRoute = (context) => {
  const loanId = context.params.id ?? '';
  const transactionId = context.params.transactionId ?? '';
  return moneyCommand(apiContext(context), {
    action: 'loan.reverse_transaction',
    objectType: 'loan',
    objectId: loanId,
    loanId,
    schema: Body,
    run: async (tx, actor, body) => {
      const { transaction } = await reverseLoanTransaction(tx, actor, { loanId, transactionId, note: body.note });
      return loanAnswer(tx, 201, transaction, loanId);
    },
  });
};
