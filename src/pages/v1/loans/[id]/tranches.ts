import type { APIRoute } from 'astro';
import { z } from 'zod';
import { apiContext, moneyCommand, query } from '#lib/lending/api.ts';
import { loanTranchesView, setLoanTranches } from '#lib/lending/commands/tranches.ts';
import { productOfRecord } from '#lib/lending/products.ts';

const Body = z
  .object({
    tranches: z
      .array(z.object({ date: z.string().max(10), amount: z.string().max(40) }).strict())
      .min(1)
      .max(100),
  })
  .strict();

/** GET /v1/loans/{id}/tranches → { maxTranches, items } (both empty when the loan's product has no tranches). */
export const GET: APIRoute = (context) => {
  const loanId = context.params.id ?? '';
  return query(
    apiContext(context),
    async (tx) =>
      (await loanTranchesView(tx, loanId, await productOfRecord(tx, 'loans', loanId))) ?? { maxTranches: 0, items: [] },
    { loanId },
  );
};

/** POST /v1/loans/{id}/tranches { tranches: [{ date, amount }] } + Idempotency-Key → 200 { maxTranches, items }. */
export const POST: APIRoute = (context) => {
  const loanId = context.params.id ?? '';
  return moneyCommand(apiContext(context), {
    action: 'loan.tranches.set',
    objectType: 'loan',
    objectId: loanId,
    loanId,
    schema: Body,
    run: async (tx, actor, body) => {
      await setLoanTranches(tx, actor, { loanId, tranches: body.tranches });
      const view = await loanTranchesView(tx, loanId, await productOfRecord(tx, 'loans', loanId));
      return { status: 200, body: view };
    },
  });
};
