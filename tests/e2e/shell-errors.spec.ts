import { appOrigin, expect, signIn, test } from './support/fixtures.ts';

// The profile page's sessions island calls GET /v1/auth/sessions on load: the test makes that call
// fail in the browser and watches what the island sends to /v1/error-reports.
test.describe('[SHELL]: error reporting', () => {
  test('a failing island call files an automatic report with the expected message; Report error says it was sent', async ({
    page,
  }) => {
    await signIn(page, 'officer@demo.test');
    await page.route('**/v1/auth/sessions', (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: '{"error":{"code":"UNAVAILABLE","message":"Down for maintenance"}}',
      }),
    );
    const report = page.waitForRequest((r) => r.url().endsWith('/v1/error-reports') && r.method() === 'POST');
    await page.goto('/loans/user/profile');
    // The sessions island hydrates when it scrolls into view.
    await page.getByRole('heading', { name: 'Active sessions' }).scrollIntoViewIfNeeded();
    const sent = (await report).postDataJSON();
    expect(sent).toMatchObject({
      message: 'HTTP 503 - Service Unavailable',
      stack: '{"error":{"code":"UNAVAILABLE","message":"Down for maintenance"}}',
      report_type: 'auto',
    });
    expect(sent.context).toMatchObject({
      method: 'GET',
      page_url: expect.stringContaining('/loans/user/profile'),
      module: 'islands/lib/api',
    });
    expect(sent.context.url).toContain('/v1/auth/sessions');
    expect(sent.context.screen.width).toBeGreaterThan(0);
    expect(typeof sent.context.user_agent).toBe('string');
    expect(typeof sent.context.timestamp).toBe('string');

    // The error alert: status, the server's message, Retry and Report error.
    const alert = page.getByRole('alert').filter({ hasText: 'Down for maintenance' });
    await expect(alert).toContainText('503');
    await expect(alert.getByRole('button', { name: 'Retry' })).toBeVisible();
    await alert.getByRole('button', { name: 'Report error' }).click();
    await expect(alert.getByText('Error report sent, thank you!')).toBeVisible();

    // Both reports are stored and listed for administrators.
    await page.context().clearCookies();
    await signIn(page, 'admin@demo.test');
    await page.goto('/admin/platform/error-reports');
    await expect(page.getByText('HTTP 503 - Service Unavailable').first()).toBeVisible();
  });

  test('no response → No response received from server; a failing report says Failed to send error report', async ({
    page,
  }) => {
    await signIn(page, 'collector@demo.test');
    await page.route('**/v1/auth/sessions', (route) => route.abort('connectionrefused'));
    const report = page.waitForRequest((r) => r.url().endsWith('/v1/error-reports') && r.method() === 'POST');
    await page.goto('/loans/user/profile');
    await page.getByRole('heading', { name: 'Active sessions' }).scrollIntoViewIfNeeded();
    expect((await report).postDataJSON()).toMatchObject({
      message: 'No response received from server',
      report_type: 'auto',
    });

    await page.route('**/v1/error-reports', (route) => route.fulfill({ status: 500, body: 'nope' }));
    const alert = page.getByRole('alert').filter({ has: page.getByRole('button', { name: 'Retry' }) });
    await alert.getByRole('button', { name: 'Report error' }).click();
    await expect(page.getByText('Failed to send error report')).toBeVisible();
  });

  test('uncaught errors and unhandled rejections are reported with their message', async ({ page }) => {
    await signIn(page, 'officer@demo.test');
    await page.goto('/');
    // The shell keeper installs the handlers once its module script has run.
    await page.waitForLoadState('networkidle');
    const thrown = page.waitForRequest(
      (r) => r.url().endsWith('/v1/error-reports') && r.postDataJSON()?.message === 'boom from a click handler',
    );
    await page.evaluate(() =>
      setTimeout(() => {
        throw new Error('boom from a click handler');
      }),
    );
    expect((await thrown).postDataJSON()).toMatchObject({ report_type: 'auto', context: { module: 'shell' } });
    const rejected = page.waitForRequest(
      (r) => r.url().endsWith('/v1/error-reports') && r.postDataJSON()?.message === 'Unknown error',
    );
    await page.evaluate(() => void Promise.reject(undefined));
    expect((await rejected).postDataJSON().report_type).toBe('auto');
  });

  test('the report endpoint refuses oversized and malformed reports, naming the field', async ({ page }) => {
    await signIn(page, 'officer@demo.test');
    const bad = await page.request.post('/v1/error-reports', {
      data: { message: '', report_type: 'auto' },
      headers: { origin: appOrigin() },
    });
    expect(bad.status()).toBe(400);
    expect((await bad.json()).error.field).toBe('message');
  });
});
