import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { checkBucketCommand } from '#lib/data-import/buckets.ts';

/** POST /v1/import-buckets/{id}/check → 202 { jobId }: "check now", a run queued at once (its outcome: GET …/runs). */
export const POST: APIRoute = (context) =>
  commandEndpoint(apiContext(context), checkBucketCommand, {
    objectId: context.params.id ?? null,
    input: () => ({ id: context.params.id ?? '' }),
    answer: (r) => ({ status: 202, body: { id: r.bucket.id, jobId: String(r.jobId) } }),
  });
