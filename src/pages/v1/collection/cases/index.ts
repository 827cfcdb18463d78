import type { APIRoute } from 'astro';
import { apiContext, query } from '#lib/lending/api.ts';
import { bucketSummaries, listWorklist, worklistFilters } from '#lib/collection/worklist.ts';

/** GET /v1/collection/cases?bucket=&collector=mine|unassigned|anyone&q=&page= → { buckets, items, hasMore } (the worklist). */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx, _actor, url, principal) => {
    const filters = worklistFilters(url.searchParams);
    const buckets = await bucketSummaries(tx, principal, filters);
    const page = await listWorklist(tx, principal, filters);
    return {
      buckets: buckets.map((b) => ({ ...b, totals: b.totals.map((x) => ({ ...x, amount: x.amount.toString() })) })),
      items: page.rows.map((r) => ({
        ...r,
        overdueAmount: r.overdueAmount.toString(),
        promiseAmount: r.promiseAmount?.toString() ?? null,
      })),
      page: filters.page,
      hasMore: page.hasMore,
    };
  });
