import type { APIRoute } from 'astro';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { endUserSessions } from '#lib/auth/sessions.ts';
import { pageDb } from '../../../server/db.ts';
import { handle, json } from '#lib/http/respond.ts';
import { clearSessionCookie } from '../../../server/session.ts';

/** POST /v1/auth/sign-out-everywhere → { ended }: ends every session of the user, this one included. */
export const POST: APIRoute = (context) =>
  handle(context.locals.requestId, async () => {
    const principal = requirePrincipal(context.locals.principal);
    const db = await pageDb();
    const ended = await db.tenant(principal.tenantId, (tx) =>
      endUserSessions(tx, {
        tenantId: principal.tenantId,
        userId: principal.userId,
        now: new Date(),
        reason: 'sign_out_everywhere',
      }),
    );
    if (principal.via === 'session') clearSessionCookie(context.cookies);
    return json({ ended, redirect: '/user/login?message=signed_out' });
  });
