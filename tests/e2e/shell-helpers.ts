import { expect, type Page } from '@playwright/test';

/** The documented default demo password (README); the e2e server runs without DEMO_PASSWORD. */
export const DEMO_PASSWORD = process.env.DEMO_PASSWORD ?? 'Demo-Lender-2026!';

/**
 * Signs the browser context in through the identity API (the same call the login form makes), so
 * shell tests do not depend on the login page's markup. The cookie lands in the page's context.
 */
export async function signIn(page: Page, email: string): Promise<void> {
  const baseURL = (page.context() as unknown as { _options?: { baseURL?: string } })._options?.baseURL ?? 'http://localhost:4399';
  const response = await page.request.post('/v1/auth/sign-in', {
    data: { email, password: DEMO_PASSWORD },
    headers: { origin: new URL(baseURL).origin },
  });
  expect(response.status(), await response.text()).toBe(200);
  expect((await response.json()).status).toBe('signed-in');
}
