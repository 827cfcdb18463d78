import type { APIRoute } from 'astro';
import { z } from 'zod';
import { apiContext, mutation } from '#lib/lending/api.ts';
import { offerJson, rejectOffer } from '#lib/lending/offers.ts';

const Body = z.object({ reason: z.string().max(1000).optional() });

/** POST /v1/offers/{id}/reject { reason? } → the offer. */
export const POST: APIRoute = (context) => {
  const offerId = context.params.id ?? '';
  return mutation(apiContext(context), {
    action: 'offer.reject',
    objectType: 'offer',
    objectId: offerId,
    offerId,
    schema: Body,
    run: async (tx, actor, body) => {
      const row = await rejectOffer(tx, actor, offerId, body.reason);
      return { status: 200, body: offerJson(row) };
    },
  });
};
