import type { MiddlewareHandler } from 'astro';
import { isPublicAsset } from '#lib/auth/guard.ts';
import {
  CLIENT_ERROR_PAGE,
  PAGE_METHODS,
  clientErrorOf,
  clientErrorPage,
  type ClientError,
} from '#lib/http/client-errors.ts';
import { checkQueryString } from '#lib/http/query-params.ts';
import { json } from '#lib/http/respond.ts';
import { logger } from '#lib/observability/log.ts';

function withStatus(response: Response, status: number, extra: Record<string, string> = {}): Response {
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(extra)) headers.set(name, value);
  return new Response(response.body, { status, headers });
}

/**
 * After the guard let a request through: client mistakes answer 4xx, never 500.
 *  - a query string with malformed percent-encoding, non-UTF-8 bytes, control characters (NUL) or
 *    absurd lengths: 400 naming the parameter (JSON for /v1, the /400 page otherwise);
 *  - a page asked with a method pages do not answer (PUT, OPTIONS, PROPFIND…): 405 with `Allow`;
 *  - a page whose frontmatter threw AppError NOT_FOUND / FORBIDDEN / BAD_REQUEST (its loader did not
 *    find the path's object, or refused it) or a Postgres input error: the section's 404 / 403 page
 *    or the 400 page, WITH that status. The page decides before its first byte is streamed, which is
 *    why objects are loaded in page frontmatter and never inside nested components.
 */
export const clientErrors: MiddlewareHandler = async (context, next) => {
  const path = context.locals.canonicalPath ?? context.url.pathname;
  if (isPublicAsset(path) || path.startsWith('/_server-islands/')) return next();
  const isApi = path === '/v1' || path.startsWith('/v1/');
  const method = context.request.method.toUpperCase();
  const render = async (error: ClientError, extra: Record<string, string> = {}) => {
    context.locals.clientError = error;
    return withStatus(
      await next(clientErrorPage(path, error.status === 405 ? 400 : error.status)),
      error.status,
      extra,
    );
  };

  const issue = checkQueryString(context.url.search);
  if (issue) {
    const message = `${issue.param}: ${issue.message}`;
    if (isApi) return json({ error: { code: 'BAD_REQUEST', message, field: issue.param } }, { status: 400 });
    return render({ status: 400, field: issue.param, message });
  }
  if (isApi) return next();
  if (!(PAGE_METHODS as readonly string[]).includes(method)) {
    return render({ status: 405, message: `${method} is not allowed here.` }, { allow: PAGE_METHODS.join(', ') });
  }
  // The result pages themselves are rendered as they are (no loop through this step's catch).
  if (context.url.pathname === CLIENT_ERROR_PAGE) return next();
  try {
    return await next();
  } catch (error) {
    const clientError = clientErrorOf(error);
    if (!clientError) throw error;
    if (clientError.status === 400)
      logger.info('page refused a client mistake', {
        request_id: context.locals.requestId,
        path,
        field: clientError.field,
      });
    return render(clientError);
  }
};
