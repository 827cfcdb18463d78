import type { MiddlewareHandler } from 'astro';
import { canonicalRouteCase } from '#lib/auth/route-manifest.ts';
import { canonicalisePath } from '#lib/http/canonical-path.ts';
import { json } from '#lib/http/respond.ts';

/** Before any decision: one spelling per path (see src/lib/http/canonical-path.ts). */
export const canonicalPath: MiddlewareHandler = (context, next) => {
  const url = new URL(context.request.url);
  const result = canonicalisePath(url.pathname, canonicalRouteCase);
  const isApi = url.pathname.toLowerCase().startsWith('/v1');
  if (result.kind === 'reject') {
    return isApi
      ? json({ error: { code: 'BAD_REQUEST', message: `Malformed path: ${result.reason}.` } }, { status: 400 })
      : new Response(`Bad request: ${result.reason}.`, {
          status: 400,
          headers: { 'content-type': 'text/plain; charset=utf-8' },
        });
  }
  if (result.kind === 'redirect') {
    const method = context.request.method.toUpperCase();
    if (method !== 'GET' && method !== 'HEAD') {
      return json(
        { error: { code: 'BAD_REQUEST', message: `Use the canonical path ${result.location}.` } },
        { status: 400 },
      );
    }
    return new Response(null, { status: 308, headers: { location: result.location + url.search } });
  }
  context.locals.canonicalPath = result.path;
  return next();
};
