import type { APIRoute } from 'astro';
import { z } from 'zod';
import { apiContext, dateField, loanAnswer, moneyCommand } from '#lib/lending/api.ts';
import { reAgeLoan } from '#lib/lending/commands/reage-loan.ts';
import { RE_AGE_FREQUENCIES } from '#lib/schedule/reage.ts';

const Body = z.object({
  startDate: dateField,
  frequencyType: z.enum(RE_AGE_FREQUENCIES as [string, ...string[]]),
  frequencyNumber: z.number().int().min(1).max(1200),
  numberOfInstallments: z.number().int().min(1).max(1200),
  note: z.string().max(500).optional(),
});

/**
 * POST /v1/loans/{id}/re-ages { startDate, frequencyType, frequencyNumber, numberOfInstallments } +
 * Idempotency-Key → 201 { transaction, loan }: re-ages an overdue loan (Fineract REAGE).
 */
export const POST: APIRoute = (context) => {
  const loanId = context.params.id ?? '';
  return moneyCommand(apiContext(context), {
    action: 'loan.reage',
    objectType: 'loan',
    objectId: loanId,
    loanId,
    schema: Body,
    run: async (tx, actor, body) => {
      const { transaction } = await reAgeLoan(tx, actor, {
        loanId,
        ...body,
        frequencyType: body.frequencyType as (typeof RE_AGE_FREQUENCIES)[number],
      });
      return loanAnswer(tx, 201, transaction, loanId);
    },
  });
};
