import ky, { type KyInstance } from 'ky';
import {
  buildContext,
  describeHttpFailure,
  isErrorReportUrl,
  sendErrorReport,
  shouldSend,
  toPayload,
} from './error-report.ts';

/**
 * The islands' JSON client: base /v1, same-origin cookies, JSON in and out, and an automatic error
 * report for every failed call except one to /v1/error-reports itself. The error is
 * re-thrown unchanged, so callers still show their own error alert.
 */
export function createApi(
  options: { module?: string; fetch?: typeof fetch; /** Only for tests outside a browser. */ baseUrl?: string } = {},
): KyInstance {
  const fetchImpl = options.fetch ?? ((...args: Parameters<typeof fetch>) => globalThis.fetch(...args));
  return ky.create({
    prefix: '/v1',
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    credentials: 'same-origin',
    headers: { accept: 'application/json' },
    // Back-office calls are not idempotent enough to retry blindly; the UI offers Retry instead.
    retry: 0,
    timeout: 30_000,
    fetch: fetchImpl,
    hooks: {
      beforeError: [
        async ({ error, request }) => {
          if (!isErrorReportUrl(request.url)) {
            const failure = error as Error & { response?: Response; data?: unknown };
            let body: string | undefined;
            if (failure.response && failure.data === undefined) {
              body = await failure.response
                .clone()
                .text()
                .catch(() => '');
            }
            const payload = toPayload(
              describeHttpFailure(failure as never, body),
              buildContext({ url: request.url, method: request.method, module: options.module }),
              'auto',
            );
            if (shouldSend(payload)) void sendErrorReport(payload, fetchImpl);
          }
          return error;
        },
      ],
    },
  });
}

/** The shared client; islands that want their name in reports call createApi({ module }). */
export const api = createApi({ module: 'islands/lib/api' });

type ErrorBody = { message?: string; field?: string; [detail: string]: unknown };

/**
 * The server's one error shape, `{ error: { code, message, field?, …details } }`, or the HTTP status
 * line. `field` lets a form mark the refused input; `details` carry e.g. an overpayment's credit.
 */
export async function errorMessageOf(
  error: unknown,
): Promise<{ status: number; message: string; field?: string; details?: ErrorBody }> {
  const failure = error as { response?: Response; data?: unknown; message?: string };
  if (failure?.response) {
    let body = (failure.data as { error?: ErrorBody } | undefined)?.error;
    if (!body?.message) {
      try {
        body = ((await failure.response.clone().json()) as { error?: ErrorBody })?.error;
      } catch {
        /* not JSON */
      }
    }
    const message = body?.message ?? `HTTP ${failure.response.status} - ${failure.response.statusText}`;
    return {
      status: failure.response.status,
      message,
      ...(typeof body?.field === 'string' ? { field: body.field } : {}),
      ...(body ? { details: body } : {}),
    };
  }
  return { status: 500, message: failure?.message || 'Unknown error' };
}
