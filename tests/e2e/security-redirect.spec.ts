import type { Browser, BrowserContext, Page } from '@playwright/test';
import { DEMO_PASSWORD, expect, test } from './support/fixtures.ts';
import { HOSTILE_REDIRECTS, SAME_ORIGIN_ODDITIES } from './support/payloads-redirect.ts';

// Open redirect: for each hostile ?redirect=, follow what the server answers in
// Chromium, as a user would; the browser must end on our own origin. Every payload goes through the
// login page a signed-in browser is sent on from and through the JSON sign-in; every fifth one also
// through a full sign-in with the login form (the slow path, same code: finishSignIn → safeRedirect).
// The account is the security tests' own (E2E_PLANS_TENANT in src/lib/seed/demo.ts), on its own client IP.
const ACCOUNT = 'redirect@plans.test';
const PAYLOADS = [...HOSTILE_REDIRECTS, ...SAME_ORIGIN_ODDITIES];
const HEADERS = { 'x-forwarded-for': '198.51.100.203' };

test.describe.configure({ mode: 'serial' });

async function signInThroughForm(page: Page, redirect: string): Promise<void> {
  await page.goto(`/user/login?redirect=${encodeURIComponent(redirect)}`);
  await page.getByLabel('Email').fill(ACCOUNT);
  await page.getByLabel('Password').fill(DEMO_PASSWORD);
  await Promise.all([
    page.waitForURL((url) => url.pathname !== '/user/login', { timeout: 15_000 }).catch(() => undefined),
    page.getByRole('button', { name: 'Sign in', exact: true }).click(),
  ]);
  await page.waitForLoadState('load');
}

test.describe('[SECURITY]: open redirect after sign-in', () => {
  let context: BrowserContext;
  let page: Page;
  test.beforeAll(async ({ browser, baseURL }: { browser: Browser; baseURL: string | undefined }) => {
    context = await browser.newContext({ baseURL, extraHTTPHeaders: HEADERS });
    page = await context.newPage();
    await signInThroughForm(page, '/');
  });
  test.afterAll(() => context?.close());

  for (const [index, payload] of PAYLOADS.entries()) {
    test(`#${index} ${JSON.stringify(payload).slice(0, 60)}`, async ({ baseURL }) => {
      const origin = new URL(baseURL!).origin;
      // Signed in, the login page sends the browser on at once: it must stay on our origin. A value with
      // control characters or bytes that are not UTF-8 is refused before the page (400, the query
      // layer of class 10): nothing to follow, which is as safe.
      const response = await page.request.get(`/user/login?redirect=${encodeURIComponent(payload)}`, {
        maxRedirects: 0,
      });
      const isRefused = response.status() === 400;
      if (isRefused) expect(response.headers().location).toBeUndefined();
      else {
        expect(response.status()).toBe(303);
        expect(response.headers().location).toMatch(/^\/(?![/\\])/);
      }
      if (index % 5 === 0 && !isRefused) {
        // The login form, submitted as a browser does: where does the browser end?
        await context.clearCookies();
        await signInThroughForm(page, payload);
        expect(new URL(page.url()).origin).toBe(origin);
        expect(new URL(page.url()).pathname).not.toBe('/user/login');
      }
      await page.goto(`/user/login?redirect=${encodeURIComponent(payload)}`);
      expect(new URL(page.url()).origin).toBe(origin);

      // The JSON sign-in answers a same-origin path too.
      const api = await page.request.post('/v1/auth/sign-in', {
        headers: { origin },
        data: { email: ACCOUNT, password: DEMO_PASSWORD, redirect: payload.slice(0, 2000) },
      });
      expect(api.status()).toBe(200);
      const { redirect } = (await api.json()) as { redirect: string };
      expect(redirect).toMatch(/^\/(?![/\\])/);
      expect(new URL(redirect, origin).origin).toBe(origin);
    });
  }
});
