import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, signIn, test } from './support/fixtures.ts';

async function seriousViolations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }));
}

test.describe('[SHELL]: accessibility', () => {
  test('login has no serious or critical violation', async ({ page }) => {
    await page.goto('/user/login');
    expect(await seriousViolations(page)).toEqual([]);
  });

  for (const [name, path] of [
    ['home', '/'],
    ['403', '/403'],
    ['section 403', '/admin/user/users'],
    ['404', '/loans/no-such-page'],
    ['profile', '/loans/user/profile'],
    ['downloads', '/loans/user/downloads-list'],
  ] as const) {
    test(`${name} has no serious or critical violation`, async ({ page }) => {
      await signIn(page, 'officer@demo.test');
      await page.goto(path);
      await page.waitForLoadState('networkidle');
      expect(await seriousViolations(page)).toEqual([]);
    });
  }

  test('the admin error-reports list has no serious or critical violation', async ({ page }) => {
    await signIn(page, 'admin@demo.test');
    await page.goto('/admin/platform/error-reports');
    expect(await seriousViolations(page)).toEqual([]);
  });
});
