import { expect, islandsHydrated, signIn, test } from './support/fixtures.ts';

/**
 * [ADMIN-PRODUCT-CHARGES] (issue 17): the administrator gives a new loan product a disbursement fee
 * and a recurring overdue penalty in the product form; the engine's preview shows the fee due at
 * disbursement; a wrong percentage is refused next to its field; the saved product shows them again.
 * The product is the test's own (unique code).
 */
const unique = () => `${Date.now().toString(36).toUpperCase()}${Math.floor(Math.random() * 1e3)}`;

test.describe('[ADMIN-PRODUCT-CHARGES]: fees and overdue penalties of a loan product', () => {
  test('add a disbursement fee and a weekly overdue penalty, see the fee in the preview, save', async ({ page }) => {
    test.setTimeout(180_000);
    await signIn(page, 'admin@demo.test');
    const code = `CHG${unique()}`;
    await page.goto('/admin/business/loan-products/add');
    await islandsHydrated(page);
    await page.locator('#product-code').fill(code);
    await page.locator('#product-name').fill('E2E loan with charges');
    const charges = page.getByTestId('product-charges');
    await expect(charges.getByText('No fees: loans of this product are charged none.')).toBeVisible();

    await charges.getByRole('button', { name: 'Add a fee' }).click();
    await page.locator('#fee-0-code').fill('OPEN');
    await page.locator('#fee-0-name').fill('Opening fee');
    await page.locator('#fee-0-timing').selectOption('DISBURSEMENT');
    await page.locator('#fee-0-calculation').selectOption('PERCENT_OF_AMOUNT');
    await page.locator('#fee-0-amount').fill('150');

    await charges.getByRole('button', { name: 'Add an overdue penalty' }).click();
    await page.locator('#penalty-0-code').fill('LATE');
    await page.locator('#penalty-0-name').fill('Late 2 %');
    await page.locator('#penalty-0-kind').selectOption('PERCENT_OF_OVERDUE_PRINCIPAL');
    await page.locator('#penalty-0-value').fill('2');
    await page.locator('#penalty-0-grace').fill('3');
    await page.locator('#penalty-0-frequency').selectOption('WEEKS');
    await page.locator('#penalty-0-interval').fill('1');

    // 150 % is refused next to the fee's amount.
    await page.getByRole('button', { name: 'Create the product' }).click();
    await expect(page.getByTestId('fee-0').getByText(/between/)).toBeVisible({ timeout: 30_000 });

    await page.locator('#fee-0-amount').fill('1.5');
    await page.getByLabel('Sample amount').fill('1000');
    const row = page.getByTestId('preview-disbursement');
    await expect(row).toContainText('Due at disbursement');
    await expect(row).toContainText('15.00');
    await expect(page.getByTestId('product-preview').getByRole('columnheader', { name: 'Fees' })).toBeVisible();

    await page.getByRole('button', { name: 'Create the product' }).click();
    await expect(page).toHaveURL(/loan-products\/[0-9a-f-]{36}\?done=created/, { timeout: 30_000 });
    await islandsHydrated(page);
    await expect(page.locator('#fee-0-code')).toHaveValue('OPEN');
    await expect(page.locator('#fee-0-amount')).toHaveValue('1.5');
    await expect(page.locator('#penalty-0-kind')).toHaveValue('PERCENT_OF_OVERDUE_PRINCIPAL');
    await expect(page.locator('#penalty-0-interval')).toHaveValue('1');

    // Removing the penalty and saving makes a new version without it.
    await page.getByTestId('penalty-0').getByRole('button', { name: 'Remove' }).click();
    await expect(page.getByText('No overdue penalties: the daily close charges none for this product.')).toBeVisible();
    await page.getByRole('button', { name: 'Save as a new version' }).click();
    await expect(page).toHaveURL(/done=saved/, { timeout: 30_000 });
    await expect(page.getByTestId('product-version')).toHaveText('Version 2');
    await islandsHydrated(page);
    await expect(page.locator('#penalty-0-code')).toHaveCount(0);
    await expect(page.locator('#fee-0-code')).toHaveValue('OPEN');
  });
});
