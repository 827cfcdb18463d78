import type { Page } from '@playwright/test';
import { appOrigin, expect, signIn, test } from './support/fixtures.ts';

// Issue 16, data upload: an administrator uploads a small customer CSV, maps its columns, sees the dry
// run refuse a row, uploads the fixed file and imports it (a job; the page refreshes itself until it
// is done), finds the customers in the customers list and the import in the history; the same file
// again imports nothing and says so. French at 1024 px; import buckets refuse a private host; a role
// without the permission gets 403.

const stamp = Date.now().toString(36).toUpperCase();
const surname = `Upload${stamp}`;
const csv = (birth: string) =>
  [
    'Ref;Given;Family;Birth;Mail',
    `E2E-${stamp}-1;Zoé;${surname};1990-04-12;zoe.${stamp}@example.test`,
    `E2E-${stamp}-2;"<b>Bold</b> & co";${surname};${birth};bold.${stamp}@example.test`,
    `E2E-${stamp}-3;=cmd|' /C calc'!A0;${surname};1985-11-30;`,
  ].join('\n') + '\n';

async function upload(page: Page, name: string, content: string): Promise<void> {
  await page.goto('/admin/data/data-upload');
  await page.getByLabel('What the file contains').selectOption('customers');
  await page
    .getByLabel('File (CSV or XLSX, up to 20 MB)')
    .setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(content) });
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await expect(page).toHaveURL(/\/admin\/data\/data-upload\?id=[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { name: `File ${name}` })).toBeVisible();
}

async function setLanguage(page: Page, language: 'en-US' | 'fr-FR'): Promise<void> {
  const response = await page.request.post('/admin/user/profile', {
    form: { display_name: 'Alice Admin', language },
    headers: { origin: appOrigin() },
    maxRedirects: 0,
  });
  expect(response.status()).toBe(303);
}

