import type { APIRoute } from 'astro';
import { z } from 'zod';
import { AppError } from '#lib/errors/app-error.ts';
import { completeMfaSignIn } from '#lib/auth/sign-in.ts';
import { pageDb } from '../../../server/db.ts';
import { handle, json, readJson } from '#lib/http/respond.ts';
import { finishSignIn, readSessionCookie, requestIp } from '../../../server/session.ts';

const MfaRequest = z.object({ code: z.string().trim().min(6).max(8), redirect: z.string().max(2000).optional() });

/** POST /v1/auth/mfa {code} — the second sign-in step after { status: 'mfa' }; a code works once. */
export const POST: APIRoute = (context) =>
  handle(context.locals.requestId, async () => {
    const body = await readJson(context.request, MfaRequest);
    const cookie = await readSessionCookie(context.cookies);
    if (!cookie) throw new AppError('UNAUTHORIZED', 'Your sign-in has expired. Sign in again.');
    const db = await pageDb();
    const done = await completeMfaSignIn(db, {
      tenantId: cookie.tenantId,
      pendingSessionId: cookie.sessionId,
      code: body.code,
      ip: requestIp(context),
      userAgent: context.request.headers.get('user-agent') ?? undefined,
      now: new Date(),
    });
    const redirect = await finishSignIn(context, { ...done, redirect: body.redirect ?? null, method: 'password+totp' });
    return json({ status: 'signed-in', redirect, password_change_required: done.passwordChangeRequired });
  });
