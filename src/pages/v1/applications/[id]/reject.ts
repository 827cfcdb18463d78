import type { APIRoute } from 'astro';
import { z } from 'zod';
import { apiContext, moneyCommand } from '#lib/lending/api.ts';
import { applicationJson } from '#lib/lending/applications.ts';
import { rejectApplication } from '#lib/lending/commands/reject-application.ts';

const Body = z.object({ note: z.string().max(1000).optional() });

/** POST /v1/applications/{id}/reject { note? } + Idempotency-Key → 200 the application. */
export const POST: APIRoute = (context) => {
  const applicationId = context.params.id ?? '';
  return moneyCommand(apiContext(context), {
    action: 'application.reject',
    objectType: 'loan_application',
    objectId: applicationId,
    applicationId,
    schema: Body,
    run: async (tx, actor, body) => ({
      status: 200,
      body: applicationJson(await rejectApplication(tx, actor, applicationId, body.note)),
    }),
  });
};
