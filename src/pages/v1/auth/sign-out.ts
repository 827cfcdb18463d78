import type { APIRoute } from 'astro';
import { endSession } from '#lib/auth/sessions.ts';
import { ssoLogoutUrl } from '#lib/auth/oidc.ts';
import { pageDb } from '../../../server/db.ts';
import { findTenant } from '#lib/tenancy/tenant.ts';
import { handle, json } from '#lib/http/respond.ts';
import { clearSessionCookie, publicOrigin, readSessionCookie } from '../../../server/session.ts';

/**
 * POST /v1/auth/sign-out: revokes the session row (the old cookie is refused from now on) and clears
 * the cookie. Answers { redirect }: the provider's end-session URL after a single sign-on session
 * (RP-initiated logout), else the login page. A plain form post (no JavaScript) is redirected there.
 */
export const POST: APIRoute = (context) =>
  handle(context.locals.requestId, async () => {
    const cookie = await readSessionCookie(context.cookies);
    const loginUrl = '/user/login?message=signed_out';
    let redirect = loginUrl;
    if (cookie) {
      const db = await pageDb();
      const ended = await db
        .tenant(cookie.tenantId, (tx) => endSession(tx, { ...cookie, now: new Date() }))
        .catch(() => null);
      if (ended?.oidcIssuer) {
        const tenant = await findTenant(db, cookie.tenantId);
        const url = tenant
          ? await ssoLogoutUrl(tenant, {
              idToken: ended.oidcIdToken,
              postLogoutRedirectUri: `${publicOrigin(context.url)}${loginUrl}`,
            })
          : null;
        if (url) redirect = url;
      }
    }
    clearSessionCookie(context.cookies);
    const type = context.request.headers.get('content-type') ?? '';
    if (type.startsWith('application/x-www-form-urlencoded') || type.startsWith('multipart/form-data')) {
      return new Response(null, { status: 303, headers: { location: redirect } });
    }
    return json({ redirect });
  });
