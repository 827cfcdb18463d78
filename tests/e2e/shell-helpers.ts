import { expect, type Page } from '@playwright/test';

/** The documented default demo password (README); the e2e server runs without DEMO_PASSWORD. */
export const DEMO_PASSWORD = process.env.DEMO_PASSWORD ?? 'Demo-Lender-2026!';

/**
 * Signs the browser context in through the identity API (the same call the login form makes), so
 * shell tests do not depend on the login page's markup. The cookie lands in the page's context.
 */
export async function signIn(page: Page, email: string): Promise<void> {
  const response = await page.request.post('/v1/auth/sign-in', {
    data: { email, password: DEMO_PASSWORD },
    headers: { origin: appOrigin() },
  });
  expect(response.status(), await response.text()).toBe(200);
  expect((await response.json()).status).toBe('signed-in');
}

/** The origin of the e2e server (playwright.config.ts), sent on API posts as a browser would. */
export function appOrigin(): string {
  return `http://localhost:${process.env.E2E_PORT ?? 4399}`;
}
