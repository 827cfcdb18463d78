/**
 * Error reports, built in the browser and sent to POST /v1/error-reports. Pure functions
 * (message formats, context) are separate from sending so they can be tested without a browser.
 */
export const ERROR_REPORT_PATH = '/v1/error-reports';

export type ErrorReportContext = {
  url?: string;
  method?: string;
  page_url?: string;
  user_agent?: string;
  screen?: { width: number; height: number };
  timestamp?: string;
  module?: string;
};

export type ErrorReportPayload = {
  message: string;
  stack: string;
  context: ErrorReportContext;
  report_type: 'auto' | 'manual';
};

type ResponseLike = { status: number; statusText: string };
/** The shape ky's HTTPError, NetworkError and TimeoutError share: a request, maybe a response. */
type HttpFailure = { request?: unknown; response?: ResponseLike | null; data?: unknown };

function bodyText(data: unknown): string {
  if (data === undefined || data === null) return '';
  if (typeof data === 'string') return data;
  try {
    return JSON.stringify(data);
  } catch {
    return String(data);
  }
}

/** True for errors that come from an HTTP call (ky errors carry the request). */
export function isHttpFailure(error: unknown): error is HttpFailure {
  return typeof error === 'object' && error !== null && ('response' in error || 'request' in error);
}

/**
 * The report's message and stack of a failed HTTP call: with a response, 'HTTP {status} - {statusText}'
 * and the response body as the stack; with no response, 'No response received from server';
 * otherwise the error's own message.
 */
export function describeHttpFailure(
  error: HttpFailure & { message?: string; stack?: string },
  responseBody?: string,
): { message: string; stack: string } {
  if (error.response) {
    return {
      message: `HTTP ${error.response.status} - ${error.response.statusText}`,
      stack: responseBody ?? bodyText(error.data),
    };
  }
  if (error.request) return { message: 'No response received from server', stack: error.stack ?? '' };
  return { message: error.message || 'Unknown error', stack: error.stack ?? '' };
}

/** Non-HTTP errors (uncaught exceptions, rejections): their message, or 'Unknown error'. */
export function describeError(error: unknown): { message: string; stack: string } {
  if (isHttpFailure(error)) return describeHttpFailure(error as never);
  if (error instanceof Error) return { message: error.message || 'Unknown error', stack: error.stack ?? '' };
  if (typeof error === 'string' && error) return { message: error, stack: '' };
  if (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { message?: unknown }).message === 'string' &&
    (error as { message: string }).message
  ) {
    return { message: (error as { message: string }).message, stack: '' };
  }
  return { message: 'Unknown error', stack: '' };
}

/** The context: the call (if any), the page, the browser, the time, the module that reported. */
export function buildContext(
  args: { url?: string; method?: string; module?: string; now?: Date } = {},
): ErrorReportContext {
  const w = typeof window === 'undefined' ? undefined : window;
  return {
    ...(args.url ? { url: args.url } : {}),
    ...(args.method ? { method: args.method.toUpperCase() } : {}),
    page_url: w?.location.href,
    user_agent: w?.navigator.userAgent,
    screen: w ? { width: w.screen.width, height: w.screen.height } : undefined,
    timestamp: (args.now ?? new Date()).toISOString(),
    module: args.module,
  };
}

/** The endpoint caps these; cutting here too keeps a huge body from being refused outright. */
export function toPayload(
  described: { message: string; stack: string },
  context: ErrorReportContext,
  reportType: 'auto' | 'manual',
): ErrorReportPayload {
  return {
    message: described.message.slice(0, 2000),
    stack: described.stack.slice(0, 20000),
    context,
    report_type: reportType,
  };
}

export function isErrorReportUrl(url: string): boolean {
  try {
    return new URL(url, 'http://x').pathname.replace(/\/+$/, '') === ERROR_REPORT_PATH;
  } catch {
    return false;
  }
}

/**
 * Sends one report with plain fetch, never through the ky client: a failing report must not
 * report itself. Resolves true when the server stored it.
 */
export async function sendErrorReport(payload: ErrorReportPayload, fetchImpl: typeof fetch = fetch): Promise<boolean> {
  try {
    const response = await fetchImpl(ERROR_REPORT_PATH, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(payload),
      keepalive: true,
    });
    return response.ok;
  } catch {
    return false;
  }
}

// A burst of identical failures (a polling loop against a dead server) is reported once a minute.
const recent = new Map<string, number>();
const DEDUPE_MS = 60_000;

export function shouldSend(payload: ErrorReportPayload, now = Date.now()): boolean {
  if (payload.report_type === 'manual') return true;
  const key = `${payload.message}\n${payload.context.url ?? ''}\n${payload.context.method ?? ''}`;
  const last = recent.get(key);
  if (last !== undefined && now - last < DEDUPE_MS) return false;
  recent.set(key, now);
  if (recent.size > 200) recent.delete(recent.keys().next().value as string);
  return true;
}

export function resetReportDedupe(): void {
  recent.clear();
}

/** Reports an uncaught error or unhandled rejection, once per burst. */
export function reportUncaught(error: unknown, module?: string, fetchImpl?: typeof fetch): Promise<boolean> {
  const payload = toPayload(describeError(error), buildContext({ module }), 'auto');
  if (!shouldSend(payload)) return Promise.resolve(false);
  return sendErrorReport(payload, fetchImpl);
}

let installed = false;
/** Installs window handlers for uncaught errors and unhandled rejections, once per page. */
export function installGlobalErrorReporting(module = 'app'): void {
  if (installed || typeof window === 'undefined') return;
  installed = true;
  window.addEventListener('error', (event) => {
    void reportUncaught(event.error ?? event.message, module);
  });
  window.addEventListener('unhandledrejection', (event) => {
    void reportUncaught(event.reason, module);
  });
}
