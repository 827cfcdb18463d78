import type { Page } from '@playwright/test';
import { Webhook } from 'standardwebhooks';
import { appOrigin, expect, signIn, test } from './support/fixtures.ts';
import { startReceiver } from '../support/webhook-receiver.ts';

// [WEBHOOKS] An administrator adds a webhook through the page (the secret shown once), a repayment
// made through the API reaches a real receiver started here, signed per Standard Webhooks (verified
// with the reference package); the delivery shows in the log, is resent with the same webhook-id, a
// test event goes out with its own; the pages read in French at 1024 px without sideways scrolling;
// a user without admin.webhooks.view gets 403. The e2e server runs with ALLOW_PRIVATE_TARGETS=1
// (playwright.config.ts) so it may reach the receiver on 127.0.0.1.

async function setLanguage(page: Page, locale: 'fr-FR' | 'en-US') {
  await page.goto('/admin/user/profile');
  await page.locator('#profile-language').selectOption(locale);
  await page.locator('form.form-stack button[type=submit]').click();
  await expect(page.locator('html')).toHaveAttribute('lang', locale.slice(0, 2));
}

test('[WEBHOOKS]: add a webhook, a repayment is delivered and verifies, resend, test event, French at 1024 px, 403 without the permission', async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const receiver = await startReceiver();
  try {
    await signIn(page, 'admin@demo.test');
    expect((await page.goto('/admin/notifications/webhooks'))?.status()).toBe(200);
    await page.getByRole('link', { name: 'Add a webhook' }).click();
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByLabel('Description').fill('E2E receiver <b>bold</b>');
    await page.getByRole('checkbox', { name: 'loan.repayment.created', exact: true }).check();
    await page.getByRole('button', { name: 'Add the webhook' }).click();
    const secret = (await page.getByTestId('webhook-secret').textContent())!.trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    await page.getByRole('link', { name: 'Open the webhook' }).click();
    const hookPath = new URL(page.url()).pathname;
    expect(hookPath).toMatch(/^\/admin\/notifications\/webhooks\/update\/[0-9a-f-]{36}$/);
    expect(await page.content()).not.toContain(secret); // shown once, never again

    // A repayment through the API emits loan.repayment.created.
    const loans = await page.request.get('/v1/loans?status=ACTIVE&limit=1');
    const loanId = (await loans.json()).items[0].id as string;
    const repaid = await page.request.post(`/v1/loans/${loanId}/repayments`, {
      data: { amount: '1.00' },
      headers: { 'Idempotency-Key': `webhooks-e2e-${Date.now()}`, origin: appOrigin() },
    });
    expect(repaid.status(), await repaid.text()).toBe(201);
    await receiver.waitFor(1, 30_000);
    const first = receiver.requests[0];
    const event = new Webhook(secret).verify(first.body, first.headers) as { type: string; data: { id: string } };
    expect(event.type).toBe('loan.repayment.created');
    expect(event.data.id).toBe(loanId);

    // The log shows it delivered, with its request and answer.
    const deliveries = page.getByTestId('webhook-delivery');
    await expect
      .poll(async () => {
        await page.goto(hookPath);
        return deliveries.filter({ hasText: 'Delivered' }).count();
      })
      .toBe(1);
    await expect(deliveries.first()).toContainText(first.headers['webhook-id']);
    await deliveries.first().getByText('Request and answers').click();
    await expect(deliveries.first()).toContainText('HTTP 200');
    await expect(deliveries.first()).toContainText('webhook-signature');

    // Resend: a new attempt of the same message, same webhook-id.
    await deliveries.first().getByRole('button', { name: 'Resend' }).click();
    await expect(page.getByRole('status')).toContainText('sent again');
    await receiver.waitFor(2, 30_000);
    expect(receiver.requests[1].headers['webhook-id']).toBe(first.headers['webhook-id']);
    new Webhook(secret).verify(receiver.requests[1].body, receiver.requests[1].headers);

    // Send a test event: type webhook.test, its own id.
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await receiver.waitFor(3, 30_000);
    const test = receiver.requests[2];
    expect((new Webhook(secret).verify(test.body, test.headers) as { type: string }).type).toBe('webhook.test');
    expect(test.headers['webhook-id']).not.toBe(first.headers['webhook-id']);
    await expect
      .poll(async () => {
        await page.goto(hookPath);
        return deliveries.filter({ hasText: 'webhook.test' }).filter({ hasText: 'Delivered' }).count();
      })
      .toBe(1);
    await expect(deliveries.filter({ hasText: 'loan.repayment.created' })).toContainText('2 attempts');

    // The list shows it enabled with its last delivery; the description is text, not markup.
    await page.goto('/admin/notifications/webhooks');
    const row = page.locator('tr', { hasText: receiver.url });
    await expect(row).toContainText('Enabled');
    await expect(row).toContainText('E2E receiver <b>bold</b>');
    await expect(row).toContainText('0 failed');

    // French at 1024 px, nothing spills sideways.
    await page.setViewportSize({ width: 1024, height: 768 });
    await setLanguage(page, 'fr-FR');
    try {
      for (const [path, heading] of [
        ['/admin/notifications/webhooks', 'Webhooks'],
        ['/admin/notifications/webhooks/add', 'Ajouter un webhook'],
        [hookPath, 'Webhook'],
      ] as const) {
        await page.goto(path);
        await expect(page.getByRole('heading', { level: 1, name: heading, exact: true })).toBeVisible();
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, path).toBeLessThanOrEqual(0);
      }
      await expect(page.getByRole('heading', { name: 'Journal des livraisons' })).toBeVisible();
      await expect(deliveries.first()).toContainText('Livrée');
      await page.goto('/admin/notifications/webhooks/add');
      // (This server allows private targets for the receiver; the SSRF refusals are tested in
      // tests/integration/webhooks-ssrf.test.ts. Here: a refusal reads in French, naming the field.)
      await page.getByLabel('Adresse du webhook').fill('ftp://example.com/hook');
      await page.getByRole('checkbox', { name: 'loan.repayment.created', exact: true }).check();
      await page.getByRole('button', { name: 'Ajouter le webhook' }).click();
      await expect(page.getByRole('alert')).toContainText('L’adresse du webhook doit être une adresse complète');
    } finally {
      await setLanguage(page, 'en-US');
    }

    // Delete it, so the other specs' repayments are not sent anywhere.
    await page.goto(hookPath);
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect(page).toHaveURL(/\/admin\/notifications\/webhooks\?done=deleted$/);
    await expect(page.getByText(receiver.url)).toHaveCount(0);

    // Without admin.webhooks.view: 403 for the pages and the API.
    const context = await browser.newContext({ baseURL });
    const officer = await context.newPage();
    await signIn(officer, 'officer@demo.test');
    for (const path of ['/admin/notifications/webhooks', '/admin/notifications/webhooks/add', hookPath])
      expect((await officer.goto(path))?.status(), path).toBe(403);
    expect((await officer.request.get('/v1/webhooks')).status()).toBe(403);
    await context.close();
  } finally {
    await receiver.close();
  }
});
