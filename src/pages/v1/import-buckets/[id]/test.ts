import type { APIRoute } from 'astro';
import { apiContext } from '#lib/lending/api.ts';
import { errorResponse, json } from '#lib/http/respond.ts';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { pageDb } from '../../../../server/db.ts';
import { testBucket } from '#lib/data-import/buckets.ts';

/** POST /v1/import-buckets/{id}/test → { ok, files, error }: connects through the outbound guard and lists; stores nothing. */
export const POST: APIRoute = async (context) => {
  const ctx = apiContext(context);
  try {
    const principal = requirePrincipal(ctx.principal);
    return json(await testBucket(await pageDb(), principal.tenantId, context.params.id ?? ''));
  } catch (error) {
    return errorResponse(error, ctx.requestId, ctx.language);
  }
};
