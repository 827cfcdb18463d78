import type { APIRoute } from 'astro';
import { apiContext, query, scopeNodesOf } from '#lib/lending/api.ts';
import { customerJson, getCustomer, isCustomerInScope } from '#lib/lending/customers.ts';
import { AppError } from '#lib/errors/app-error.ts';

/** GET /v1/customers/{id} → the customer. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx, _actor, _url, principal) => {
    const customer = await getCustomer(tx, context.params.id ?? '');
    if (!(await isCustomerInScope(tx, customer.id, await scopeNodesOf(tx, principal))))
      throw new AppError('NOT_FOUND', 'Customer not found', { field: 'customerId' });
    return customerJson(customer);
  });
