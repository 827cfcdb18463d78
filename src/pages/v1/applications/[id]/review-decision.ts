import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { decisionJson, reviewDecisionCommand } from '#lib/decisioning/binding-commands.ts';

/** POST /v1/applications/{id}/review-decision → 201 the `review` decision (the enabled review binding's model). */
export const POST: APIRoute = (context) => {
  const applicationId = context.params.id ?? '';
  return commandEndpoint(apiContext(context), reviewDecisionCommand, {
    objectId: applicationId,
    input: () => ({ applicationId }),
    answer: (decision) => ({ status: 201, body: decisionJson(decision) }),
  });
};
