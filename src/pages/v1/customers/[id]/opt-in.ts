import type { APIRoute } from 'astro';
import { z } from 'zod';
import { apiContext, mutation } from '../../../../lib/lending/api.ts';
import { customerJson, setCustomerOptIn } from '../../../../lib/lending/customers.ts';

const Body = z.object({ reason: z.string().min(1).max(1000) });

/** POST /v1/customers/{id}/opt-in { reason } → the customer (the change is kept in its opt-in history). */
export const POST: APIRoute = (context) => {
  const customerId = context.params.id ?? '';
  return mutation(apiContext(context), {
    action: 'customer.opt_in', objectType: 'customer', objectId: customerId, schema: Body,
    run: async (tx, actor, body) => ({ status: 200, body: customerJson(await setCustomerOptIn(tx, actor, customerId, 'opted_in', body.reason)) }),
  });
};
