import type { APIRoute } from 'astro';
import { apiContext, query } from '#lib/lending/api.ts';
import { vintageBody } from '#lib/analytics/risk-api.ts';

/**
 * GET /v1/analytics/risk/vintage-analysis?from=YYYY-MM&to=YYYY-MM&measure=ever30|ever60|ever90|written_off
 * &scope=&product=&branch= → { cohorts: [{ cohort, loans, disbursed, shares[k], amounts[k] }] } (k = months on book).
 */
export const GET: APIRoute = (context) =>
  query(apiContext(context), (tx, actor, url, principal) =>
    vintageBody(tx, principal, actor.tenantId, url.searchParams),
  );
