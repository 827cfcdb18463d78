import type { APIRoute } from 'astro';
import { z } from 'zod';
import { amountField, apiContext, dateField, loanAnswer, moneyCommand } from '#lib/lending/api.ts';
import { applyLoanCharge } from '#lib/lending/commands/apply-loan-charge.ts';

const Body = z.object({
  kind: z.enum(['fee', 'penalty']),
  amount: amountField,
  installmentNumber: z.number().int().positive().optional(),
  date: dateField.optional(),
  /** Specified due date: the charge goes on the installment whose period holds it. */
  dueDate: dateField.optional(),
  note: z.string().max(500).optional(),
});

/** POST /v1/loans/{id}/charges { kind, amount, installmentNumber? | dueDate? } + Idempotency-Key → 201 { transaction, loan }. */
export const POST: APIRoute = (context) => {
  const loanId = context.params.id ?? '';
  return moneyCommand(apiContext(context), {
    action: 'loan.apply_charge',
    objectType: 'loan',
    objectId: loanId,
    loanId,
    schema: Body,
    run: async (tx, actor, body) => {
      const { transaction } = await applyLoanCharge(tx, actor, { loanId, ...body });
      return loanAnswer(tx, 201, transaction, loanId);
    },
  });
};
