import type { APIRoute } from 'astro';
import { apiContext, query } from '#lib/lending/api.ts';
import { daysOffOverview, overviewJson } from '#lib/days-off/calendar.ts';

/**
 * GET /v1/days-off → { rule, fineractRule, weekdays: [{ branch, weekdays }], holidays: [{ id, name, from,
 * to, reschedulingType, repaymentsRescheduledTo, branch, revision, status, appliedAt }], branches }.
 */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx) => overviewJson(await daysOffOverview(tx)));
