import type { APIRoute } from 'astro';
import { z } from 'zod';
import { amountField, apiContext, dateField, loanAnswer, moneyCommand } from '#lib/lending/api.ts';
import { waiveLoan } from '#lib/lending/commands/waive-loan.ts';

const Body = z.object({
  kind: z.enum(['interest', 'charges']),
  amount: amountField.optional(),
  date: dateField.optional(),
  note: z.string().max(500).optional(),
});

/** POST /v1/loans/{id}/waivers { kind: "interest"|"charges", amount? } + Idempotency-Key → 201 { transaction, loan }. */
export const POST: APIRoute = (context) => {
  const loanId = context.params.id ?? '';
  return moneyCommand(apiContext(context), {
    action: 'loan.waive',
    objectType: 'loan',
    objectId: loanId,
    loanId,
    schema: Body,
    run: async (tx, actor, body) => {
      const { transaction } = await waiveLoan(tx, actor, { loanId, ...body });
      return loanAnswer(tx, 201, transaction, loanId);
    },
  });
};
