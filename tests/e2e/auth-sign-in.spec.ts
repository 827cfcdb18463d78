import { DEMO_PASSWORD, expect, signIn, signInThroughForm, test } from './support/fixtures.ts';

test('[AUTH]: admin signs in with email and password and lands on the home board', async ({ page }) => {
  await signInThroughForm(page, 'admin@demo.test');
  await expect(page).toHaveURL((url) => url.pathname === '/');
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Alice Admin');
});

test('[AUTH]: the login page speaks French for ?lang=fr and for a French browser', async ({ browser }) => {
  const context = await browser.newContext({ locale: 'fr-FR' });
  const page = await context.newPage();
  await page.goto('/user/login');
  await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
  await expect(page.getByLabel('Adresse e-mail')).toBeVisible();
  await expect(page.getByLabel('Mot de passe')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Se connecter' })).toBeVisible();
  await context.close();
  const english = await browser.newContext({ locale: 'fr-FR' });
  const page2 = await english.newPage();
  await page2.goto('/user/login?lang=en');
  await expect(page2.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
  await english.close();
});

test('[AUTH]: a protected page sends to login and back, keeping path, query and hash, with the redirect message', async ({
  page,
}) => {
  await page.goto('/user/login?message=You%20are%20not%20authorized%20to%20access%20the%20board.');
  await expect(page.getByRole('status')).toHaveText('You are not authorized to access the board.');
  await page.goto('/admin/user/profile?tab=security#sessions');
  await expect(page).toHaveURL(/\/user\/login\?redirect=/);
  await page.getByLabel('Email').fill('admin@demo.test');
  await page.getByLabel('Password').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page).toHaveURL(
    (url) => url.pathname === '/admin/user/profile' && url.search === '?tab=security' && url.hash === '#sessions',
  );
});

test('[AUTH]: a wrong password shows a clear error, and repeated failures are throttled', async ({ browser }) => {
  // A client address of its own (the e2e server trusts one proxy hop), so the lock hits nobody else.
  const context = await browser.newContext({ extraHTTPHeaders: { 'x-forwarded-for': '203.0.113.77' } });
  const page = await context.newPage();
  await signInThroughForm(page, 'collector@demo.test', 'not-the-password');
  await expect(page.getByRole('alert')).toHaveText('Incorrect email or password.');
  await expect(page.getByLabel('Email')).toHaveValue('collector@demo.test');
  for (let i = 0; i < 10; i++) await signInThroughForm(page, 'throttle.target@demo.test', `wrong-${i}`);
  await signInThroughForm(page, 'throttle.target@demo.test', 'still wrong');
  await expect(page.getByRole('alert')).toContainText('Too many failed attempts. Try again in');
  // The lock is on this address and that account: the collector can still sign in from elsewhere.
  await context.close();
});

test('[AUTH]: a user whose password must change is sent to reset-password and cannot go on until it changes', async ({
  page,
}) => {
  await signInThroughForm(page, 'e2e.forced@demo.test');
  await expect(page).toHaveURL(/\/user\/reset-password/);
  await expect(page.getByRole('status')).toContainText('Your administrator asks you to choose a new password');
  await page.goto('/');
  await expect(page).toHaveURL(/\/user\/reset-password/);
  await page.getByLabel('Current password').fill(DEMO_PASSWORD);
  await page.getByLabel('New password', { exact: true }).fill('short');
  await page.getByLabel('Confirm the new password').fill('short');
  // The browser's own minlength check would stop this form; submit past it to see the server's message.
  await page.locator('#new_password').evaluate((input: HTMLInputElement) => input.removeAttribute('minlength'));
  await page.getByRole('button', { name: 'Save the new password' }).click();
  await expect(page.getByRole('alert')).toHaveText('The password must be at least 12 characters long.');
  await page.getByLabel('Current password').fill(DEMO_PASSWORD);
  await page.getByLabel('New password', { exact: true }).fill('A fresh forced passphrase 7');
  await page.getByLabel('Confirm the new password').fill('A fresh forced passphrase 7');
  await page.getByRole('button', { name: 'Save the new password' }).click();
  await expect(page).toHaveURL((url) => url.pathname === '/');
});

test('[AUTH]: after logout the old session cookie is refused', async ({ page, context, request }) => {
  await signInThroughForm(page, 'e2e.logout@demo.test');
  await expect(page).toHaveURL((url) => url.pathname === '/');
  const cookies = await context.cookies();
  const session = cookies.find((c) => c.name === 'session');
  expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
  const header = `session=${session!.value}`;
  expect((await request.get('/v1/users/me', { headers: { cookie: header } })).status()).toBe(200);
  // The header's button (a plain script, no island): the browser lands on the login page.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL((url) => url.pathname === '/user/login');
  // Replaying the copied cookie: the server-side session is revoked.
  const replay = await request.get('/v1/users/me', { headers: { cookie: header } });
  expect(replay.status()).toBe(401);
  const page2 = await request.get('/', { headers: { cookie: header }, maxRedirects: 0 });
  expect(page2.status()).toBe(302);
  expect(page2.headers().location).toContain('/user/login');
});

test('[AUTH]: a late answer to the replaced session does not wipe the new sign-in', async ({
  page,
  context,
  request,
}) => {
  await signIn(page, 'analyst@demo.test');
  const first = (await context.cookies()).find((c) => c.name === 'session')!;
  // Signing in as someone else in the same browser ends the first session …
  await signIn(page, 'collector@demo.test');
  // … and a request still carrying the old cookie (a poll from a tab left open) is refused without
  // a Set-Cookie that would delete the browser's new session cookie.
  const stale = await request.get('/v1/users/me', { headers: { cookie: `session=${first.value}` } });
  expect(stale.status()).toBe(401);
  expect(stale.headersArray().filter((h) => h.name.toLowerCase() === 'set-cookie')).toEqual([]);
  const me = await page.request.get('/v1/users/me');
  expect(me.status()).toBe(200);
  expect((await me.json()).email).toBe('collector@demo.test');
});

test('[AUTH]: an API client uses a per-tenant token with x-tenant-id; revoking it applies at once', async ({
  page,
  playwright,
}) => {
  await signInThroughForm(page, 'admin@demo.test');
  await expect(page).toHaveURL((url) => url.pathname === '/');
  const created = await page.request.post('/v1/auth/api-tokens', { data: { name: 'e2e client' } });
  expect(created.status()).toBe(201);
  const { id, token } = await created.json();
  const api = await playwright.request.newContext({ baseURL: new URL(page.url()).origin });
  const me = await api.get('/v1/users/me', {
    headers: { authorization: `Bearer ${token}`, 'x-tenant-id': 'demo-eu1' },
  });
  expect(me.status()).toBe(200);
  expect((await me.json()).email).toBe('admin@demo.test');
  expect(
    (
      await api.get('/v1/users/me', { headers: { authorization: `Bearer ${token}`, 'x-tenant-id': 'acme-us1' } })
    ).status(),
  ).toBe(401);
  expect((await page.request.delete(`/v1/auth/api-tokens/${id}`)).status()).toBe(204);
  expect(
    (
      await api.get('/v1/users/me', { headers: { authorization: `Bearer ${token}`, 'x-tenant-id': 'demo-eu1' } })
    ).status(),
  ).toBe(401);
  await api.dispose();
});

test("[AUTH]: an administrator ends a user's sessions and the user's next request is refused", async ({ browser }) => {
  const userContext = await browser.newContext();
  const user = await userContext.newPage();
  await signInThroughForm(user, 'strategist@demo.test');
  await expect(user).toHaveURL((url) => !url.pathname.startsWith('/user/login'));
  const me = await user.request.get('/v1/users/me');
  expect(me.status()).toBe(200);
  const { id } = await me.json();

  const adminContext = await browser.newContext();
  const admin = await adminContext.newPage();
  await signInThroughForm(admin, 'admin@demo.test');
  await expect(admin).toHaveURL((url) => url.pathname === '/');
  const ended = await admin.request.post(`/v1/auth/users/${id}/end-sessions`, { data: {} });
  expect(ended.status()).toBe(200);
  expect((await ended.json()).ended).toBeGreaterThanOrEqual(1);
  expect((await user.request.get('/v1/users/me')).status()).toBe(401);
  await userContext.close();
  await adminContext.close();
});
