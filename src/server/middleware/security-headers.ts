import type { MiddlewareHandler } from 'astro';
import { env } from '../../lib/config/env.ts';
import { applyCommonHeaders, applyHtmlHeaders, isHtml, stampScriptNonces } from '../../lib/http/security-headers.ts';

function isProductionLike(): boolean {
  const { isProduction, publicUrl } = env();
  return isProduction || Boolean(publicUrl?.startsWith('https:'));
}

/**
 * Wraps every later step: whatever answer comes back (page, API, redirect, 403/404), it leaves with the
 * security headers; HTML also gets the CSP with this request's nonce stamped on its scripts.
 */
export const securityHeaders: MiddlewareHandler = async (context, next) => {
  const response = await next();
  const isProduction = isProductionLike();
  if (isHtml(response.headers) && context.request.method !== 'HEAD') {
    const headers = new Headers(response.headers);
    applyHtmlHeaders(headers, { nonce: context.locals.cspNonce, isProduction, isSignedIn: Boolean(context.locals.principal) });
    headers.delete('content-length');
    const html = await response.text();
    return new Response(stampScriptNonces(html, context.locals.cspNonce), { status: response.status, statusText: response.statusText, headers });
  }
  const headers = new Headers(response.headers);
  if (isHtml(headers)) applyHtmlHeaders(headers, { nonce: context.locals.cspNonce, isProduction, isSignedIn: Boolean(context.locals.principal) });
  else applyCommonHeaders(headers, { isProduction });
  if (context.locals.principal && !headers.has('cache-control')) headers.set('cache-control', 'no-store');
  // Redirect responses have immutable headers, so always answer with a copy.
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
};
