import type { APIRoute } from 'astro';
import { z } from 'zod';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { endUserSessions } from '#lib/auth/sessions.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { pageDb } from '../../../../../server/db.ts';
import { handle, json } from '#lib/http/respond.ts';
import { userExists } from '#lib/tenancy/users.ts';

/**
 * POST /v1/auth/users/{id}/end-sessions → { ended }: an administrator (the route manifest lets no one else in) ends every session of a user of
 * their tenant; the user's next request is refused. (Disabling a user or changing their roles needs
 * no call: every request re-reads both.)
 */
export const POST: APIRoute = (context) =>
  handle(context.locals.requestId, async () => {
    const principal = requirePrincipal(context.locals.principal);
    const userId = z.uuid().parse(context.params.id);
    const db = await pageDb();
    const ended = await db.tenant(principal.tenantId, async (tx) => {
      if (!(await userExists(tx, principal.tenantId, userId)))
        throw new AppError('NOT_FOUND', 'This user does not exist.');
      return endUserSessions(tx, {
        tenantId: principal.tenantId,
        userId,
        now: new Date(),
        reason: `ended_by_admin:${principal.userId}`,
      });
    });
    return json({ ended });
  });
