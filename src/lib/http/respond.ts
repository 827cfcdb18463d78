import type { ZodType } from 'zod';
import { AppError, toAppError } from '../errors/app-error.ts';
import { describeError } from '../errors/messages.ts';
import type { Language } from '../i18n/index.ts';
import { logger } from '../observability/log.ts';

/** JSON that carries bigint (money in minor units, int8 ids) as decimal strings instead of throwing. */
export function stringify(value: unknown): string {
  return JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? v.toString() : v));
}

export function json(data: unknown, init: ResponseInit = {}): Response {
  const headers = new Headers(init.headers);
  headers.set('content-type', 'application/json; charset=utf-8');
  if (!headers.has('cache-control')) headers.set('cache-control', 'no-store');
  return new Response(stringify(data), { ...init, headers });
}

/**
 * The one error answer: `{ error: { code, message, field?, key?, params?, request_id? } }`. Input
 * errors (zod issues, keyed AppErrors) are written in `language` with the field's label
 * (src/lib/errors/messages.ts); other expected errors keep their message; anything unexpected
 * becomes a generic 500 with the request id to quote, and the details go to the log only.
 */
export function errorResponse(error: unknown, requestId?: string, language: Language = 'en'): Response {
  const view = describeError(error, language);
  if (view) {
    const appError = toAppError(error);
    if (view.status >= 500 && requestId) view.body.request_id = requestId;
    if (view.status >= 500 && appError instanceof AppError) {
      logger.error('request failed', { request_id: requestId, code: appError.code, internal: appError.internal, cause: String(appError.cause ?? '') });
    }
    return json({ error: view.body }, { status: view.status });
  }
  logger.error('unexpected error', { request_id: requestId, error });
  return json(
    { error: { code: 'INTERNAL', message: 'Something went wrong on our side. Quote this reference if you contact support.', request_id: requestId } },
    { status: 500 },
  );
}

/** Parses a JSON request body with a zod schema; malformed JSON and schema failures are 400s naming the field. */
export async function readJson<T>(request: Request, schema: ZodType<T>): Promise<T> {
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    throw new AppError('BAD_REQUEST', 'The request body must be valid JSON.');
  }
  return schema.parse(body);
}

/** Wraps an endpoint body so every thrown error becomes the one error answer. */
export async function handle(requestId: string | undefined, run: () => Promise<Response>, language?: Language): Promise<Response> {
  try {
    return await run();
  } catch (error) {
    return errorResponse(error, requestId, language);
  }
}
