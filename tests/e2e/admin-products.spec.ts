import type { Page } from '@playwright/test';
import { appOrigin, expect, islandsHydrated, signIn, test } from './support/fixtures.ts';

/**
 * [ADMIN-PRODUCTS]: the administrator creates a loan product with the engine's schedule preview,
 * changes it (a new version shows), deactivates it; changes a collateral type and sees its LTV
 * warning on a collateral page; a loan officer is refused these pages; French at 1024 px.
 * Products and collaterals are the test's own (unique codes); demo products are never changed.
 */

const unique = () => `${Date.now().toString(36).toUpperCase()}${Math.floor(Math.random() * 1e3)}`;

async function setLanguage(page: Page, locale: 'fr-FR' | 'en-US') {
  await page.goto('/admin/user/profile');
  await page.locator('#profile-language').selectOption(locale);
  await page.locator('form.form-stack button[type=submit]').click();
  await expect(page.locator('html')).toHaveAttribute('lang', locale.slice(0, 2));
}

test.describe('[ADMIN-PRODUCTS]: loan products and collateral types', () => {
  test('create a product with a live preview, edit it into version 2, deactivate it', async ({ page }) => {
    await signIn(page, 'admin@demo.test');
    const code = `E2E${unique()}`;
    await page.goto('/admin/business/loan-products');
    await expect(page.getByRole('heading', { level: 1, name: 'Loan products' })).toBeVisible();
    await page.getByRole('link', { name: 'Add a loan product' }).click();
    await expect(page).toHaveURL(/loan-products\/add$/);
    await islandsHydrated(page);
    await page.getByLabel('Code').fill(code);
    await page.getByLabel('Name', { exact: true }).fill('E2E cash loan');
    // The engine's schedule for the sample loan shows, and follows the sample term.
    const preview = page.getByTestId('product-preview');
    await expect(preview).toBeVisible();
    await page.getByLabel('Sample number of repayments').fill('6');
    await expect(preview.locator('tbody tr')).toHaveCount(7); // 6 installments + totals
    // A clear error next to the field.
    await page.getByLabel('Maximum amount').fill('10');
    await page.getByRole('button', { name: 'Create the product' }).click();
    await expect(page.getByText(/must be between/).first()).toBeVisible();
    await page.getByLabel('Maximum amount').fill('10000');
    await page.getByRole('button', { name: 'Create the product' }).click();
    await expect(page).toHaveURL(/loan-products\/[0-9a-f-]{36}\?done=created/);
    await expect(page.getByTestId('product-version')).toHaveText('Version 1');
    await islandsHydrated(page);

    await page.getByLabel('Nominal interest rate (% per year)').fill('15');
    await page.getByRole('button', { name: 'Save as a new version' }).click();
    await expect(page).toHaveURL(/done=saved/);
    await expect(page.getByTestId('product-version')).toHaveText('Version 2');
    await expect(page.getByRole('row').filter({ hasText: 'Nominal interest rate' })).toBeVisible();

    await page.getByRole('button', { name: 'Deactivate' }).click();
    await expect(page).toHaveURL(/done=deactivated/);
    await page.goto(`/admin/business/loan-products?q=${code}&status=inactive`);
    await expect(page.locator('table.data-table tbody tr').filter({ hasText: code })).toContainText('Inactive');
  });

  test('a collateral type’s maximum LTV drives the warning on a collateral page', async ({ page }) => {
    await signIn(page, 'admin@demo.test');
    // A customer with an active loan, so that the collateral can secure it.
    const loans = (await (await page.request.get('/v1/loans?status=ACTIVE&limit=1')).json()).items as {
      customerId: string;
    }[];
    const customerId = loans[0].customerId;
    await page.goto(`/loans/collaterals/new/${customerId}`);
    await page.locator('#c-type').selectOption('equipment');
    await page.locator('#c-value').fill('1000000');
    await page.locator('form.form-stack.card button[type=submit]').click();
    await expect(page).toHaveURL(/\/loans\/collaterals\/[0-9a-f-]{36}/);
    const collateralUrl = page.url().split('?')[0];
    // Link it to one of the customer's loans, if the page offers one; then the LTV is known.
    const link = page.locator('select[name=loanId]');
    test.skip((await link.count()) === 0, 'the demo customer has no loan to link');
    await link.selectOption({ index: 0 });
    await page.locator('form').filter({ has: link }).locator('button[type=submit]').click();

    await page.goto('/admin/business/collateral?edit=equipment#edit');
    await page.locator('#edit-maxLtvPercent').fill('0.1');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page).toHaveURL(/done=saved/);
    await page.goto(collateralUrl);
    await expect(page.getByTestId('ltv-warning')).toBeVisible();
    await page.goto('/admin/business/collateral?edit=equipment#edit');
    await page.locator('#edit-maxLtvPercent').fill('60');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.goto(collateralUrl);
    await expect(page.getByTestId('ltv-warning')).toBeHidden();
  });

  test('a loan officer gets 403 on the product and collateral type pages and APIs', async ({ page }) => {
    await signIn(page, 'officer@demo.test');
    for (const path of [
      '/admin/business/loan-products',
      '/admin/business/loan-products/add',
      '/admin/business/collateral',
    ])
      expect((await page.goto(path))?.status(), path).toBe(403);
    const patch = await page.request.patch('/v1/products/00000000-0000-4000-8000-000000000000', {
      data: { active: false },
      headers: { origin: appOrigin() },
    });
    expect(patch.status()).toBe(403);
  });

  test('French labels at 1024 px', async ({ page }) => {
    await page.setViewportSize({ width: 1024, height: 800 });
    await signIn(page, 'admin@demo.test');
    await setLanguage(page, 'fr-FR');
    try {
      await page.goto('/admin/business/loan-products/add');
      await expect(page.getByRole('heading', { level: 1, name: 'Ajouter un produit de prêt' })).toBeVisible();
      await expect(page.getByLabel('Montant maximum')).toBeVisible();
      await expect(page.getByTestId('product-preview')).toBeVisible();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await page.goto('/admin/business/collateral');
      await expect(page.getByRole('heading', { level: 1, name: 'Types de garantie' })).toBeVisible();
      await expect(page.getByRole('columnheader', { name: 'Quotité de financement maximale (%)' })).toBeVisible();
    } finally {
      await setLanguage(page, 'en-US');
    }
  });
});
