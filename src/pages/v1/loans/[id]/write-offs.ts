import type { APIRoute } from 'astro';
import { z } from 'zod';
import { apiContext, dateField, loanAnswer, moneyCommand } from '#lib/lending/api.ts';
import { writeOffLoan } from '#lib/lending/commands/write-off-loan.ts';

const Body = z.object({ date: dateField.optional(), note: z.string().max(500).optional() });

/** POST /v1/loans/{id}/write-offs { date? } + Idempotency-Key → 201 { transaction, loan }. */
export const POST: APIRoute = (context) => {
  const loanId = context.params.id ?? '';
  return moneyCommand(apiContext(context), {
    action: 'loan.write_off',
    objectType: 'loan',
    objectId: loanId,
    loanId,
    schema: Body,
    run: async (tx, actor, body) => {
      const { transaction } = await writeOffLoan(tx, actor, { loanId, ...body });
      return loanAnswer(tx, 201, transaction, loanId);
    },
  });
};
