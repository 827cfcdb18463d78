import type { APIRoute } from 'astro';
import { z } from 'zod';
import { apiContext, loanAnswer, moneyCommand } from '#lib/lending/api.ts';
import { undoReAgeLoan } from '#lib/lending/commands/reage-loan.ts';

const Body = z.object({ note: z.string().max(500).optional() });

/** POST /v1/loans/{id}/re-ages/undo + Idempotency-Key → 201 { transaction (the REVERSAL), loan }: undoes the latest re-age. */
export const POST: APIRoute = (context) => {
  const loanId = context.params.id ?? '';
  return moneyCommand(apiContext(context), {
    action: 'loan.undo_reage',
    objectType: 'loan',
    objectId: loanId,
    loanId,
    schema: Body,
    run: async (tx, actor, body) => {
      const { transaction } = await undoReAgeLoan(tx, actor, { loanId, ...body });
      return loanAnswer(tx, 201, transaction, loanId);
    },
  });
};
