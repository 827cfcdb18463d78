import type { APIRoute } from 'astro';
import { z } from 'zod';
import { apiContext, mutation } from '../../../../lib/lending/api.ts';
import { notifyOffer, offerJson } from '../../../../lib/lending/offers.ts';
import { currencyDigits } from '../../../../lib/money/money.ts';

const Body = z.object({ Channel: z.string(), Client_Feedback: z.string().optional(), Comment: z.string().max(2000).optional() });

/** POST /v1/offers/{id}/notify { Channel, Client_Feedback?, Comment? } (the spec's notification form) → the offer. */
export const POST: APIRoute = (context) => {
  const offerId = context.params.id ?? '';
  return mutation(apiContext(context), {
    action: 'offer.notify', objectType: 'offer', objectId: offerId, permission: 'loans.offers.notify', schema: Body,
    run: async (tx, actor, body) => {
      const row = await notifyOffer(tx, actor, offerId, { channel: body.Channel, feedback: body.Client_Feedback, comment: body.Comment });
      return { status: 200, body: offerJson(row, currencyDigits(row.currency.trim())) };
    },
  });
};
