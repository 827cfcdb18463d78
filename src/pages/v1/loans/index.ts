import type { APIRoute } from 'astro';
import { apiContext, query, scopeNodesOf } from '#lib/lending/api.ts';
import { listLoans } from '#lib/lending/loans.ts';
import { LOAN_STATUSES } from '#lib/lending/lifecycle/loan.ts';
import { QueryReader } from '#lib/http/query-params.ts';

/** GET /v1/loans?status=ACTIVE&limit=N&cursor=… → { items: [{ id, status, … }], nextCursor }. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx, _actor, url, principal) => {
    const q = new QueryReader(url.searchParams, ['status', 'customerId', 'limit', 'cursor']);
    return listLoans(tx, {
      status: q.oneOf('status', LOAN_STATUSES),
      customerId: q.uuid('customerId'),
      limit: q.int('limit', { min: 1, max: 500, fallback: 50 }),
      cursor: q.cursor('cursor') ?? null,
      scopeNodes: await scopeNodesOf(tx, principal),
    });
  });
