import type { APIRoute } from 'astro';
import { startSso } from '#lib/auth/oidc.ts';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { logger } from '#lib/observability/log.ts';
import { findTenant } from '#lib/tenancy/tenant.ts';
import { ssoTestResultPath } from '#lib/tenancy/settings.ts';
import { pageDb } from '../../../server/db.ts';
import { publicOrigin, writeOidcStateCookie } from '../../../server/session.ts';

/**
 * GET /v1/tenant-settings/sso-test → the settings page's "test sign-in": starts the real sign-in at
 * the saved provider (302), marked as a test, so the callback comes back to the settings page with
 * the identity the provider vouched for, or its error, and signs nobody in.
 */
export const GET: APIRoute = async (context) => {
  const principal = requirePrincipal(context.locals.principal);
  const db = await pageDb();
  const tenant = await findTenant(db, principal.tenantId);
  try {
    if (!tenant) throw new Error('unknown tenant');
    const { url, state } = await startSso(db, {
      tenant,
      callbackUrl: `${publicOrigin(context.url)}/v1/auth/oidc/callback`,
      redirectTo: '',
      now: new Date(),
      purpose: 'test',
    });
    writeOidcStateCookie(context.cookies, state);
    return context.redirect(url, 302);
  } catch (error) {
    logger.warn('sso test sign-in could not start', {
      tenant_id: principal.tenantId,
      reason: error instanceof Error ? error.message : String(error),
    });
    return context.redirect(ssoTestResultPath({ ok: false, tenantId: principal.tenantId, code: 'start_failed' }), 303);
  }
};
