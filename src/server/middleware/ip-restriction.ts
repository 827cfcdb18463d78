import type { MiddlewareHandler } from 'astro';
import { getDb } from '#lib/db/index.ts';
import { json } from '#lib/http/respond.ts';
import { getT } from '#lib/i18n/index.ts';
import { logger } from '#lib/observability/log.ts';
import { displayIp, isIpAllowed } from '#lib/tenancy/ip-allowlist.ts';
import { requestIp } from '../session.ts';

/**
 * After authenticate: a signed-in request (session or API token) from an address outside the
 * tenant's allowlist is refused, on every route including downloads (src/lib/tenancy/ip-allowlist.ts):
 * the rules for everyone and those for the user's roles, in one query by user id.
 */
export const ipRestriction: MiddlewareHandler = async (context, next) => {
  const { principal } = context.locals;
  if (!principal) return next();
  const ip = requestIp(context);
  const db = await getDb();
  if (await db.tenant(principal.tenantId, (tx) => isIpAllowed(tx, ip, principal.userId))) return next();
  logger.warn('ip refused', { request_id: context.locals.requestId, tenant_id: principal.tenantId, ip });
  const path = context.locals.canonicalPath ?? context.url.pathname;
  // In the user's language (authenticate set it), naming the address the rules saw.
  const message = (await getT(context.locals.language ?? 'en'))('security:ip.refused', { ip: displayIp(ip) });
  if (path.startsWith('/v1/')) return json({ error: { code: 'FORBIDDEN', message } }, { status: 403 });
  return new Response(message, { status: 403, headers: { 'content-type': 'text/plain; charset=utf-8' } });
};
