import type { APIRoute } from 'astro';
import { z } from 'zod';
import { apiContext, dateField, loanAnswer, moneyCommand } from '#lib/lending/api.ts';
import { disburseLoan } from '#lib/lending/commands/disburse-loan.ts';

const Body = z.object({
  date: dateField.optional(),
  firstRepaymentDate: dateField.optional(),
  note: z.string().max(500).optional(),
});

/** POST /v1/loans/{id}/disbursements ("transfer funds") { date? } + Idempotency-Key → 201 { transaction, loan }. */
export const POST: APIRoute = (context) => {
  const loanId = context.params.id ?? '';
  return moneyCommand(apiContext(context), {
    action: 'loan.disburse',
    objectType: 'loan',
    objectId: loanId,
    loanId,
    schema: Body,
    run: async (tx, actor, body) => {
      const { transaction } = await disburseLoan(tx, actor, { loanId, ...body });
      return loanAnswer(tx, 201, transaction, loanId);
    },
  });
};
