import type { MiddlewareHandler } from 'astro';
import { env } from '#lib/config/env.ts';
import { applyCommonHeaders, applyHtmlHeaders, isHtml } from '#lib/http/security-headers.ts';

function isProductionLike(): boolean {
  const { isProduction, publicUrl } = env();
  return isProduction || Boolean(publicUrl?.startsWith('https:'));
}

/**
 * Wraps every later step: whatever answer comes back (page, API, redirect, 403/404), it leaves with the
 * security headers. Only headers are touched: the body streams through unread. A page's CSP is the one
 * Astro's renderer wrote with the hashes of its scripts; HTML made elsewhere gets a script-less policy.
 */
export const securityHeaders: MiddlewareHandler = async (context, next) => {
  const response = await next();
  const headers = new Headers(response.headers);
  if (isHtml(headers))
    applyHtmlHeaders(headers, { isProduction: isProductionLike(), isSignedIn: Boolean(context.locals.principal) });
  else applyCommonHeaders(headers, { isProduction: isProductionLike() });
  if (context.locals.principal && !headers.has('cache-control')) headers.set('cache-control', 'no-store');
  // Redirect responses have immutable headers, so always answer with a copy.
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
};
