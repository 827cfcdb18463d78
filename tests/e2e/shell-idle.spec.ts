import { expect, test } from '@playwright/test';
import { signIn } from './shell-helpers.ts';

// The browser's clock is driven by Playwright, so the tenant's configured timeout passes in an
// instant instead of the test waiting for it.
test.describe('[SHELL]: idle auto-logout', () => {
  test('an idle browser is signed out to login with its origin kept, and its old session is refused', async ({ page }) => {
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
