import type { APIRoute } from 'astro';
import { z } from 'zod';
import { apiContext, dateField, moneyCommand } from '#lib/lending/api.ts';
import { applicationJson } from '#lib/lending/applications.ts';
import { offerJson, requestOfferLoan } from '#lib/lending/offers.ts';

const Body = z.object({
  formData: z.record(z.string(), z.unknown()).optional(),
  expectedDisbursementDate: dateField.optional(),
});

/** POST /v1/offers/{id}/request { formData?, expectedDisbursementDate? } + Idempotency-Key → 201 { offer, application }. */
export const POST: APIRoute = (context) => {
  const offerId = context.params.id ?? '';
  return moneyCommand(apiContext(context), {
    action: 'offer.request_loan',
    objectType: 'offer',
    objectId: offerId,
    offerId,
    schema: Body,
    run: async (tx, actor, body) => {
      const { offer, application } = await requestOfferLoan(
        tx,
        actor,
        offerId,
        body.formData,
        body.expectedDisbursementDate,
      );
      return { status: 201, body: { offer: offerJson(offer), application: applicationJson(application) } };
    },
  });
};
