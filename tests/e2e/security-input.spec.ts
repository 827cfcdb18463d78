import type { APIResponse } from '@playwright/test';
import { expect, signIn, test } from './support/fixtures.ts';
import { API_ROUTES, ROUTES } from '#lib/auth/route-manifest.ts';
import { LISTS } from '#lib/lists/registry.ts';
import { rawRequest } from './support/http-raw.ts';
import {
  BAD_CURSORS,
  BAD_IDS,
  BAD_LIST_PARAMS,
  BAD_NUMBERS,
  MALFORMED_VALUES,
  ODD_METHODS,
  SQL_LIKE_TEXT,
} from './support/payloads-input.ts';

// A client's mistake in a query parameter, a path id or a method is a 400, 404
// or 405 — never a 5xx — and /v1 answers name the field in the product's JSON error shape. Routes
// come from the route manifest, so a new list, search or page is probed without editing this file.

const NONE = '00000000-0000-4000-8000-000000000000';
const LIST_NAMES = Object.keys(LISTS);

/** The /v1 GET routes, made concrete: every list for /v1/lists/:name, an unknown id elsewhere. */
function apiGetUrls(): string[] {
  const urls: string[] = [];
  for (const route of API_ROUTES) {
    if (!route.methods.GET || route.methods.GET.kind === 'public' || route.pattern.endsWith('/**')) continue;
    if (route.pattern === '/v1/lists/:name') urls.push(...LIST_NAMES.map((name) => `/v1/lists/${name}`));
    else urls.push(route.pattern.replace(':list', 'customers').replace(/:\w+/g, NONE));
  }
  return urls;
}

/** Every signed-in page of the manifest, with an unknown id for its params. */
const PAGE_URLS = ROUTES.filter((r) => r.rule.kind !== 'public').map((r) => r.pattern.replace(/:\w+/g, NONE));
/** Pages that read list/search parameters. */
const LIST_PAGES = [...new Set(Object.values(LISTS).map((entry) => entry.path))];

const withQuery = (url: string, query: string) => `${url}${url.includes('?') ? '&' : '?'}${query}`;

async function expectClientError(response: APIResponse, url: string, statuses: number[], field?: string | RegExp) {
  const status = response.status();
  expect(statuses, `${url} answered ${status}`).toContain(status);
  if (!url.startsWith('/v1/') || status === 404 || field === undefined) return;
  const body = (await response.json()) as { error?: { code?: string; field?: string; message?: string } };
  expect(body.error?.code, url).toBe('BAD_REQUEST');
  if (typeof field === 'string') expect(body.error?.field, url).toBe(field);
  else expect(body.error?.field ?? '', url).toMatch(field);
}

/** Runs `fn` over `items`, a few at a time (one shared server on two cores). */
async function each<T>(items: readonly T[], fn: (item: T) => Promise<void>, width = 6) {
  for (let i = 0; i < items.length; i += width) await Promise.all(items.slice(i, i + width).map(fn));
}

