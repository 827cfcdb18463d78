import type { APIRoute } from 'astro';
import { apiContext, query, scopeNodesOf } from '../../../lib/lending/api.ts';
import { listLoans } from '../../../lib/lending/loans.ts';
import type { LoanStatus } from '../../../lib/lending/lifecycle/loan.ts';

/** GET /v1/loans?status=ACTIVE&limit=N&cursor=… → { items: [{ id, status, … }], nextCursor }. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), 'loans.loans.view', async (tx, _actor, url, principal) => {
    const limit = url.searchParams.get('limit');
    return listLoans(tx, {
      status: (url.searchParams.get('status') ?? undefined) as LoanStatus | undefined,
      customerId: url.searchParams.get('customerId') ?? undefined,
      limit: limit === null ? undefined : Number.parseInt(limit, 10) || 50,
      cursor: url.searchParams.get('cursor'),
      scopeNodes: await scopeNodesOf(tx, principal),
    });
  });
