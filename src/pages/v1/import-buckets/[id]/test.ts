import type { APIRoute } from 'astro';
import { apiContext } from '#lib/lending/api.ts';
import { errorResponse, json } from '#lib/http/respond.ts';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { pageDb } from '../../../../server/db.ts';
import { testBucket } from '#lib/data-import/buckets.ts';

/**
 * POST /v1/import-buckets/{id}/test → { ok, files, error, fingerprint? }: connects through the outbound
 * guard and lists. SFTP: the host key must be the pinned one; with none pinned, the key seen is pinned
 * (trust on first use) and answered as `fingerprint`.
 */
export const POST: APIRoute = async (context) => {
  const ctx = apiContext(context);
  try {
    const principal = requirePrincipal(ctx.principal);
    return json(await testBucket(await pageDb(), principal.tenantId, context.params.id ?? ''));
  } catch (error) {
    return errorResponse(error, ctx.requestId, ctx.language);
  }
};
