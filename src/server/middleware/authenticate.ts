import { defineMiddleware } from 'astro:middleware';
import { authenticateApiToken } from '../../lib/auth/api-tokens.ts';
import { checkSession } from '../../lib/auth/sessions.ts';
import { getDb } from '../../lib/db/index.ts';
import { languageOf, type Language } from '../../lib/i18n/index.ts';
import { findTenant } from '../../lib/tenancy/tenant.ts';
import { clearSessionCookie, readSessionCookie } from '../session.ts';

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
      if (check.status === 'active') principal = check.principal;
      else if (check.status === 'ended') clearSessionCookie(context.cookies);
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
  if (!context.locals.principal) context.locals.language = requestedLanguage(context.url, headers.get('accept-language'));
  return next();
});

/** Signed out: ?lang= (en/fr), else the browser's Accept-Language preference, else English. */
export function requestedLanguage(url: URL, acceptLanguage: string | null): Language {
  const asked = url.searchParams.get('lang');
  if (asked) return languageOf(asked);
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { tag: tag.toLowerCase(), q: q ? Number(q.slice(2)) || 0 : 1 };
    })
    .filter((entry) => entry.tag && entry.q > 0)
    .sort((a, b) => b.q - a.q);
  const first = ranked.find((entry) => entry.tag.startsWith('fr') || entry.tag.startsWith('en'));
  return first ? languageOf(first.tag) : 'en';
}
