import type { APIRoute } from 'astro';
import { apiContext, query, scopeNodesOf } from '../../../lib/lending/api.ts';
import { listOffers, offerJson } from '../../../lib/lending/offers.ts';
import { OFFER_STATUSES, type OfferStatus } from '../../../lib/lending/lifecycle/offer.ts';
import { AppError } from '../../../lib/errors/app-error.ts';
import { currencyDigits } from '../../../lib/money/money.ts';

/** GET /v1/offers?status=pending&customerId=…&limit=N → { items }. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), 'loans.offers.view', async (tx, _actor, url, principal) => {
    const status = url.searchParams.get('status') ?? undefined;
    if (status && !(OFFER_STATUSES as readonly string[]).includes(status)) {
      throw new AppError('BAD_REQUEST', `status must be one of ${OFFER_STATUSES.join(', ')}`, { field: 'status' });
    }
    const rows = await listOffers(tx, {
      status: status as OfferStatus | undefined, customerId: url.searchParams.get('customerId') ?? undefined,
      limit: Number(url.searchParams.get('limit') ?? 50) || 50, scopeNodes: await scopeNodesOf(tx, principal),
    });
    return { items: rows.map((r) => offerJson(r, currencyDigits(r.currency.trim()))) };
  });
