import { defineMiddleware } from 'astro:middleware';
import { authenticateApiToken } from '#lib/auth/api-tokens.ts';
import { checkSession } from '#lib/auth/sessions.ts';
import { getDb } from '#lib/db/index.ts';
import { languageOf } from '#lib/i18n/index.ts';
import { requestedLanguage } from '#lib/auth/request-language.ts';
import { findTenant } from '#lib/tenancy/tenant.ts';
import { readSessionCookie } from '../session.ts';

/**
 * Who is calling: a session cookie (checked against its server-side row on every request) or an
 * API token (`Authorization: Bearer <token>` with `x-tenant-id`). Sets locals.principal,
 * locals.tenant and locals.language. It decides nothing about access: the guard step after it does.
 * A request with the header `x-background: 1` (an island's timer, not the user) is checked without
 * counting as activity, so polling does not keep an idle session alive.
 */
export const authenticate = defineMiddleware(async (context, next) => {
  const db = await getDb();
  const now = new Date();
  const headers = context.request.headers;
  const authorization = headers.get('authorization');
  let principal = undefined as App.Locals['principal'];
  if (authorization?.toLowerCase().startsWith('bearer ')) {
    const tenantId = headers.get('x-tenant-id');
    const token = authorization.slice(7).trim();
    if (tenantId && token) principal = (await authenticateApiToken(db, { tenantId, token, now })) ?? undefined;
  } else {
    const cookie = await readSessionCookie(context.cookies);
    if (cookie) {
      const check = await checkSession(db, { ...cookie, now, isActivity: headers.get('x-background') !== '1' });
      // An ended session's cookie is ignored, never cleared here: a response to a request sent with
      // the old cookie can arrive after the browser signed in again (another tab, a poll in flight),
      // and clearing then would wipe the new session's cookie. Sign-in overwrites it; sign-out clears it.
      if (check.status === 'active') principal = check.principal;
    }
  }
  if (principal) {
    const tenant = await findTenant(db, principal.tenantId);
    if (tenant) {
      context.locals.principal = principal;
      context.locals.tenant = tenant;
      context.locals.language = languageOf(principal.language);
    }
  }
  if (!context.locals.principal)
    context.locals.language = requestedLanguage(context.url, headers.get('accept-language'));
  return next();
});
