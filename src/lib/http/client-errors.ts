/**
 * Pure decisions of the client-errors middleware step (src/server/middleware/client-errors.ts):
 * which methods a page answers, and which thrown errors are the client's mistake with the status
 * and result page they get (a client's mistake is a 4xx, never a 500).
 */
import { AppError } from '../errors/app-error.ts';
import { forbiddenPagePath, notFoundPagePath } from '../auth/route-manifest.ts';
import { inputErrorFromPg } from './respond.ts';

/** Pages are read (GET, HEAD) and take their forms' posts; any other method is a 405. */
export const PAGE_METHODS = ['GET', 'HEAD', 'POST'] as const;
/** The standalone page for 400 and 405 (a bad query parameter, an unsupported method). */
export const CLIENT_ERROR_PAGE = '/400';

export type ClientError = { status: 400 | 403 | 404 | 405; field?: string; message: string };

/**
 * The client error a page's thrown error stands for, or null for a real failure (left to the 500
 * page). Loaders throw AppError NOT_FOUND / FORBIDDEN / BAD_REQUEST; a Postgres error caused by a
 * value the client sent is a 400 too.
 */
export function clientErrorOf(error: unknown): ClientError | null {
  const appError = error instanceof AppError ? error : inputErrorFromPg(error);
  if (!appError) return null;
  const status = appError.status;
  if (status === 400 || status === 403 || status === 404)
    return { status, field: appError.field, message: appError.message };
  return null;
}

/** The page that renders a client error for a path: the section's 403/404 page, else the 400 page. */
export function clientErrorPage(path: string, status: ClientError['status']): string {
  if (status === 403) return forbiddenPagePath(path);
  if (status === 404) return notFoundPagePath(path);
  return CLIENT_ERROR_PAGE;
}
