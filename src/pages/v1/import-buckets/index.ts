import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { addBucketCommand, bucketJson, listBuckets } from '#lib/data-import/buckets.ts';

/** GET /v1/import-buckets → { items: [buckets, with their last run] } (secrets never sent). */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx) => ({
    items: (await listBuckets(tx)).map((b) => ({ ...bucketJson(b), lastRun: b.last_run })),
  }));

/**
 * POST /v1/import-buckets { name, type: "s3"|"sftp", kind, endpoint?, region?, bucket?, prefix?, accessKeyId?,
 * host?, port?, username?, path?, secret, mapping? } → 201 the bucket. A private endpoint or host: 400 naming it.
 */
export const POST: APIRoute = (context) =>
  commandEndpoint(apiContext(context), addBucketCommand, {
    input: (body) => ({ values: body }),
    answer: (b) => ({ status: 201, body: bucketJson(b) }),
  });
