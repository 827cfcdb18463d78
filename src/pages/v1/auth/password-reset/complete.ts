import type { APIRoute } from 'astro';
import { z } from 'zod';
import { localizePasswordError } from '#lib/auth/messages.ts';
import { getT } from '#lib/i18n/index.ts';
import { completePasswordReset } from '#lib/auth/password-reset.ts';
import { pageDb } from '../../../../server/db.ts';
import { handle, readJson } from '#lib/http/respond.ts';

const CompleteRequest = z.object({
  tenant_id: z.string().min(1).max(64),
  token: z.string().min(16).max(200),
  password: z.string().min(1).max(256),
});

/** POST /v1/auth/password-reset/complete {tenant_id, token, password} → 204; the link is used up and every session ends. */
export const POST: APIRoute = (context) =>
  handle(context.locals.requestId, async () => {
    const body = await readJson(context.request, CompleteRequest);
    const db = await pageDb();
    const t = await getT(context.locals.language ?? 'en');
    await completePasswordReset(db, {
      tenantId: body.tenant_id,
      token: body.token,
      password: body.password,
      now: new Date(),
    }).catch((error: unknown) => {
      throw localizePasswordError(t, error);
    });
    return new Response(null, { status: 204 });
  });
