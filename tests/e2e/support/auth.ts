import fs from 'node:fs';
import path from 'node:path';
import { expect, type APIRequestContext, type Browser, type Page } from '@playwright/test';

/** The demo password the e2e server seeds (DEMO_PASSWORD unset → the documented default). */
export const DEMO_PASSWORD = process.env.DEMO_PASSWORD || 'Demo-Lender-2026!';

/** Signs in through the real login form, as a user would. */
export async function signIn(page: Page, email: string, password = DEMO_PASSWORD, query = ''): Promise<void> {
  await page.goto(`/user/login${query}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** A signed-in API client (same-origin, the session cookie of a real sign-in through the form). */
export async function apiSession(browser: Browser, email: string, baseURL: string): Promise<APIRequestContext> {
  const context = await browser.newContext({ baseURL, extraHTTPHeaders: { origin: baseURL } });
  const page = await context.newPage();
  await signIn(page, email);
  await expect(page).not.toHaveURL(/\/user\/login/);
  return context.request;
}

/** The newest message in the server's outbox (DATA_DIR/outbox) addressed to `to`, decoded to text. */
export async function latestMailTo(to: string, since: number): Promise<string> {
  const outbox = path.join(process.env.E2E_DATA_DIR ?? '', 'outbox');
  let found: string | undefined;
  await expect
    .poll(() => {
      if (!fs.existsSync(outbox)) return false;
      const files = fs.readdirSync(outbox).map((name) => path.join(outbox, name)).filter((file) => fs.statSync(file).mtimeMs >= since).sort();
      found = files.map((file) => fs.readFileSync(file, 'utf8')).reverse().find((text) => new RegExp(`^To: ${to.replace('.', '\\.')}`, 'mi').test(text));
      return Boolean(found);
    }, { timeout: 10_000 })
    .toBe(true);
  // quoted-printable bodies: soft line breaks and =XX escapes.
  return found!.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
