import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { assignCollectorCommand } from '#lib/collection/commands.ts';

/** POST /v1/collection/cases/{loanId}/assignment → 201 (src/lib/collection/commands.ts). */
export const POST: APIRoute = (context) => {
  const loanId = context.params.loanId ?? '';
  return commandEndpoint(apiContext(context), assignCollectorCommand, {
    objectId: loanId,
    input: (body) => ({ ...(body && typeof body === 'object' ? body : {}), loanId }),
    answer: (output) => ({ status: 201, body: output }),
  });
};
