import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { applyDaysOffCommand, planJson } from '#lib/days-off/apply.ts';

/**
 * POST /v1/days-off/apply { dryRun: true } → the preview: each affected loan and installment (old due
 * date → new due date, amount unchanged) and a `fingerprint`. { dryRun: false, fingerprint? } moves them
 * (409 when the fingerprint no longer matches: something changed since the preview). Idempotent.
 */
export const POST: APIRoute = (context) =>
  commandEndpoint(apiContext(context), applyDaysOffCommand, {
    answer: (plan) => ({ status: 200, body: planJson(plan) }),
  });
