import type { APIRoute } from 'astro';
import { apiContext, query } from '#lib/lending/api.ts';
import { decisionJson } from '#lib/decisioning/binding-commands.ts';
import { listDecisions } from '#lib/decisioning/decisions.ts';

/** GET /v1/applications/{id}/decisions → { items }: the application's stored decisions, newest first (another branch's: 404). */
export const GET: APIRoute = (context) => {
  const applicationId = context.params.id ?? '';
  return query(
    apiContext(context),
    async (tx) => ({
      items: (await listDecisions(tx, { subjectType: 'application', subjectId: applicationId })).map(decisionJson),
    }),
    { applicationId },
  );
};
