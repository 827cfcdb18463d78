import type { APIRoute } from 'astro';
import { z } from 'zod';
import { apiContext, dateField, loanAnswer, moneyCommand } from '#lib/lending/api.ts';
import { disburseNextTranche } from '#lib/lending/commands/tranches.ts';

const Body = z.object({ date: dateField.optional(), note: z.string().max(500).optional() }).strict();

/** POST /v1/loans/{id}/tranche-disbursements { date? } + Idempotency-Key → 201 { transaction, loan }: pays out the next tranche. */
export const POST: APIRoute = (context) => {
  const loanId = context.params.id ?? '';
  return moneyCommand(apiContext(context), {
    action: 'loan.tranche.disburse',
    objectType: 'loan',
    objectId: loanId,
    loanId,
    schema: Body,
    run: async (tx, actor, body) => {
      const { transaction } = await disburseNextTranche(tx, actor, { loanId, ...body });
      return loanAnswer(tx, 201, transaction, loanId);
    },
  });
};
