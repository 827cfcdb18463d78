import type { APIRoute } from 'astro';
import { z } from 'zod';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { endOwnSession } from '#lib/auth/sessions.ts';
import { pageDb } from '../../../../server/db.ts';
import { handle } from '#lib/http/respond.ts';

/** DELETE /v1/auth/sessions/{id} → 204: ends one of the caller's own sessions. */
export const DELETE: APIRoute = (context) =>
  handle(context.locals.requestId, async () => {
    const principal = requirePrincipal(context.locals.principal);
    const id = z.uuid().parse(context.params.id);
    const db = await pageDb();
    await db.tenant(principal.tenantId, (tx) =>
      endOwnSession(tx, { tenantId: principal.tenantId, userId: principal.userId, sessionId: id, now: new Date() }),
    );
    return new Response(null, { status: 204 });
  });
