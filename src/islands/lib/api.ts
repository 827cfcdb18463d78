import ky, { type KyInstance } from 'ky';
import { buildContext, describeHttpFailure, isErrorReportUrl, sendErrorReport, shouldSend, toPayload } from './error-report.ts';

/**
 * The islands' JSON client: base /v1, same-origin cookies, JSON in and out, and an automatic error
 * report (spec §8) for every failed call except one to /v1/error-reports itself. The error is
 * re-thrown unchanged, so callers still show their own error alert.
 */
export function createApi(options: { module?: string; fetch?: typeof fetch; /** Only for tests outside a browser. */ baseUrl?: string } = {}): KyInstance {
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
              body = await failure.response.clone().text().catch(() => '');
            }
            const payload = toPayload(describeHttpFailure(failure as never, body), buildContext({ url: request.url, method: request.method, module: options.module }), 'auto');
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

/** The server's one error shape, `{ error: { code, message, field? } }`, or the HTTP status line. */
export async function errorMessageOf(error: unknown): Promise<{ status: number; message: string }> {
  const failure = error as { response?: Response; data?: unknown; message?: string };
  if (failure?.response) {
    const data = failure.data as { error?: { message?: string } } | undefined;
    let message = data?.error?.message;
    if (!message) {
      try {
        message = ((await failure.response.clone().json()) as { error?: { message?: string } })?.error?.message;
      } catch {
        /* not JSON */
      }
    }
    return { status: failure.response.status, message: message ?? `HTTP ${failure.response.status} - ${failure.response.statusText}` };
  }
  return { status: 500, message: failure?.message || 'Unknown error' };
}
