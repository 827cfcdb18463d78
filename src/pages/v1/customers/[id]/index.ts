import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query, scopeNodesOf } from '#lib/lending/api.ts';
import { patchCustomerCustomFieldsCommand } from '#lib/forms/custom-field-commands.ts';
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

/**
 * PATCH /v1/customers/{id} { customFields, version? } → the customer. Only the customized fields are
 * edited here (names the tenant's form does not have are a 400 naming them; `version` guards a stale edit, 409).
 */
export const PATCH: APIRoute = (context) =>
  commandEndpoint(apiContext(context), patchCustomerCustomFieldsCommand, {
    objectId: context.params.id ?? null,
    input: (body) => ({ ...(body as object), customerId: context.params.id ?? '' }),
    answer: (row) => ({ status: 200, body: customerJson(row) }),
  });
