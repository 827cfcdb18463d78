import type { APIRoute } from 'astro';
import { apiContext, query } from '#lib/lending/api.ts';
import { portfolioEndpointBody } from '#lib/analytics/portfolio.ts';

/**
 * GET /v1/analytics/portfolio?date=YYYY-MM-DD&scope=level:id&from=YYYY-MM&to=YYYY-MM&currency=XXX
 * (src/lib/analytics/portfolio.ts: date = the business date by default, or a month end with snapshots).
 */
export const GET: APIRoute = (context) =>
  query(apiContext(context), (tx, _actor, url, principal) => portfolioEndpointBody(tx, principal, url, 'portfolio'));
