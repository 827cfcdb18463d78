import { expect, test } from '@playwright/test';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.ts';

// The e2e server's lender 'sso' points at this provider (E2E_OIDC_ISSUER, playwright.config.ts).
const OIDC_PORT = Number(process.env.E2E_OIDC_PORT ?? 4398);
const APP = `http://localhost:${Number(process.env.E2E_PORT ?? 4399)}`;
let idp: TestOidcProvider;

test.beforeAll(async () => {
  idp = await startOidcProvider({
    port: OIDC_PORT,
    clientId: 'lending-e2e',
    clientSecret: 'e2e-client-secret-0123456789abcdef',
    redirectUris: [`${APP}/v1/auth/oidc/callback`],
    postLogoutRedirectUris: [`${APP}/user/login?message=signed_out`],
  });
  idp.setAccount({ sub: 'sso-subject-1', email: 'sso.user@sso.test' });
});
test.afterAll(() => idp?.close());

test('[AUTH]: single sign-on against a real OpenID provider, then RP-initiated logout', async ({ page }) => {
  await page.goto('/user/login?tenant=sso');
  await page.getByTestId('sso-button').click();
  await expect(page).toHaveURL((url) => url.pathname === '/');
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Sasha SSO');
  const out = await page.evaluate(async () =>
    (
      await fetch('/v1/auth/sign-out', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    ).json(),
  );
  expect(out.redirect).toContain(`localhost:${OIDC_PORT}/session/end`);
  expect((await page.request.get('/v1/users/me')).status()).toBe(401);
});

test('[AUTH]: single sign-on refuses a tampered state', async ({ page }) => {
  await page.goto('/user/login?tenant=sso');
  const start = await page.getByTestId('sso-button').getAttribute('href');
  // Walk the redirects with the browser context's own cookie jar (page.request shares it) and stop at
  // our callback, so the untouched callback never runs; then the browser opens it with the state altered.
  let location = start!;
  for (let hop = 0; hop < 10 && !location.startsWith(`${APP}/v1/auth/oidc/callback`); hop++) {
    const response = await page.request.get(location, { maxRedirects: 0 });
    expect(response.status(), `hop ${hop} to ${location}`).toBeGreaterThanOrEqual(300);
    location = new URL(response.headers().location, location.startsWith('http') ? location : APP).href;
  }
  const tampered = new URL(location);
  expect(tampered.searchParams.get('code')).toBeTruthy();
  tampered.searchParams.set('state', `${tampered.searchParams.get('state')}tampered`);
  await page.goto(tampered.href);
  await expect(page).toHaveURL(/\/user\/login\?message=sso_failed/);
  await expect(page.getByRole('status')).toHaveText('Single sign-on failed. Please try again.');
  expect((await page.request.get('/v1/users/me')).status()).toBe(401);
});
