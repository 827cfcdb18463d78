import type { APIRoute } from 'astro';
import { z } from 'zod';
import { localizePasswordError } from '#lib/auth/messages.ts';
import { getT } from '#lib/i18n/index.ts';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { changePassword } from '#lib/auth/password-reset.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { pageDb } from '../../../server/db.ts';
import { handle, readJson } from '#lib/http/respond.ts';
import { requestIp } from '../../../server/session.ts';

const ChangeRequest = z.object({
  current_password: z.string().min(1).max(256),
  new_password: z.string().min(1).max(256),
});

/** POST /v1/auth/password {current_password, new_password} → 204; other sessions of the user end. */
export const POST: APIRoute = (context) =>
  handle(context.locals.requestId, async () => {
    const principal = requirePrincipal(context.locals.principal);
    if (principal.via !== 'session') throw new AppError('FORBIDDEN', 'API tokens cannot change passwords.');
    const body = await readJson(context.request, ChangeRequest);
    const db = await pageDb();
    const t = await getT(context.locals.language ?? 'en');
    await changePassword(db, {
      tenantId: principal.tenantId,
      userId: principal.userId,
      sessionId: principal.sessionId,
      currentPassword: body.current_password,
      newPassword: body.new_password,
      now: new Date(),
      ip: requestIp(context),
    }).catch((error: unknown) => {
      throw localizePasswordError(t, error);
    });
    return new Response(null, { status: 204 });
  });
