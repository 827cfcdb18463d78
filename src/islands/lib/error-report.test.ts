import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createApi } from './api.ts';
import {
  describeError,
  describeHttpFailure,
  isErrorReportUrl,
  resetReportDedupe,
  type ErrorReportPayload,
} from './error-report.ts';

describe('error report message formats', () => {
  it('a response: HTTP {status} - {statusText}, the body as stack', () => {
    expect(
      describeHttpFailure({
        request: {},
        response: { status: 503, statusText: 'Service Unavailable' },
        data: { error: { code: 'UNAVAILABLE' } },
      }),
    ).toEqual({
      message: 'HTTP 503 - Service Unavailable',
      stack: '{"error":{"code":"UNAVAILABLE"}}',
    });
    expect(
      describeHttpFailure({ request: {}, response: { status: 404, statusText: 'Not Found' } }, 'plain body'),
    ).toEqual({ message: 'HTTP 404 - Not Found', stack: 'plain body' });
  });
  it('no response: No response received from server', () => {
    expect(describeHttpFailure({ request: {}, response: undefined, stack: 's' }).message).toBe(
      'No response received from server',
    );
  });
  it('otherwise the error’s own message', () => {
    expect(describeHttpFailure({ message: 'boom' }).message).toBe('boom');
    expect(describeHttpFailure({ message: '' }).message).toBe('Unknown error');
  });
  it('non-HTTP errors: their message or Unknown error', () => {
    expect(describeError(new TypeError('x is undefined')).message).toBe('x is undefined');
    expect(describeError(new Error('')).message).toBe('Unknown error');
    expect(describeError(undefined).message).toBe('Unknown error');
    expect(describeError(42).message).toBe('Unknown error');
    expect(describeError('text thrown').message).toBe('text thrown');
  });
  it('recognises the report endpoint', () => {
    expect(isErrorReportUrl('http://h/v1/error-reports')).toBe(true);
    expect(isErrorReportUrl('/v1/error-reports/')).toBe(true);
    expect(isErrorReportUrl('/v1/error-reports-x')).toBe(false);
  });
});

describe('the ky client reports failed calls', () => {
  let sent: { url: string; body: ErrorReportPayload }[];
  let fakeFetch: typeof fetch;
  let next: () => Promise<Response>;

  beforeEach(() => {
    resetReportDedupe();
    sent = [];
    fakeFetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (url.endsWith('/v1/error-reports')) {
        sent.push({ url, body: JSON.parse(String(init?.body)) });
        return new Response(null, { status: 201 });
      }
      return next();
    }) as never;
  });
  afterEach(() => vi.restoreAllMocks());

  const flush = () => new Promise((resolve) => setTimeout(resolve, 10));

  it('files HTTP {status} - {statusText} with the response body', async () => {
    next = async () =>
      new Response('{"error":{"code":"INTERNAL","message":"kaput"}}', {
        status: 500,
        statusText: 'Internal Server Error',
        headers: { 'content-type': 'application/json' },
      });
    const api = createApi({ fetch: fakeFetch, baseUrl: 'http://app.test/', module: 'test-island' });
    await expect(api.get('loans/1').json()).rejects.toThrow();
    await flush();
    expect(sent).toHaveLength(1);
    expect(sent[0].body.message).toBe('HTTP 500 - Internal Server Error');
    expect(sent[0].body.stack).toBe('{"error":{"code":"INTERNAL","message":"kaput"}}');
    expect(sent[0].body.report_type).toBe('auto');
    expect(sent[0].body.context).toMatchObject({
      url: 'http://app.test/v1/loans/1',
      method: 'GET',
      module: 'test-island',
    });
    expect(typeof sent[0].body.context.timestamp).toBe('string');
  });

  it('files No response received from server when the network fails', async () => {
    next = async () => {
      throw new TypeError('fetch failed');
    };
    const api = createApi({ fetch: fakeFetch, baseUrl: 'http://app.test/' });
    await expect(api.post('things', { json: {} }).json()).rejects.toThrow();
    await flush();
    expect(sent.map((s) => s.body.message)).toEqual(['No response received from server']);
    expect(sent[0].body.context.method).toBe('POST');
  });

  it('never reports a failure of the report endpoint itself', async () => {
    const failing = vi.fn(
      async () => new Response('no', { status: 500, statusText: 'Internal Server Error' }),
    ) as never;
    const api = createApi({ fetch: failing, baseUrl: 'http://app.test/' });
    await expect(api.post('error-reports', { json: {} })).rejects.toThrow();
    await flush();
    expect(failing).toHaveBeenCalledTimes(1);
  });

  it('does not report successful calls', async () => {
    next = async () => new Response('{"ok":true}', { status: 200, headers: { 'content-type': 'application/json' } });
    const api = createApi({ fetch: fakeFetch, baseUrl: 'http://app.test/' });
    expect(await api.get('ok').json()).toEqual({ ok: true });
    await flush();
    expect(sent).toEqual([]);
  });
});
