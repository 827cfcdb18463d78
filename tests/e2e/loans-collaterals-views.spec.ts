import { expect, signInThroughForm, test } from './support/fixtures.ts';

test('[LOANS]: collaterals list with a saved custom view; loan applications offer no custom views', async ({
  page,
}) => {
  await signInThroughForm(page, 'admin@demo.test');
  expect((await page.goto('/loans/collaterals?tab=all&sort=-value'))?.status()).toBe(200);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Collaterals');
  await page.getByRole('link', { name: 'Save as view' }).click();
  await expect(page).toHaveURL(/\/loans\/collaterals\/add-custom-view\?/);
  const name = `Biggest first ${Date.now()}`;
  await page.getByLabel('View name').fill(name);
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page).toHaveURL(/\/loans\/collaterals\?/);
  await expect(page.getByRole('heading', { level: 1 })).toContainText(name);
  await page.getByRole('link', { name: 'Edit view' }).click();
  await expect(page).toHaveURL(/\/loans\/collaterals\/update-custom-view\/[0-9a-f-]{36}$/);
  await expect(page.getByLabel('View name')).toHaveValue(name);

  await page.goto('/loans/loan-applications');
  await expect(page.getByRole('link', { name: 'Save as view' })).toHaveCount(0);
  expect((await page.goto('/loans/loan-applications/add-custom-view'))?.status()).toBe(404);
});
