import type { APIRoute } from 'astro';
import { z } from 'zod';
import { getT } from '#lib/i18n/index.ts';
import { localizePlanError } from '#lib/plans/plan-messages.ts';
import { createApiToken, listApiTokens } from '#lib/auth/api-tokens.ts';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { pageDb } from '../../../../server/db.ts';
import { handle, json, readJson } from '#lib/http/respond.ts';

/** The route manifest lets only administrators reach these methods. */
function requireAdmin(locals: App.Locals) {
  return requirePrincipal(locals.principal);
}

/** GET /v1/auth/api-tokens → { tokens: [{ id, name, user_id, created_at, last_used_at, expires_at, revoked_at }] } (admins). */
export const GET: APIRoute = (context) =>
  handle(context.locals.requestId, async () => {
    const principal = requireAdmin(context.locals);
    const db = await pageDb();
    return json({ tokens: await db.tenant(principal.tenantId, (tx) => listApiTokens(tx, principal.tenantId)) });
  });

const CreateToken = z.object({
  name: z.string().trim().min(1).max(100),
  user_id: z.uuid().optional(),
  expires_at: z.iso.datetime().optional(),
});

/** POST /v1/auth/api-tokens {name, user_id?, expires_at?} → 201 { id, token } — the token is shown only this once. */
export const POST: APIRoute = (context) =>
  handle(context.locals.requestId, async () => {
    const principal = requireAdmin(context.locals);
    const body = await readJson(context.request, CreateToken);
    const db = await pageDb();
    const t = await getT(context.locals.language ?? 'en');
    const created = await db
      .tenant(principal.tenantId, (tx) =>
        createApiToken(tx, {
          tenantId: principal.tenantId,
          createdBy: principal,
          name: body.name,
          userId: body.user_id,
          expiresAt: body.expires_at ? new Date(body.expires_at) : null,
          now: new Date(),
        }),
      )
      .catch((error: unknown) => {
        throw localizePlanError(t, error);
      });
    return json(created, { status: 201 });
  });
