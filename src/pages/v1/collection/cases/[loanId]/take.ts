import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { takeCaseCommand } from '#lib/collection/commands.ts';

/** POST /v1/collection/cases/{loanId}/take → 201 (src/lib/collection/commands.ts). */
export const POST: APIRoute = (context) => {
  const loanId = context.params.loanId ?? '';
  return commandEndpoint(apiContext(context), takeCaseCommand, {
    objectId: loanId,
    input: (body) => ({ ...(body && typeof body === 'object' ? body : {}), loanId }),
    answer: (output) => ({ status: 201, body: output }),
  });
};
