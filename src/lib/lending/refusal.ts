import { AppError, type ErrorCode } from '#lib/errors/app-error.ts';
import { validationMessage } from '#lib/errors/messages.ts';

/**
 * A lending command's refusal, worded in the caller's language: the key `refusal.<code>` under
 * `validation:messages` goes through the one error-message mapping (src/lib/errors/messages.ts), so the
 * JSON answer, the form pages and stored idempotent answers are written in the request's language;
 * the English text stays the error's own message (logs, audit). `details.reason` keeps the stable code
 * callers test on (`reason` when it differs from the key, e.g. the schedule engine's own codes).
 */
export function refusal(
  code: string,
  options: {
    status?: ErrorCode;
    field?: string;
    params?: Record<string, string | number>;
    reason?: string;
    details?: Record<string, unknown>;
  } = {},
): AppError {
  const key = `refusal.${code}`;
  const params = options.params ?? {};
  return new AppError(options.status ?? 'CONFLICT', validationMessage('en', key, params, options.field), {
    ...(options.field ? { field: options.field } : {}),
    key,
    params,
    details: { reason: options.reason ?? code, ...options.details },
  });
}

/**
 * Runs a lifecycle transition (src/lib/lending/lifecycle) and words its refusal like any other:
 * the state machines name why in `details.reason` with an English message; the caller gets
 * `refusal.<reason>` in their language, same status and reason.
 */
export function wordedTransition<T>(transition: () => T): T {
  try {
    return transition();
  } catch (error) {
    const reason = error instanceof AppError && !error.key ? error.details?.reason : undefined;
    if (typeof reason !== 'string' || !(error instanceof AppError)) throw error;
    throw refusal(reason, { status: error.code });
  }
}
