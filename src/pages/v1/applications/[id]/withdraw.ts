import type { APIRoute } from 'astro';
import { z } from 'zod';
import { apiContext, moneyCommand } from '#lib/lending/api.ts';
import { applicationJson } from '#lib/lending/applications.ts';
import { withdrawApplication } from '#lib/lending/commands/withdraw-application.ts';

const Body = z.object({ note: z.string().max(1000).optional() });

/** POST /v1/applications/{id}/withdraw { note? } + Idempotency-Key → 200 the application. */
export const POST: APIRoute = (context) => {
  const applicationId = context.params.id ?? '';
  return moneyCommand(apiContext(context), {
    action: 'application.withdraw',
    objectType: 'loan_application',
    objectId: applicationId,
    applicationId,
    schema: Body,
    run: async (tx, actor, body) => ({
      status: 200,
      body: applicationJson(await withdrawApplication(tx, actor, applicationId, body.note)),
    }),
  });
};
