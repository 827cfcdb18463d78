import type { ZodType } from 'zod';
import { AppError, pgCode, toAppError } from '../errors/app-error.ts';
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

/** `Retry-After` (seconds) for an error that says when to come back (`details.retry_after`, e.g. a 429). */
export function retryAfterHeader(error: AppError): Record<string, string> {
  const seconds = Number(error.details?.retry_after);
  return Number.isFinite(seconds) && seconds > 0 ? { 'retry-after': String(Math.ceil(seconds)) } : {};
}

/**
 * Postgres errors that only a value sent by the client can cause: text that is not a number or id
 * (22P02), NUL or bytes outside UTF-8 (22021, 22P05), a number or date out of range (22003, 22008,
 * 22007), a value longer than its column (22001), a negative LIMIT/OFFSET (2201W, 2201X). They are the
 * client's mistake, so a 400 — the query layer (query-params.ts) should have caught them first, and
 * this keeps a missed one from becoming a 500. The column is not named by Postgres: the message stays generic.
 */
const PG_INPUT_ERRORS = new Set(['22P02', '22021', '22P05', '22003', '22007', '22008', '22001', '2201W', '2201X']);

/** The 400 for a Postgres error caused by input, or null for any other error. */
export function inputErrorFromPg(error: unknown): AppError | null {
  // The driver's error may come wrapped (a query builder's error with the driver's as its cause).
  const code = pgCode(error) ?? pgCode((error as { cause?: unknown } | null)?.cause);
  if (!code || !PG_INPUT_ERRORS.has(code)) return null;
  return new AppError(
    'BAD_REQUEST',
    'A value in the request is not valid (wrong type, out of range or with characters that are not allowed).',
    {
      internal: String((error as Error).message),
      cause: error,
    },
  );
}

/**
 * The one error answer: `{ error: { code, message, field?, key?, params?, request_id? } }`. Input
 * errors (zod issues, keyed AppErrors, Postgres errors only input can cause) are written in `language`
 * with the field's label (src/lib/errors/messages.ts); other expected errors keep their message;
 * anything unexpected becomes a generic 500 with the request id to quote, and the details go to the log only.
 */
export function errorResponse(error: unknown, requestId?: string, language: Language = 'en'): Response {
  const known = inputErrorFromPg(error) ?? error;
  const view = describeError(known, language);
  if (view) {
    const appError = toAppError(known);
    if (view.status >= 500 && requestId) view.body.request_id = requestId;
    if (view.status >= 500 && appError instanceof AppError) {
      logger.error('request failed', {
        request_id: requestId,
        code: appError.code,
        internal: appError.internal,
        cause: String(appError.cause ?? ''),
      });
    }
    return json(
      { error: view.body },
      { status: view.status, headers: appError instanceof AppError ? retryAfterHeader(appError) : {} },
    );
  }
  logger.error('unexpected error', { request_id: requestId, error });
  return json(
    {
      error: {
        code: 'INTERNAL',
        message: 'Something went wrong on our side. Quote this reference if you contact support.',
        request_id: requestId,
      },
    },
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
export async function handle(
  requestId: string | undefined,
  run: () => Promise<Response>,
  language?: Language,
): Promise<Response> {
  try {
    return await run();
  } catch (error) {
    return errorResponse(error, requestId, language);
  }
}
