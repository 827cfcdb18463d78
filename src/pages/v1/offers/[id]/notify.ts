import type { APIRoute } from 'astro';
import { z } from 'zod';
import { apiContext, mutation } from '#lib/lending/api.ts';
import { notifyOffer, offerJson } from '#lib/lending/offers.ts';

// The fields are the tenant's notify_customer_modal_config.form (by default Channel, Client_Feedback, Comment);
// notifyOffer checks them against that form.
const Body = z.record(z.string().max(100), z.string().max(2000));

/** POST /v1/offers/{id}/notify { Channel, Client_Feedback?, Comment?, …the tenant form's fields } → the offer. */
export const POST: APIRoute = (context) => {
  const offerId = context.params.id ?? '';
  return mutation(apiContext(context), {
    action: 'offer.notify',
    objectType: 'offer',
    objectId: offerId,
    offerId,
    schema: Body,
    run: async (tx, actor, body) => {
      const row = await notifyOffer(tx, actor, offerId, body);
      return { status: 200, body: offerJson(row) };
    },
  });
};
