import type { APIRoute } from 'astro';
import { z } from 'zod';
import { apiContext, dateField, mutation, query, scopeNodesOf } from '#lib/lending/api.ts';
import { createCustomer, customerJson, listCustomers } from '#lib/lending/customers.ts';
import { prepareCustomValues } from '#lib/forms/custom-fields.ts';
import { QueryReader } from '#lib/http/query-params.ts';

/** GET /v1/customers?search=…&limit=N → { items }. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx, _actor, url, principal) => {
    const q = new QueryReader(url.searchParams, ['search', 'limit']);
    const input = { search: q.text('search', { max: 100 }), limit: q.int('limit', { min: 1, max: 500, fallback: 50 }) };
    return {
      items: (await listCustomers(tx, { ...input, scopeNodes: await scopeNodesOf(tx, principal) })).map(customerJson),
    };
  });

const Body = z.object({
  firstName: z.string().min(1).max(200),
  lastName: z.string().min(1).max(200),
  externalId: z.string().max(100).optional(),
  nationalId: z.string().max(100).optional(),
  phone: z.string().max(50).optional(),
  email: z.string().max(320).optional(),
  dateOfBirth: dateField.optional(),
  branchId: z.string().uuid().optional(),
  officerId: z.string().uuid().optional(),
  segment: z.string().max(100).optional(),
  riskClass: z.string().max(50).optional(),
  /** Customized fields by name (src/lib/forms/custom-fields.ts): checked against the tenant's form. */
  customFields: z.record(z.string().max(200), z.unknown()).optional(),
});

/** POST /v1/customers → 201 the customer. */
export const POST: APIRoute = (context) =>
  mutation(apiContext(context), {
    action: 'customer.create',
    objectType: 'customer',
    objectId: '',
    schema: Body,
    run: async (tx, actor, body) => {
      const customFields = await prepareCustomValues(tx, 'customer', body.customFields ?? {}, null, { isApi: true });
      return { status: 201, body: customerJson(await createCustomer(tx, actor, { ...body, customFields })) };
    },
  });
