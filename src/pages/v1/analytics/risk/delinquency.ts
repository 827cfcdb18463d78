import type { APIRoute } from 'astro';
import { apiContext, query } from '#lib/lending/api.ts';
import { delinquencyMatrixBody } from '#lib/analytics/risk-api.ts';

/**
 * GET /v1/analytics/risk/delinquency?from=YYYY-MM&to=YYYY-MM&scope=level:id&product=&branch=&currency=
 * → { from, to, currency, monthEnds, buckets, columns, rows: [{ from, loans, principal, cells: [{ to, loans,
 * principal, countRate, amountRate }] }] }: the roll-rate matrix of the board (amounts as decimal strings).
 */
export const GET: APIRoute = (context) =>
  query(apiContext(context), (tx, actor, url, principal) =>
    delinquencyMatrixBody(tx, principal, actor.tenantId, url.searchParams),
  );
