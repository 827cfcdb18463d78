import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { varyInstallmentsCommand } from '#lib/lending/commands/vary-installments.ts';

/**
 * POST /v1/loans/{id}/installment-variations
 *   { variations: [{ type: DUE_DATE|AMOUNT|INSERT|DELETE, dueDate, newDueDate?, amount? }], fixedEmiAmount?, preview? }
 * → 200 { loanId, preview, variations, fixedEmiAmount, schedule } (pending or approved loans only; with
 * preview nothing is stored).
 */
export const POST: APIRoute = (context) => {
  const loanId = context.params.id ?? '';
  return commandEndpoint(apiContext(context), varyInstallmentsCommand, {
    objectId: loanId,
    input: (body) => ({ ...(body && typeof body === 'object' ? body : {}), loanId }),
    answer: (out) => ({ status: 200, body: out }),
  });
};
