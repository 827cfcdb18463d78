import type { APIRoute } from 'astro';
import { z } from 'zod';
import { revokeApiToken } from '#lib/auth/api-tokens.ts';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { pageDb } from '../../../../server/db.ts';
import { handle } from '#lib/http/respond.ts';

/** DELETE /v1/auth/api-tokens/{id} → 204: revokes the token at once (admins). */
export const DELETE: APIRoute = (context) =>
  handle(context.locals.requestId, async () => {
    const principal = requirePrincipal(context.locals.principal);
    const id = z.uuid().parse(context.params.id);
    const db = await pageDb();
    await db.tenant(principal.tenantId, (tx) =>
      revokeApiToken(tx, { tenantId: principal.tenantId, id, now: new Date() }),
    );
    return new Response(null, { status: 204 });
  });