test.describe('[SECURITY]: client mistakes are 4xx naming the field', () => {
  test.beforeEach(async ({ request }) => {
    await signIn(request, 'admin@demo.test');
  });

  test('malformed values (NUL, control characters, bad UTF-8, overlong, surrogates, 10k) on every /v1 GET and list page', async ({
    request,
  }) => {
    // About 27 values × 3 parameters × every /v1 GET route (issue 15 added 17, issue 16 about 20):
    // several thousand requests.
    test.setTimeout(900_000);
    const cases = [...apiGetUrls(), ...LIST_PAGES].flatMap((url) =>
      MALFORMED_VALUES.flatMap((value) =>
        [
          ['q', value],
          ['search', value],
          ['limit', value],
        ].map(([name, v]) => ({ url, name: name!, value: v! })),
      ),
    );
    await each(cases, async ({ url, name, value }) => {
      const target = withQuery(url, `${name}=${value}`);
      await expectClientError(await request.get(target, { maxRedirects: 0 }), target, [400], name);
    });
  });

  test('every signed-in page refuses a NUL and a bad byte in its query, with the 400 page', async ({ request }) => {
    test.setTimeout(240_000);
    await each(PAGE_URLS, async (url) => {
      for (const query of ['q=a%00b', 'x=%FF', 'page=%ED%A0%80']) {
        const response = await request.get(withQuery(url, query), { maxRedirects: 0 });
        expect(response.status(), `${url}?${query}`).toBe(400);
        expect(await response.text(), url).toMatch(/Bad Request/);
      }
    });
  });

  test('/v1 numbers, cursors and ids of the wrong type are 400s naming the parameter', async ({ request }) => {
    test.setTimeout(180_000);
    const lists = LIST_NAMES.map((name) => `/v1/lists/${name}`);
    const numbered = ['/v1/customers', '/v1/loans', '/v1/offers', '/v1/applications', '/v1/error-reports', ...lists];
    await each(
      numbered.flatMap((url) => BAD_NUMBERS.map((n) => withQuery(url, `limit=${n}`))),
      async (url) => {
        await expectClientError(await request.get(url), url, [400], 'limit');
      },
    );
    await each(
      ['/v1/loans', ...lists].flatMap((url) => BAD_CURSORS.map((c) => withQuery(url, `cursor=${c}`))),
      async (url) => {
        await expectClientError(await request.get(url), url, [400], 'cursor');
      },
    );
    await each(
      ['/v1/loans', '/v1/offers'].flatMap((url) => BAD_IDS.map((id) => withQuery(url, `customerId=${id}`))),
      async (url) => {
        await expectClientError(await request.get(url), url, [400], 'customerId');
      },
    );
    await each(
      lists.flatMap((url) => BAD_LIST_PARAMS.map((p) => withQuery(url, p))),
      async (url) => {
        await expectClientError(await request.get(url), url, [400], /\S/);
      },
    );
    // Repeated and array-style parameters are named too.
    for (const url of [
      '/v1/customers?limit=5&limit=6',
      '/v1/loans?limit[]=5',
      '/v1/offers?status=pending&status=expired',
    ]) {
      await expectClientError(await request.get(url), url, [400], /^(limit|limit\[\]|status)$/);
    }
  });

  test('a foreign or unknown branch, customer or view in the query is a 404, never a 500', async ({
    request,
    playwright,
    baseURL,
  }) => {
    const acme = await playwright.request.newContext({ baseURL });
    await signIn(acme, 'admin@acme.test');
    const { items } = (await (await acme.get('/v1/customers?limit=1')).json()) as {
      items: { id: string; branchId?: string | null }[];
    };
    await acme.dispose();
    const foreign = items[0]?.id ?? NONE;
    for (const id of [foreign, NONE]) {
      for (const url of LIST_NAMES.map((name) => `/v1/lists/${name}?scope=branch:${id}`)) {
        const response = await request.get(url);
        expect(response.status(), url).toBe(404);
        expect(((await response.json()) as { error: { field?: string } }).error.field, url).toBe('scope');
      }
      for (const url of [
        `/v1/loans?customerId=${id}`,
        `/v1/offers?customerId=${id}`,
        `/v1/lists/customers?view=${id}`,
      ]) {
        expect((await request.get(url)).status(), url).toBeLessThan(500);
      }
    }
  });

  test('SQL-looking and unusual search text is answered normally', async ({ request }) => {
    for (const text of SQL_LIKE_TEXT) {
      for (const url of [
        `/v1/customers?search=${text}`,
        ...LIST_NAMES.map((name) => `/v1/lists/${name}?q=${text}`),
        ...LIST_PAGES.map((p) => `${p}?q=${text}`),
      ]) {
        expect((await request.get(url)).status(), url).toBe(200);
      }
    }
  });

  test('an export whose list query holds a NUL or a bad value is refused, naming the query', async ({
    request,
    baseURL,
  }) => {
    for (const query of ['q=a\u0000b', 'q=%00', 'limit=%FF', 'cursor=%ED%A0%80']) {
      const response = await request.post('/v1/exports', {
        headers: { origin: baseURL!, 'content-type': 'application/json' },
        data: { list: 'customers', query, format: 'csv' },
      });
      expect(response.status(), query).toBe(400);
      expect(((await response.json()) as { error: { field?: string } }).error.field, query).toBe('query');
    }
  });

  test('odd methods are 405 with Allow, on pages and /v1 alike', async ({ baseURL }) => {
    const targets = [
      '/',
      '/loans/customers',
      '/user/login',
      '/v1/customers',
      '/v1/lists/customers',
      `/loans/customer/profile/${NONE}`,
    ];
    for (const path of targets) {
      for (const method of ODD_METHODS) {
        const response = await rawRequest(baseURL!, method, method === 'CONNECT' ? 'localhost:443' : path);
        expect(response.status, `${method} ${path}`).toBe(405);
        expect(response.headers.allow, `${method} ${path}`).toMatch(/GET/);
      }
    }
  });

  test('pages answer 405 to methods they do not take; /v1 routes list theirs in Allow', async ({ request }) => {
    for (const method of ['PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      const response = await request.fetch('/loans/customers', { method, maxRedirects: 0 });
      expect(response.status(), method).toBe(405);
      expect(response.headers().allow).toBe('GET, HEAD, POST');
    }
    const response = await request.fetch('/v1/customers', { method: 'DELETE' });
    expect(response.status()).toBe(405);
    expect(response.headers().allow).toBe('GET, POST, HEAD');
  });
});