test.describe('[DATA UPLOAD]: data upload and import buckets', () => {
  test('[DATA UPLOAD]: upload, map, dry run with a row error, fix, import, see the customers and the history; again reports duplicates', async ({
    page,
  }) => {
    test.setTimeout(180_000);
    await signIn(page, 'admin@demo.test');
    await upload(page, 'clients.csv', csv('1991-02-30'));
    // Auto-suggested by name: Mail → e-mail; the others are chosen by hand.
    await expect(page.getByLabel('E-mail')).toHaveValue('Mail');
    await page.getByLabel('External id').selectOption('Ref');
    await page.getByLabel('First name').selectOption('Given');
    await page.getByLabel('Last name').selectOption('Family');
    await page.getByLabel('Date of birth').selectOption('Birth');
    await page.getByRole('button', { name: 'Dry run' }).click();
    await expect(page.getByText('Nothing was written: fix the rows below')).toBeVisible({ timeout: 60_000 });
    const errors = page.getByRole('table', { name: 'Row errors' });
    await expect(errors.locator('tbody tr')).toHaveCount(1);
    await expect(errors.locator('tbody tr td').nth(0)).toHaveText('3');
    await expect(errors.locator('tbody tr td').nth(1)).toHaveText('Birth');
    // Nothing was written.
    await page.goto(`/loans/customers?tab=all&q=${surname}`);
    await expect(page.locator('table tbody tr', { hasText: 'Zoé' })).toHaveCount(0);

    // The fixed file: the mapping chosen before is offered again.
    await upload(page, 'clients-fixed.csv', csv('1991-02-28'));
    await expect(page.getByLabel('First name')).toHaveValue('Given');
    await expect(page.getByLabel('Date of birth')).toHaveValue('Birth');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await expect(page.getByText('The file was imported.')).toBeVisible({ timeout: 60_000 });
    await expect(page.locator('[data-count="created"]')).toHaveText('3');
    await expect(page.locator('[data-count="skipped"]')).toHaveText('0');

    await page.goto(`/loans/customers?tab=all&q=${surname}`);
    await expect(page.getByText('Zoé').first()).toBeVisible();
    // Hostile text stays text: no <b> element, the formula as typed.
    await expect(page.getByText('<b>Bold</b> & co').first()).toBeVisible();
    await expect(page.getByText("=cmd|' /C calc'!A0").first()).toBeVisible();

    await page.goto('/admin/data/data-upload');
    const history = page.getByTestId('import-history');
    const row = history.locator('tbody tr', { hasText: 'clients-fixed.csv' }).first();
    await expect(row).toContainText('Imported');
    await expect(row).toContainText('Alice Admin');
    await expect(row.locator('td').nth(5)).toHaveText('3');

    // The same file again: nothing imported twice.
    await upload(page, 'clients-fixed.csv', csv('1991-02-28'));
    await expect(page.getByText('This same file was imported before')).toBeVisible();
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await expect(page.getByText('The file was imported.')).toBeVisible({ timeout: 60_000 });
    await expect(page.locator('[data-count="created"]')).toHaveText('0');
    await expect(page.locator('[data-count="skipped"]')).toHaveText('3');
    await page.goto(`/loans/customers?tab=all&q=${surname}`);
    await expect(page.locator('table tbody tr', { hasText: 'Zoé' })).toHaveCount(1);

    // A file that is not CSV or XLSX by its content is refused, whatever its name.
    await page.goto('/admin/data/data-upload');
    await page.getByLabel('File (CSV or XLSX, up to 20 MB)').setInputFiles({
      name: 'image.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]),
    });
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await expect(page.getByRole('alert')).toContainText('CSV (UTF-8 text) or an XLSX workbook');
  });

  test('[DATA UPLOAD]: French at 1024 px, and import buckets refuse a private host', async ({ page }) => {
    await page.setViewportSize({ width: 1024, height: 768 });
    await signIn(page, 'admin@demo.test');
    await setLanguage(page, 'fr-FR');
    try {
      const response = await page.goto('/admin/data/data-upload');
      expect(response?.status()).toBe(200);
      await expect(page.getByRole('heading', { level: 1, name: 'Import de données' })).toBeVisible();
      await expect(page.getByLabel('Contenu du fichier')).toBeVisible();
      await expect(page.getByRole('heading', { name: 'Historique des imports' })).toBeVisible();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);

      await page.goto('/admin/data/import-buckets/add');
      await expect(page.getByRole('heading', { level: 1, name: 'Ajouter un dépôt d’import' })).toBeVisible();
      await page.getByLabel('Nom', { exact: true }).fill(`SFTP ${stamp}`);
      await page.getByLabel('Dossier SFTP').check();
      await page.getByLabel('Hôte').fill('169.254.169.254');
      await page.getByLabel('Nom d’utilisateur').fill('import');
      await page.getByLabel('Secret (clé secrète S3 ou mot de passe SFTP)').fill('secret');
      await page.getByRole('button', { name: 'Enregistrer' }).click();
      await expect(page.getByRole('alert')).toContainText('host');
      await page.getByLabel('Hôte').fill('sftp.example.com');
      await page.getByLabel('Secret (clé secrète S3 ou mot de passe SFTP)').fill('secret');
      await page.getByRole('button', { name: 'Enregistrer' }).click();
      await expect(page).toHaveURL(/\/admin\/data\/import-buckets\?done=added$/);
      await expect(page.getByText('Le dépôt a été ajouté.')).toBeVisible();
      await expect(page.getByRole('link', { name: `SFTP ${stamp}` })).toBeVisible();
      const overflowList = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflowList).toBeLessThanOrEqual(0);
      await page.getByRole('link', { name: `SFTP ${stamp}` }).click();
      await expect(page.getByRole('heading', { name: 'Historique des passages' })).toBeVisible();
      await expect(page.getByLabel('Secret (clé secrète S3 ou mot de passe SFTP)')).toHaveValue('');
    } finally {
      await setLanguage(page, 'en-US');
    }
  });

  test('[DATA UPLOAD]: a role without the permission gets 403 on the pages and the API', async ({ page }) => {
    await signIn(page, 'officer@demo.test');
    for (const path of ['/admin/data/data-upload', '/admin/data/import-buckets', '/admin/data/import-buckets/add']) {
      const response = await page.goto(path);
      expect(response?.status(), path).toBe(403);
    }
    const api = await page.request.post('/v1/data-imports', {
      multipart: {
        kind: 'customers',
        file: { name: 'x.csv', mimeType: 'text/csv', buffer: Buffer.from('external_id,first_name,last_name\nX,Y,Z\n') },
      },
      headers: { origin: appOrigin() },
    });
    expect(api.status()).toBe(403);
    expect((await page.request.get('/v1/import-buckets')).status()).toBe(403);
  });
});
