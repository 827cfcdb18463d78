import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { listProducts, productJson } from '#lib/lending/products.ts';
import { createProductCommand } from '#lib/lending/product-admin.ts';

/** GET /v1/products → { items }. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx) => ({ items: (await listProducts(tx)).map(productJson) }));

/** POST /v1/products (admins) → 201 the product, version 1 (the rules: src/lib/lending/product-admin.ts). */
export const POST: APIRoute = (context) =>
  commandEndpoint(apiContext(context), createProductCommand, {
    answer: (product) => ({ status: 201, body: productJson(product) }),
  });
