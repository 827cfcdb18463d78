import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { bucketJson, forgetHostKeyCommand } from '#lib/data-import/buckets.ts';

/**
 * DELETE /v1/import-buckets/{id}/host-key → 200 bucket: forgets the pinned SFTP host key (only when
 * the server's key really changed); the next successful connection pins the key it sees. 400 for an S3 bucket.
 */
export const DELETE: APIRoute = (context) =>
  commandEndpoint(apiContext(context), forgetHostKeyCommand, {
    objectId: context.params.id ?? null,
    input: () => ({ id: context.params.id ?? '' }),
    answer: (b) => ({ status: 200, body: bucketJson(b) }),
  });
