import { appOrigin, DEMO_PASSWORD, expect, signIn, test } from './support/fixtures.ts';

// The browser's clock is driven by Playwright, so the tenant's configured timeout passes in an
// instant instead of the test waiting for it.
test.describe('[SHELL]: idle auto-logout', () => {
  test('an idle browser is signed out to login with its origin kept, and its old session is refused', async ({
    page,
  }) => {
    await page.clock.install();
    await signIn(page, 'analyst@demo.test');
    await page.goto('/analytics/user/profile?tab=sessions#security');
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    const me = await page.request.get('/v1/users/me');
    expect(me.status()).toBe(200);
    const timeoutSeconds = 1800; // demo tenant auto_logout.timeout for non-admins (src/lib/seed/demo.ts)
    // Activity restarts the countdown.
    await page.clock.runFor((timeoutSeconds - 5) * 1000);
    await page.mouse.move(10, 10);
    await page.clock.runFor(10_000);
    await expect(page).toHaveURL(/\/analytics\/user\/profile/);
    await page.clock.runFor(timeoutSeconds * 1000);
    await page.waitForURL(/\/user\/login/);
    expect(new URL(page.url()).searchParams.get('redirect')).toBe('/analytics/user/profile?tab=sessions#security');
    expect((await page.request.get('/v1/users/me')).status()).toBe(401);
  });
});

// A lender configured with a 4-second idle timeout (E2E fixture in src/lib/seed/demo.ts): real time,
// no clock tricks, so both the browser's timer and the server's own check are what is tested.
test.describe('[SHELL]: short configured idle timeout', () => {
  test('the browser signs out to login keeping its origin, and the server refuses an idle session by itself', async ({
    page,
    playwright,
    baseURL,
  }) => {
    await signIn(page, 'idle.user@idle.test');
    await page.goto('/analytics/user/profile?tab=sessions#security');
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await page.waitForURL(/\/user\/login/, { timeout: 15_000 });
    expect(new URL(page.url()).searchParams.get('redirect')).toBe('/analytics/user/profile?tab=sessions#security');

    // A second client that simply stops making requests: no sign-out call is ever sent, so a 401
    // afterwards can only come from the server's idle check.
    const api = await playwright.request.newContext({ baseURL });
    const signedIn = await api.post('/v1/auth/sign-in', {
      data: { email: 'idle.user@idle.test', password: DEMO_PASSWORD },
      headers: { origin: appOrigin() },
    });
    expect(signedIn.status()).toBe(200);
    expect((await api.get('/v1/users/me')).status()).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect((await api.get('/v1/users/me')).status()).toBe(401);
    await api.dispose();
  });
});
