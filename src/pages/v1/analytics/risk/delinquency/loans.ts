import type { APIRoute } from 'astro';
import { apiContext, query } from '#lib/lending/api.ts';
import { delinquencyLoansBody } from '#lib/analytics/risk-api.ts';

/**
 * GET /v1/analytics/risk/delinquency/loans?cell=<from>:<to>&from=&to=&scope=&product=&branch=&page=
 * → { cell, total, page, pageSize, items: [{ loanId, accountNo, customerName, fromMonthEnd, monthEnd,
 * principalStart, principalEnd, pastDueDaysStart, pastDueDaysEnd, statusEnd }] }: the loans behind a cell.
 */
export const GET: APIRoute = (context) =>
  query(apiContext(context), (tx, actor, url, principal) =>
    delinquencyLoansBody(tx, principal, actor.tenantId, url.searchParams),
  );
