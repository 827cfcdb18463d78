import type { APIRoute } from 'astro';
import { apiContext, query } from '#lib/lending/api.ts';
import { portfolioEndpointBody } from '#lib/analytics/portfolio.ts';

/**
 * GET /v1/analytics/risk/branch?date=YYYY-MM-DD&scope=level:id&from=YYYY-MM&to=YYYY-MM&currency=XXX: the
 * risk measures per branch at the date and by month (src/lib/analytics/portfolio.ts).
 */
export const GET: APIRoute = (context) =>
  query(apiContext(context), (tx, _actor, url, principal) => portfolioEndpointBody(tx, principal, url, 'branch'));
