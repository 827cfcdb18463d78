import type { APIRoute } from 'astro';
import { apiContext, query, scopeNodesOf } from '#lib/lending/api.ts';
import { listOffers, offerJson } from '#lib/lending/offers.ts';
import { OFFER_STATUSES, type OfferStatus } from '#lib/lending/lifecycle/offer.ts';
import { QueryReader } from '#lib/http/query-params.ts';

/** GET /v1/offers?status=pending&customerId=…&limit=N → { items }. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx, _actor, url, principal) => {
    const q = new QueryReader(url.searchParams, ['status', 'customerId', 'limit']);
    const rows = await listOffers(tx, {
      status: q.oneOf<OfferStatus>('status', OFFER_STATUSES),
      customerId: q.uuid('customerId'),
      limit: q.int('limit', { min: 1, max: 500, fallback: 50 }),
      scopeNodes: await scopeNodesOf(tx, principal),
    });
    return { items: rows.map((r) => offerJson(r)) };
  });
