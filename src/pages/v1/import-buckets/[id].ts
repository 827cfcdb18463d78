import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { bucketJson, deleteBucketCommand, getBucket, updateBucketCommand } from '#lib/data-import/buckets.ts';

/** GET /v1/import-buckets/{id} → the bucket (no secret). */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx) => bucketJson(await getBucket(tx, context.params.id ?? '')));

/** PATCH /v1/import-buckets/{id} { …all fields, secret? (empty keeps it), expectedVersion } → the bucket; 409 on a stale version. */
export const PATCH: APIRoute = (context) =>
  commandEndpoint(apiContext(context), updateBucketCommand, {
    objectId: context.params.id ?? null,
    input: (body) => {
      const { expectedVersion, ...values } = (typeof body === 'object' && body ? body : {}) as Record<string, unknown>;
      return { id: context.params.id ?? '', values, expectedVersion };
    },
    answer: (b) => ({ status: 200, body: bucketJson(b) }),
  });

/** DELETE /v1/import-buckets/{id} → 204. */
export const DELETE: APIRoute = (context) =>
  commandEndpoint(apiContext(context), deleteBucketCommand, {
    objectId: context.params.id ?? null,
    input: () => ({ id: context.params.id ?? '' }),
    answer: () => ({ status: 204, body: null }),
  });
