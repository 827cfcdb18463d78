import { expect, signIn, test } from './support/fixtures.ts';

test.describe('[SHELL]: languages', () => {
  test('agent.fr@demo.test gets <html lang="fr">, French navigation and DD/MM/YYYY dates', async ({ page }) => {
    await signIn(page, 'agent.fr@demo.test');
    await page.goto('/');
    await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
    const nav = page.getByRole('navigation', { name: 'Navigation principale' });
    await expect(nav.getByRole('link', { name: 'Accueil' })).toBeVisible();
    await expect(nav.getByRole('link', { name: 'Prêts' })).toBeVisible();
    await expect(page.getByRole('heading', { level: 1 })).toContainText('Bienvenue');
    // The business date in French format (DD/MM/YYYY). It is the seed's "today" or later: specs that run
    // the close of business (collection, re-age) move the demo tenant's date some days forward.
    const intro = await page.locator('.page-intro').innerText();
    const shown = /Date d’activité : (\d{2})\/(\d{2})\/(\d{4})/.exec(intro);
    expect(shown, intro).not.toBeNull();
    const [, day, month, year] = shown!;
    const date = new Date(`${year}-${month}-${day}T00:00:00Z`);
    expect(date.getUTCDate(), intro).toBe(Number(day)); // a real calendar day, read day first
    const days = (date.getTime() - Date.now()) / 86_400_000;
    expect(days, intro).toBeGreaterThan(-2);
    expect(days, intro).toBeLessThan(90);

    await page.goto('/loans/user/profile');
    await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
    await expect(page.getByRole('heading', { level: 1, name: 'Profil' })).toBeVisible();
    await expect(page.getByLabel('Langue')).toHaveValue('fr-FR');
  });

  test('French 403 and 404 pages with their statuses', async ({ page }) => {
    await signIn(page, 'agent.fr@demo.test');
    const forbidden = await page.goto('/admin/user/users');
    expect(forbidden?.status()).toBe(403);
    await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
    await expect(page.getByRole('heading', { level: 1, name: 'Accès refusé' })).toBeVisible();

    const standalone = await page.goto('/403');
    expect(standalone?.status()).toBe(403);
    await expect(
      page.getByText('Désolé, vous n’avez pas l’autorisation d’accéder à cette page.', { exact: false }),
    ).toBeVisible();
    await expect(page.getByText('admin@demo.test').first()).toBeVisible();

    const missing = await page.goto('/loans/there-is-no-such-page');
    expect(missing?.status()).toBe(404);
    await expect(page.getByRole('heading', { level: 1, name: 'Page introuvable' })).toBeVisible();
    const rootMissing = await page.goto('/no-such-root-page');
    expect(rootMissing?.status()).toBe(404);
    await expect(page.getByRole('heading', { level: 1, name: 'Page introuvable' })).toBeVisible();
  });

  test('English users get the exact access-denied sentence on the standalone 403 page', async ({ page }) => {
    await signIn(page, 'officer@demo.test');
    const response = await page.goto('/403');
    expect(response?.status()).toBe(403);
    await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    await expect(page.locator('.result-subtitle')).toHaveText(
      /^Sorry, you don’t have permission to access this page\. For access, please reach out to one of the administrators: .*admin@demo\.test/,
    );
    await expect(page.getByRole('heading', { level: 1, name: 'Unauthorized' })).toBeVisible();
  });

  test('translations are served with the bundled texts', async ({ page }) => {
    await signIn(page, 'agent.fr@demo.test');
    const response = await page.request.get('/v1/translations/fr/nav');
    expect(response.status()).toBe(200);
    expect((await response.json()).sections.loans).toBe('Prêts');
    expect((await page.request.get('/v1/translations/de/nav')).status()).toBe(404);
  });
});
