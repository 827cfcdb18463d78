import type { APIRoute } from 'astro';
import { z } from 'zod';
import { amountField, apiContext, dateField, loanAnswer, moneyCommand } from '#lib/lending/api.ts';
import { repayLoan } from '#lib/lending/commands/repay-loan.ts';

const Body = z.object({
  amount: amountField,
  date: dateField.optional(),
  note: z.string().max(500).optional(),
  confirmOverpayment: z.boolean().optional(),
});

/**
 * POST /v1/loans/{id}/repayments { amount: "10.00", date?, confirmOverpayment? } + Idempotency-Key → 201 { transaction, loan }.
 * Above what the loan owes: 422 when the product takes no overpayment, else 409 { owed, creditBalance }
 * until the same request comes with confirmOverpayment: true.
 */
export const POST: APIRoute = (context) => {
  const loanId = context.params.id ?? '';
  return moneyCommand(apiContext(context), {
    action: 'loan.repay',
    objectType: 'loan',
    objectId: loanId,
    loanId,
    schema: Body,
    run: async (tx, actor, body) => {
      const { transaction } = await repayLoan(tx, actor, { loanId, ...body });
      return loanAnswer(tx, 201, transaction, loanId);
    },
  });
};
