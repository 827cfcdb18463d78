import type { APIRoute } from 'astro';
import { apiContext } from '#lib/lending/api.ts';
import { originationEndpoint } from '#lib/strategies/origination-api.ts';

/**
 * POST /v1/strategies/{id}/originations → { created, refused, skipped, forced, businessDate }: the live
 * strategy generates its offers now, at the business date (once per customer and date; 409 unless live).
 */
export const POST: APIRoute = (context) => originationEndpoint(apiContext(context), context.params.id ?? '');
