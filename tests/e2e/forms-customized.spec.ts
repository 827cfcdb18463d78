import type { Page } from '@playwright/test';
import { expect, signInThroughForm, test } from './support/fixtures.ts';

/**
 * Customized fields (issue 13) with the demo tenant's customer fields (src/lib/seed/demo-custom-fields.ts:
 * "Employer" text, "Housing status" select): the admin adds a customer filling them, sees them on the
 * profile, edits them there, shows "Employer" as a column of a custom view of the customers list,
 * finds the customer by searching the value, and exports the list with the column.
 */

/** Exports the list page that is open as CSV through the downloads list and returns the file's text. */
async function exportCsv(page: Page): Promise<string> {
  await page.getByLabel('Export', { exact: true }).selectOption('csv');
  await page.getByRole('button', { name: 'Export', exact: true }).click();
  await expect(page).toHaveURL(/\/loans\/user\/downloads-list$/);
  const first = page.locator('table tbody tr').first();
  const link = first.getByRole('link', { name: /\.csv$/ });
  await expect(link).toBeVisible({ timeout: 30_000 });
  const response = await page.request.get((await link.getAttribute('href'))!);
  expect(response.status()).toBe(200);
  return (await response.body()).toString('utf8');
}

test('[LOANS]: an admin fills a customer’s customized fields, sees them on the profile, lists, searches and exports them', async ({
  page,
}) => {
  const token = `Quokkaworks${Date.now().toString(36)}`;
  const hostile = `${token} <img src=x onerror="window.__cfXss=1">`;
  await signInThroughForm(page, 'admin@demo.test');
  await expect(page).not.toHaveURL(/\/user\/login/);

  await page.goto('/loans/customers/add');
  const group = page.getByRole('group', { name: 'Additional information' });
  await expect(group).toBeVisible();
  await page.getByLabel('First name').fill('Céleste');
  await page.getByLabel('Last name').fill(`Custom${token}`);
  await page.getByLabel('Phone').fill(`+33 6 ${String(Date.now()).slice(-8)}`);
  await group.getByLabel('Employer').fill(hostile);
  await group.getByLabel('Housing status').selectOption('tenant');
  await page.getByRole('button', { name: 'Add the customer' }).click();
  await expect(page).toHaveURL(/\/loans\/customer\/profile\/[0-9a-f-]+\/resume/);

  // The profile shows the values with their labels, the select by its option's label, as text.
  const card = page.locator('[data-custom-fields-card]');
  await expect(card.locator('dd[data-field="employer"]')).toHaveText(hostile);
  await expect(card.locator('dd[data-field="housing_status"]')).toHaveText('Tenant');
  expect(await page.evaluate(() => (window as unknown as { __cfXss?: number }).__cfXss)).toBeUndefined();

  // Edit on the profile: a wrong choice cannot be posted from the select, so change the value.
  await card.getByText('Edit additional information').click();
  await card.getByLabel('Housing status').selectOption('owner');
  await card.getByRole('button', { name: 'Save' }).click();
  await expect(page.locator('[data-custom-fields-card] dd[data-field="housing_status"]')).toHaveText('Owner');

  // A custom view of the customers list with the Employer column.
  await page.goto('/loans/customers/add-custom-view');
  await page.getByLabel('View name').fill(`Employers ${token}`);
  await page.getByRole('checkbox', { name: 'Employer', exact: true }).check();
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page).toHaveURL(/\/loans\/customers\?/);
  await expect(page.getByRole('columnheader', { name: /Employer/ })).toBeVisible();

  // The list search matches the customized value.
  await page.locator('#list-q').fill(token.toLowerCase());
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  const rows = page.locator('table tbody tr');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(`Custom${token}`);
  await expect(rows.first()).toContainText(hostile);

  // The export has the column, headed by its label, with the value.
  const csv = await exportCsv(page);
  const lines = csv
    .replace(/^\uFEFF/, '')
    .trimEnd()
    .split(/\r?\n/);
  expect(lines[0]).toContain('Employer');
  expect(lines).toHaveLength(2);
  expect(lines[1]).toContain(token);
});
