import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { getProduct, productJson } from '#lib/lending/products.ts';
import { listProductVersions, updateProductCommand } from '#lib/lending/product-admin.ts';

const bodyObject = (body: unknown) => (body && typeof body === 'object' && !Array.isArray(body) ? body : {});

/** GET /v1/products/{id} → the product (current version) with its `versions`. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx) => {
    const product = await getProduct(tx, context.params.id ?? '');
    return { ...productJson(product), versions: await listProductVersions(tx, product.id) };
  });

/**
 * PATCH /v1/products/{id} { expectedVersion?, active?, …terms } (admins) → the product: a change is a
 * new version (existing loans keep theirs); `{ active: false }` deactivates; a stale expectedVersion is 409.
 */
export const PATCH: APIRoute = (context) => {
  const productId = context.params.id ?? '';
  return commandEndpoint(apiContext(context), updateProductCommand, {
    objectId: productId,
    input: (body) => ({ ...bodyObject(body), productId }),
    answer: (product) => ({ status: 200, body: productJson(product) }),
  });
};
