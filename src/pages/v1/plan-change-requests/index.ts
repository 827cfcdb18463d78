import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { listPlanChangeRequests, planChangeRequestJson, requestPlanChangeCommand } from '#lib/plans/change-requests.ts';

/** GET /v1/plan-change-requests → { items: [{ id, features, message, status, requested_by_name, created_at }] }, newest first. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx) => ({ items: (await listPlanChangeRequests(tx)).map(planChangeRequestJson) }));

/** POST /v1/plan-change-requests { features: ["users"], message } → 201 the request, recorded for the provider. */
export const POST: APIRoute = (context) =>
  commandEndpoint(apiContext(context), requestPlanChangeCommand, {
    answer: (request) => ({ status: 201, body: planChangeRequestJson(request) }),
  });
