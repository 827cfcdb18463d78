import type { APIRoute } from 'astro';
import { apiContext, query } from '#lib/lending/api.ts';
import { getProduct, productJson } from '#lib/lending/products.ts';

/** GET /v1/products/{id} → the product with every schedule convention. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx) => productJson(await getProduct(tx, context.params.id ?? '')));
