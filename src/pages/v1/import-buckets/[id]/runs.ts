import type { APIRoute } from 'astro';
import { apiContext, query } from '#lib/lending/api.ts';
import { getBucket, listRuns } from '#lib/data-import/buckets.ts';

/** GET /v1/import-buckets/{id}/runs → { items: [runs, newest first: files seen, imported, skipped, failed, details] }. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx) => {
    const bucket = await getBucket(tx, context.params.id ?? '');
    return { items: await listRuns(tx, bucket.id) };
  });
