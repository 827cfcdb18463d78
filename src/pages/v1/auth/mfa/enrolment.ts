import type { APIRoute } from 'astro';
import { z } from 'zod';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { beginTotpEnrolment, confirmTotpEnrolment, otpauthUri, totpStatus } from '#lib/auth/totp.ts';
import { pageDb } from '../../../../server/db.ts';
import { handle, json, readJson } from '#lib/http/respond.ts';
import { requestIp } from '../../../../server/session.ts';

/** GET /v1/auth/mfa/enrolment → { state: 'none' | 'pending' | 'on' } for the profile page. */
export const GET: APIRoute = (context) =>
  handle(context.locals.requestId, async () => {
    const principal = requirePrincipal(context.locals.principal);
    const db = await pageDb();
    const status = await db.tenant(principal.tenantId, (tx) => totpStatus(tx, principal.tenantId, principal.userId));
    return json({ state: status.state });
  });

/** POST /v1/auth/mfa/enrolment → { secret, otpauth_uri }: starts enrolment (not in force until confirmed). */
export const POST: APIRoute = (context) =>
  handle(context.locals.requestId, async () => {
    const principal = requirePrincipal(context.locals.principal);
    const db = await pageDb();
    const { secret } = await db.tenant(principal.tenantId, (tx) =>
      beginTotpEnrolment(tx, { tenantId: principal.tenantId, userId: principal.userId, now: new Date() }),
    );
    const issuer = context.locals.tenant?.name ?? 'Lending back office';
    return json({ secret, otpauth_uri: otpauthUri({ secret, issuer, account: principal.email }) }, { status: 201 });
  });

const ConfirmRequest = z.object({ code: z.string().trim().min(6).max(8) });

/** PUT /v1/auth/mfa/enrolment {code} → 204: confirms with a first code; sign-in asks for codes from now on. */
export const PUT: APIRoute = (context) =>
  handle(context.locals.requestId, async () => {
    const principal = requirePrincipal(context.locals.principal);
    const body = await readJson(context.request, ConfirmRequest);
    const db = await pageDb();
    await confirmTotpEnrolment(db, {
      tenantId: principal.tenantId,
      userId: principal.userId,
      code: body.code,
      now: new Date(),
      ip: requestIp(context),
    });
    return new Response(null, { status: 204 });
  });
