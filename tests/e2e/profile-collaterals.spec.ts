import { expect, signIn, test } from './support/fixtures.ts';

test.describe('[PROFILE]: add customer and collaterals', () => {
  test('officer adds a customer (field errors, duplicate phone confirmed), then records, edits and lists a collateral', async ({
    page,
  }) => {
    await signIn(page, 'officer@demo.test');
    await page.goto('/loans/customers/add');
    await page.getByRole('button', { name: 'Add the customer' }).click();
    await expect(page.getByRole('alert')).toHaveText('First name is required');
    const stamp = String(Date.now()).slice(-7);
    await page.getByLabel('First name (required)').fill('Marie');
    await page.getByLabel('Last name (required)').fill(`Curie${stamp}`);
    await page.getByLabel('Phone').fill(`+33 6 ${stamp}`);
    await page.getByLabel('Email').fill('not-an-email');
    await page.getByRole('button', { name: 'Add the customer' }).click();
    await expect(page.getByRole('alert')).toHaveText('Email is not a valid address');
    await expect(page.getByLabel('Email')).toHaveAttribute('aria-invalid', 'true');
    await page.getByLabel('Email').fill('marie@example.test');
    await page.getByRole('button', { name: 'Add the customer' }).click();
    await expect(page).toHaveURL(/\/loans\/customer\/profile\/[0-9a-f-]{36}\/resume\?done=created$/);
    await expect(page.getByRole('heading', { level: 1, name: `Marie Curie${stamp}` })).toBeVisible();
    const profileUrl = page.url().replace(/\?.*$/, '');

    // Same phone again: the duplicate is shown and must be confirmed.
    await page.goto('/loans/customers/add');
    await page.getByLabel('First name (required)').fill('Pierre');
    await page.getByLabel('Last name (required)').fill(`Curie${stamp}`);
    await page.getByLabel('Phone').fill(`+336${stamp}`);
    await page.getByRole('button', { name: 'Add the customer' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'already exists' })).toContainText(`Marie Curie${stamp}`);
    await page.getByLabel('Add anyway: this is a different person').check();
    await page.getByRole('button', { name: 'Add the customer' }).click();
    await expect(page.getByRole('heading', { level: 1, name: `Pierre Curie${stamp}` })).toBeVisible();

    // Opt out with a reason, kept in the history.
    await page.goto(profileUrl);
    await page.getByLabel('Reason').fill('Asked not to be contacted');
    await page.getByRole('button', { name: 'Opt out' }).click();
    await expect(page.getByRole('status')).toHaveText('The customer is now opted out.');
    await expect(page.getByRole('row', { name: /Opted out Asked not to be contacted/ })).toBeVisible();

    // A collateral from the profile's collaterals tab.
    await page.goto(profileUrl.replace(/resume$/, 'collaterals'));
    await page.getByRole('link', { name: 'Add a collateral' }).click();
    await page.getByLabel('Value (EUR)').fill('12.345');
    await page.getByRole('button', { name: 'Add the collateral' }).click();
    await expect(page.getByRole('alert')).toHaveText('Value can have at most 2 decimal places.');
    await page.getByLabel('Value (EUR)').fill('8500.00');
    await page.getByLabel('Description').fill('Peugeot 208');
    await page.getByRole('button', { name: 'Add the collateral' }).click();
    await expect(page.getByRole('status')).toHaveText('Saved.');
    await expect(page.getByText('€8,500.00')).toBeVisible();
    await page.getByLabel('Value (EUR)').fill('8000.50');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('€8,000.50')).toBeVisible();
    // The officer role may add and edit but not delete.
    await expect(page.getByRole('button', { name: 'Delete the collateral' })).toHaveCount(0);

    await page.goto(`/loans/collaterals?q=${encodeURIComponent(`Marie Curie${stamp}`)}`);
    // The list machinery: heading, one matching row (customer shown last name first).
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Collaterals');
    await expect(page.getByRole('row', { name: /Vehicle Curie.* Marie.* €8,000\.50/ })).toBeVisible();
  });
});
