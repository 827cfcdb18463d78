import type { APIRoute } from 'astro';
import { startSso } from '#lib/auth/oidc.ts';
import { safeRedirect } from '#lib/auth/redirect.ts';
import { pageDb } from '../../../../server/db.ts';
import { findActiveTenantBySlug, findTenant } from '#lib/tenancy/tenant.ts';
import { publicOrigin, writeOidcStateCookie } from '../../../../server/session.ts';

/**
 * GET /v1/auth/oidc/start?tenant=<slug>&redirect=<path> → 302 to the lender's identity provider,
 * with a short-lived cookie holding the state so the callback only completes in this browser.
 */
export const GET: APIRoute = async (context) => {
  const slug = context.url.searchParams.get('tenant') ?? '';
  const redirectParam = context.url.searchParams.get('redirect');
  const db = await pageDb();
  const row = /^[a-z0-9-]{1,64}$/.test(slug) ? await findActiveTenantBySlug(db, slug) : null;
  const tenant = row ? await findTenant(db, row.id) : null;
  if (!tenant) return context.redirect('/user/login?message=sso_failed', 303);
  try {
    const { url, state } = await startSso(db, {
      tenant,
      callbackUrl: `${publicOrigin(context.url)}/v1/auth/oidc/callback`,
      // '' when no origin was remembered, so the callback knows whether to record the 'login' event.
      redirectTo: redirectParam ? safeRedirect(redirectParam) : '',
      now: new Date(),
    });
    writeOidcStateCookie(context.cookies, state);
    return context.redirect(url, 302);
  } catch {
    return context.redirect(`/user/login?tenant=${encodeURIComponent(slug)}&message=sso_failed`, 303);
  }
};
