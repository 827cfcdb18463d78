import type { Page } from '@playwright/test';
import { expect, signIn, test } from './support/fixtures.ts';

/** A one-page PDF small enough to type: what the contract upload expects by its first bytes. */
const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
);

/** Sets the signed-in user's language through their profile page (the demo admin is put back to English after). */
async function setLanguage(page: Page, locale: 'en-US' | 'fr-FR'): Promise<void> {
  await page.goto('/admin/user/profile');
  await page.locator('#profile-language').selectOption(locale);
  await page.locator('form.form-stack button[type=submit]').click();
  await expect(page.locator('html')).toHaveAttribute('lang', locale.slice(0, 2));
}

test.describe('[ADMIN]: platform, plan and contracts', () => {
  // Several page loads per test on a shared server: more room than the default minute.
  test.setTimeout(180_000);
  test('every page opens with real content, in English and in French', async ({ page }) => {
    await signIn(page, 'admin@demo.test');
    const pages: [string, string, string][] = [
      ['/admin/platform/translations', 'Translations', 'Traductions'],
      ['/admin/platform/download', 'Downloads', 'Téléchargements'],
      ['/admin/plan-contracts/plan', 'Plan', 'Offre'],
      ['/admin/plan-contracts/contracts', 'Contracts', 'Contrats'],
    ];
    try {
      for (const [url, en] of pages) {
        const response = await page.goto(url);
        expect(response?.status(), url).toBe(200);
        await expect(page.getByRole('heading', { level: 1, name: en })).toBeVisible();
      }
      // Real data: bundled texts with their keys, the plan's features with usage.
      await page.goto('/admin/platform/translations?ns=nav&q=admin.users');
      await expect(page.locator('tr[data-key="nav:admin.users"]')).toContainText('Users');
      await page.goto('/admin/plan-contracts/plan');
      await expect(page.locator('tr[data-feature="users"]')).toContainText(/\d+ of 50/);
      const unknown = await page.goto('/admin/platform/download/00000000-0000-4000-8000-000000000000');
      expect(unknown?.status()).toBe(404);

      await setLanguage(page, 'fr-FR');
      for (const [url, , fr] of pages) {
        const response = await page.goto(url);
        expect(response?.status(), url).toBe(200);
        await expect(page.getByRole('heading', { level: 1, name: fr })).toBeVisible();
      }
      await page.goto('/admin/platform/translations?ns=nav&q=admin.users');
      await expect(page.locator('tr[data-key="nav:admin.users"]')).toContainText('Utilisateurs');
      await page.goto('/admin/plan-contracts/plan');
      await expect(page.locator('tr[data-feature="users"]')).toContainText(/\d+ sur 50/);
    } finally {
      await setLanguage(page, 'en-US');
    }
  });

  test('a translation override shows in the navigation at the next page load, and is removed', async ({ page }) => {
    await signIn(page, 'admin@demo.test');
    const label = 'Staff <E2E> & co';
    await page.goto('/admin/platform/translations?ns=nav&q=admin.users');
    const row = page.locator('tr[data-key="nav:admin.users"]');
    try {
      // A dropped placeholder is refused with a message naming it (another key, with {{page}} and {{pages}}).
      await page.goto('/admin/platform/translations?ns=common&q=pager.pageOf');
      const pageOf = page.locator('tr[data-key="common:pager.pageOf"]');
      await pageOf
        .getByRole('textbox', { name: 'Your English text for pager.pageOf', exact: true })
        .fill('Page {{page}}');
      await pageOf.getByRole('button', { name: 'Save your English text for pager.pageOf' }).click();
      await expect(page.getByRole('alert')).toContainText('{{pages}}');

      await page.goto('/admin/platform/translations?ns=nav&q=admin.users');
      await row.getByRole('textbox', { name: 'Your English text for admin.users', exact: true }).fill(label);
      await row.getByRole('button', { name: 'Save your English text for admin.users' }).click();
      await expect(page.getByRole('status')).toContainText('shows at the next page load');
      await page.reload();
      // Rendered as text: the angle brackets are shown, not parsed.
      await expect(page.locator('nav').getByRole('link', { name: label })).toBeVisible();
      await page.goto('/admin/platform/download');
      await expect(page.locator('nav').getByRole('link', { name: label })).toBeVisible();
    } finally {
      await page.goto('/admin/platform/translations?ns=nav&q=admin.users');
      const remove = row.getByRole('button', { name: 'Remove your English text for admin.users' });
      if (await remove.count()) await remove.click();
    }
    await expect(page.getByRole('status')).toContainText('bundled text is back');
    await page.reload();
    await expect(page.locator('nav').getByRole('link', { name: label })).toHaveCount(0);
    await expect(page.locator('nav').getByRole('link', { name: 'Users', exact: true })).toBeVisible();
  });

  test('an export made here appears in the admin downloads, is downloaded, then deleted', async ({ page }) => {
    await signIn(page, 'admin@demo.test');
    await page.goto('/loans/customers?tab=all&sort=name');
    await page.getByLabel('Export', { exact: true }).selectOption('csv');
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    await expect(page).toHaveURL(/\/loans\/user\/downloads-list$/);
    const mine = page.locator('table tbody tr').first();
    await expect(mine.getByRole('link', { name: /\.csv$/ })).toBeVisible({ timeout: 30_000 });
    const fileName = (await mine.getByRole('link', { name: /\.csv$/ }).textContent())!.trim();

    await page.goto('/admin/platform/download?status=done');
    const first = page.locator('table tbody tr').first();
    await expect(first).toContainText(fileName);
    await expect(first).toContainText('Ready');
    await first.getByRole('link', { name: fileName }).click();
    await expect(page.getByRole('heading', { level: 1, name: fileName })).toBeVisible();
    const href = await page.getByRole('link', { name: 'Download', exact: true }).getAttribute('href');
    expect(href).toMatch(/^\/v1\/admin\/downloads\/[0-9a-f-]+\/file$/);
    const file = await page.request.get(href!);
    expect(file.status()).toBe(200);
    expect(file.headers()['content-disposition']).toContain('attachment');
    expect((await file.text()).length).toBeGreaterThan(10);
    const detail = page.url();

    await page.locator('summary', { hasText: 'Delete' }).click();
    await page.locator('details.confirm').getByRole('button', { name: 'Delete' }).click();
    await expect(page).toHaveURL(/\/admin\/platform\/download\?done=deleted$/);
    await expect(page.getByRole('status')).toContainText('deleted');
    expect((await page.request.get(href!)).status()).toBe(404);
    expect((await page.goto(detail))?.status()).toBe(404);
  });

  test('a plan change request is recorded and listed', async ({ page }) => {
    await signIn(page, 'admin@demo.test');
    await page.goto('/admin/plan-contracts/plan');
    const message = `More seats please (${Date.now()})`;
    await page.getByRole('checkbox', { name: 'Users' }).check();
    await page.getByLabel('Message').fill(message);
    await page.getByRole('button', { name: 'Send the request' }).click();
    await expect(page).toHaveURL(/\/admin\/plan-contracts\/plan\?done=sent$/);
    await expect(page.getByRole('status')).toContainText('Your request was sent.');
    const row = page.locator('tr', { hasText: message });
    await expect(row).toContainText('Users');
    await expect(row).toContainText('Requested');
    const api = await page.request.get('/v1/plan-change-requests');
    expect((await api.json()).items[0]).toMatchObject({ features: ['users'], message, status: 'requested' });
  });

  test('a contract is created with a small PDF, shown, and its document downloaded', async ({ page }) => {
    await signIn(page, 'admin@demo.test');
    const reference = `E2E-${Date.now()}`;
    await page.goto('/admin/plan-contracts/contracts');
    await page.getByRole('link', { name: 'Add a contract' }).click();
    await expect(page).toHaveURL(/\?new=1$/);
    await page.getByLabel('Title', { exact: true }).fill('Service agreement (browser test)');
    await page.getByLabel('Reference').fill(reference);
    await page.getByLabel('Start', { exact: true }).fill('2026-01-01');
    await page.getByLabel('End', { exact: true }).fill('2027-12-31');
    const first = page.getByRole('group', { name: 'Signatory 1' });
    await first.getByLabel('Name', { exact: true }).fill('Jane Roe');
    await first.getByLabel('Role or title').fill('Chief executive');
    await first.getByLabel('Signed on').fill('2025-12-20');
    // Not a PDF by its bytes: refused with a message next to the form, nothing created.
    await page
      .getByLabel('Document', { exact: true })
      .setInputFiles({ name: 'fake.pdf', mimeType: 'application/pdf', buffer: Buffer.from('MZ') });
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByRole('alert')).toContainText('not a PDF');
    await page
      .getByLabel('Document', { exact: true })
      .setInputFiles({ name: 'agreement.pdf', mimeType: 'application/pdf', buffer: PDF });
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page).toHaveURL(/\?view=[0-9a-f-]+&done=created$/);
    await expect(page.getByRole('status')).toContainText('The contract was added.');
    const view = page.locator('section', { has: page.getByRole('heading', { name: new RegExp(reference) }) });
    await expect(view).toContainText('Draft');
    await expect(view).toContainText('Jane Roe');
    await expect(view).toContainText('Chief executive');

    await view.getByLabel('Change status').selectOption('active');
    await view.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByRole('status')).toContainText('The contract was saved.');
    await expect(page.locator('tr', { hasText: reference })).toContainText('Active');

    const href = await page.getByRole('link', { name: 'agreement.pdf' }).first().getAttribute('href');
    const document = await page.request.get(href!);
    expect(document.status()).toBe(200);
    expect(document.headers()['content-type']).toBe('application/pdf');
    expect((await document.body()).subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });
});
