import { expect, signIn, test } from './support/fixtures.ts';

test.describe('[SHELL]: profile', () => {
  test('a user changes their language and the next page is in French; a bad name is refused', async ({ page }) => {
    await signIn(page, 'strategist@demo.test');
    await page.goto('/strategies/user/profile');
    await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    const name = await page.getByLabel('Name').inputValue();
    try {
      await page.getByLabel('Language').selectOption('fr-FR');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await expect(page).toHaveURL(/\/strategies\/user\/profile\?saved=1$/);
      await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
      await expect(page.getByRole('status').filter({ hasText: 'Votre profil a été enregistré.' })).toBeVisible();

      await page.getByLabel('Nom').fill('   ');
      // The browser's own `required` check would stop the post; the server must refuse it too.
      await page.locator('#profile-name').evaluate((input) => input.removeAttribute('required'));
      await page.getByRole('button', { name: 'Enregistrer les modifications' }).click();
      await expect(page.getByRole('alert')).toContainText('display_name');
    } finally {
      // Put the shared demo account back as other tests expect it.
      await page.goto('/strategies/user/profile');
      await page.locator('#profile-name').fill(name);
      await page.locator('#profile-language').selectOption('en-US');
      await page.locator('form.form-stack button[type=submit]').click();
      await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    }
  });
});
