import type { APIRoute } from 'astro';
import { z } from 'zod';
import { signInWithPassword } from '#lib/auth/sign-in.ts';
import { pageDb } from '../../../server/db.ts';
import { handle, json, readJson } from '#lib/http/respond.ts';
import { finishSignIn, requestIp, writeSessionCookie } from '../../../server/session.ts';

const SignInRequest = z.object({
  email: z.string().trim().min(1).max(320),
  password: z.string().min(1).max(256),
  tenant_id: z.string().min(1).max(64).optional(),
  redirect: z.string().max(2000).optional(),
});

/**
 * POST /v1/auth/sign-in {email, password, tenant_id?, redirect?} → one of
 * { status: 'signed-in', redirect } (cookie set), { status: 'mfa' } (pending cookie set; POST /v1/auth/mfa next),
 * { status: 'choose-tenant', tenants: [{id, name}] } (send again with tenant_id). 401 wrong credentials, 429 throttled.
 */
export const POST: APIRoute = (context) =>
  handle(context.locals.requestId, async () => {
    const body = await readJson(context.request, SignInRequest);
    const db = await pageDb();
    const result = await signInWithPassword(db, {
      email: body.email,
      password: body.password,
      tenantId: body.tenant_id ?? null,
      ip: requestIp(context),
      userAgent: context.request.headers.get('user-agent') ?? undefined,
      now: new Date(),
    });
    if (result.kind === 'choose-tenant') return json({ status: 'choose-tenant', tenants: result.tenants });
    if (result.kind === 'mfa') {
      await writeSessionCookie(context.cookies, { sessionId: result.sessionId, tenantId: result.tenantId });
      return json({ status: 'mfa' });
    }
    const redirect = await finishSignIn(context, { ...result, redirect: body.redirect ?? null, method: 'password' });
    return json({ status: 'signed-in', redirect, password_change_required: result.passwordChangeRequired });
  });
