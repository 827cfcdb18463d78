import { test as base, expect, type APIRequestContext, type Browser, type Page } from '@playwright/test';

/**
 * The one way browser tests sign in. Specs import `test` and `expect` from here, and sign in with:
 *
 * - `signIn(pageOrRequest, email)`: through the identity API, the same call the login form makes, so
 *   a test that is not about the login page does not depend on its markup. The session cookie lands
 *   in the page's browser context (or in the request context given). It fails the test unless the
 *   user ends up signed in.
 * - `signInThroughForm(page, email, password?, query?)`: through the real login form, as a user
 *   would, for the tests about signing in (wrong passwords, throttling, MFA, redirects). It asserts
 *   nothing: the test checks where the form led.
 *
 * Inside a test, the `signIn` fixture is the first one bound to the test's page:
 * `test('…', async ({ signIn }) => { await signIn('officer@demo.test'); … })`.
 */

/** The documented default demo password (README); the e2e server runs without DEMO_PASSWORD. */
export const DEMO_PASSWORD = process.env.DEMO_PASSWORD || 'Demo-Lender-2026!';

/** The origin of the e2e server (playwright.config.ts), sent on API posts as a browser would. */
export function appOrigin(): string {
  return `http://localhost:${process.env.E2E_PORT ?? 4399}`;
}

/** Signs `email` in through the identity API; the cookie lands in the page's context or in `target`. */
export async function signIn(
  target: Page | APIRequestContext,
  email: string,
  password: string = DEMO_PASSWORD,
): Promise<void> {
  const request = 'request' in target ? target.request : target;
  const response = await request.post('/v1/auth/sign-in', {
    data: { email, password },
    headers: { origin: appOrigin() },
  });
  expect(response.status(), await response.text()).toBe(200);
  expect((await response.json()).status).toBe('signed-in');
}

/** Signs in through the real login form, as a user would. */
export async function signInThroughForm(
  page: Page,
  email: string,
  password = DEMO_PASSWORD,
  query = '',
): Promise<void> {
  await page.goto(`/user/login${query}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** A signed-in API client (same-origin, the session cookie of a real sign-in through the form). */
export async function apiSession(browser: Browser, email: string, baseURL: string): Promise<APIRequestContext> {
  const context = await browser.newContext({ baseURL, extraHTTPHeaders: { origin: baseURL } });
  const page = await context.newPage();
  await signInThroughForm(page, email);
  await expect(page).not.toHaveURL(/\/user\/login/);
  return context.request;
}

type Fixtures = {
  /** Signs `email` in through the identity API, in the test's own page. */
  signIn: (email: string, password?: string) => Promise<void>;
};

export const test = base.extend<Fixtures>({
  signIn: async ({ page }, use) => {
    await use((email, password) => signIn(page, email, password));
  },
});

export { expect };

/** Waits until every island of the page is hydrated, so a click reaches React and not the server's markup. */
export async function islandsHydrated(page: import('@playwright/test').Page): Promise<void> {
  await page.waitForLoadState('load');
  await page.waitForFunction(() =>
    [...document.querySelectorAll('astro-island')].every((island) => !island.hasAttribute('ssr')),
  );
}
