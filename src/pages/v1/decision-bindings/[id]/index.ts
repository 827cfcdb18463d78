import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { bindingJson, updateBindingCommand } from '#lib/decisioning/binding-commands.ts';
import { getBinding } from '#lib/decisioning/bindings.ts';

const bodyObject = (body: unknown) => (body && typeof body === 'object' && !Array.isArray(body) ? body : {});

/** GET /v1/decision-bindings/{id} → the binding. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx) => bindingJson(await getBinding(tx, context.params.id ?? '')));

/** PATCH /v1/decision-bindings/{id} { name?, point?, modelId?, versionId?, inputs?, mapping?, rejectAction?, enabled? } → the binding. */
export const PATCH: APIRoute = (context) => {
  const bindingId = context.params.id ?? '';
  return commandEndpoint(apiContext(context), updateBindingCommand, {
    objectId: bindingId,
    input: (body) => ({ ...bodyObject(body), bindingId }),
    answer: (binding) => ({ status: 200, body: bindingJson(binding) }),
  });
};
