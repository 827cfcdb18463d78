import type { APIRoute } from 'astro';
import { apiContext } from '#lib/lending/api.ts';
import { closeOfBusinessEndpoint } from '#lib/close/close-of-business.ts';

/**
 * POST /v1/close-of-business { until: 'YYYY-MM-DD' } → { businessDate, closedDays }: administrators
 * close day after day until the business date is `until` (at most 31 days at once; a date before the
 * business date is a 422 naming `until`).
 */
export const POST: APIRoute = (context) => closeOfBusinessEndpoint(apiContext(context));
