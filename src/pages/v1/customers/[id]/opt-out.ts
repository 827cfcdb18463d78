import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { customerJson } from '#lib/lending/customers.ts';
import { optOutCustomerCommand } from '#lib/lending/customer-commands.ts';

/** POST /v1/customers/{id}/opt-out { reason } → the customer (the change is kept in its opt-in history). */
export const POST: APIRoute = (context) => {
  const customerId = context.params.id ?? '';
  return commandEndpoint(apiContext(context), optOutCustomerCommand, {
    objectId: customerId,
    input: (body) => ({ ...(body && typeof body === 'object' ? body : {}), customerId }),
    answer: (customer) => ({ status: 200, body: customerJson(customer) }),
  });
};
