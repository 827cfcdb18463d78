/**
 * The one error type of the domain. A code says what went wrong in terms a caller can act on; the
 * code decides the HTTP status; `userMessage` is safe to show, `internal` never leaves the server.
 */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  ALREADY_EXISTS: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNPROCESSABLE: 422,
  TOO_MANY_REQUESTS: 429,
  LIMIT_REACHED: 402,
  INTERNAL: 500,
  UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  readonly code: ErrorCode;
  /** Field the error is about (bad input), so forms and CLIs can name it. */
  readonly field: string | undefined;
  readonly internal: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  /**
   * Message key under `validation:messages` (e.g. 'money.tooLarge') and its parameters: the answer
   * is written in the request's language, with the field's label (src/lib/errors/messages.ts).
   */
  readonly key: string | undefined;
  readonly params: Record<string, string | number> | undefined;

  constructor(
    code: ErrorCode,
    userMessage: string,
    opts: {
      field?: string;
      internal?: string;
      details?: Record<string, unknown>;
      cause?: unknown;
      key?: string;
      params?: Record<string, string | number>;
    } = {},
  ) {
    super(userMessage, { cause: opts.cause });
    this.name = 'AppError';
    this.code = code;
    this.field = opts.field;
    this.internal = opts.internal;
    this.details = opts.details;
    this.key = opts.key;
    this.params = opts.params;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  toJSON(): Record<string, unknown> {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.field ? { field: this.field } : {}),
        ...(this.key ? { key: this.key, params: this.params ?? {} } : {}),
        ...(this.details ?? {}),
      },
    };
  }
}

/** Postgres error codes we translate rather than surface as 500s. */
const PG_UNIQUE_VIOLATION = '23505';
const PG_SERIALIZATION_FAILURE = '40001';
const PG_DEADLOCK = '40P01';

export function pgCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function isRetryableTxError(error: unknown): boolean {
  const code = pgCode(error);
  return code === PG_SERIALIZATION_FAILURE || code === PG_DEADLOCK;
}

/** Turns driver errors that callers can act on into AppErrors; anything else passes through. */
export function toAppError(error: unknown): unknown {
  if (error instanceof AppError) return error;
  if (pgCode(error) === PG_UNIQUE_VIOLATION) {
    return new AppError('ALREADY_EXISTS', 'This record already exists.', {
      internal: String((error as Error).message),
      cause: error,
    });
  }
  if (isRetryableTxError(error)) {
    return new AppError('CONFLICT', 'The record was changed by someone else at the same time; please try again.', {
      cause: error,
    });
  }
  return error;
}
