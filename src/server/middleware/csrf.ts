import type { MiddlewareHandler } from 'astro';
import { env } from '#lib/config/env.ts';
import { checkCsrf } from '#lib/http/csrf.ts';
import { json } from '#lib/http/respond.ts';
import { logger } from '#lib/observability/log.ts';

/** Refuses cross-site mutating requests before any session is looked up (src/lib/http/csrf.ts). */
export const csrf: MiddlewareHandler = (context, next) => {
  const url = new URL(context.request.url);
  const path = context.locals.canonicalPath ?? url.pathname;
  const result = checkCsrf({
    method: context.request.method,
    path,
    requestOrigin: url.origin,
    publicUrl: env().publicUrl,
    headers: context.request.headers,
  });
  if (result.ok) return next();
  logger.warn('csrf refused', {
    request_id: context.locals.requestId,
    method: context.request.method,
    path,
    reason: result.reason,
  });
  if (path.startsWith('/v1/')) {
    return json(
      { error: { code: 'FORBIDDEN', message: `Cross-site request refused: ${result.reason}.` } },
      { status: 403 },
    );
  }
  return new Response('Cross-site request refused.', {
    status: 403,
    headers: { 'content-type': 'text/plain; charset=utf-8' },
  });
};
