import type { APIRoute } from 'astro';
import { apiContext, query } from '#lib/lending/api.ts';
import { getOffer, offerActions, offerJson } from '#lib/lending/offers.ts';

/** GET /v1/offers/{id} → the offer with the actions possible now. */
export const GET: APIRoute = (context) =>
  query(
    apiContext(context),
    async (tx, actor) => {
      const offer = await getOffer(tx, context.params.id ?? '');
      const actions = await offerActions(tx, actor.tenantId, offer);
      return {
        ...offerJson(offer),
        actions: actions.map((e) => ({
          action: e.action,
          allowed: e.allowed,
          ...(e.reason ? { reason: e.reason.code, message: e.reason.message } : {}),
        })),
      };
    },
    { offerId: context.params.id ?? '' },
  );
