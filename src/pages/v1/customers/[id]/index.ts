import type { APIRoute } from 'astro';
import { apiContext, query } from '../../../../lib/lending/api.ts';
import { customerJson, getCustomer } from '../../../../lib/lending/customers.ts';

/** GET /v1/customers/{id} → the customer. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), 'loans.customers.view', async (tx) => customerJson(await getCustomer(tx, context.params.id ?? '')));
