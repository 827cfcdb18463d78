import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { testBindingCommand } from '#lib/decisioning/binding-commands.ts';

const bodyObject = (body: unknown) => (body && typeof body === 'object' && !Array.isArray(body) ? body : {});

/**
 * POST /v1/decision-bindings/{id}/test { customerId } → { outcome, limit, rate, result, reasons, inputs }:
 * the binding evaluated on the customer's real inputs, nothing stored.
 */
export const POST: APIRoute = (context) => {
  const bindingId = context.params.id ?? '';
  return commandEndpoint(apiContext(context), testBindingCommand, {
    objectId: bindingId,
    input: (body) => ({ ...bodyObject(body), bindingId }),
    answer: (result) => ({ status: 200, body: result }),
  });
};
