import type { APIRoute } from 'astro';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { listUserSessions } from '#lib/auth/sessions.ts';
import { pageDb } from '../../../../server/db.ts';
import { handle, json } from '#lib/http/respond.ts';

/** GET /v1/auth/sessions → { sessions: [{ id, created_at, last_seen_at, ip, user_agent, method, is_current }] }. */
export const GET: APIRoute = (context) =>
  handle(context.locals.requestId, async () => {
    const principal = requirePrincipal(context.locals.principal);
    const db = await pageDb();
    const sessions = await db.tenant(principal.tenantId, (tx) =>
      listUserSessions(tx, {
        tenantId: principal.tenantId,
        userId: principal.userId,
        now: new Date(),
        currentSessionId: principal.sessionId,
      }),
    );
    return json({ sessions });
  });
