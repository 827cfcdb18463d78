import fs from 'node:fs';
import type { Page } from '@playwright/test';
import { appOrigin, expect, signIn, test } from './support/fixtures.ts';

/**
 * [ADMIN-ROLES]: the administrator manages roles through the pages, in English and in French: creates
 * a role with only Loans › Customers › View in the grouped editor, finds it in the list and in the
 * permissions matrix, downloads the matrix, edits and deletes the role. The Administrator role is
 * read-only. Roles are the test's own (a unique name); the demo roles are never changed.
 */

const unique = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;

/** The cell of the matrix at the key's row and the role's column. */
async function matrixCell(page: Page, key: string, roleName: string) {
  const headers = await page.locator('table.matrix thead th').allInnerTexts();
  const column = headers.findIndex((h) => h.includes(roleName));
  expect(column, `column of ${roleName} in ${headers.join(' | ')}`).toBeGreaterThan(0);
  const row = page
    .locator('table.matrix tbody tr')
    .filter({ has: page.locator('code', { hasText: new RegExp(`^${key}$`) }) });
  // The row's header cell is column 0; data cells follow in the same order as the roles.
  return row.locator('td').nth(column - 1);
}

async function setLanguage(page: Page, locale: 'fr-FR' | 'en-US') {
  await page.goto('/admin/user/profile');
  await page.locator('#profile-language').selectOption(locale);
  await page.locator('form.form-stack button[type=submit]').click();
  await expect(page.locator('html')).toHaveAttribute('lang', locale.slice(0, 2));
}

test.describe('[ADMIN-ROLES]: roles and permissions', () => {
  test('create a role with only Loans › Customers › View, see it, export the matrix, edit and delete it', async ({
    page,
  }) => {
    await signIn(page, 'admin@demo.test');
    const name = `E2E viewer ${unique()}`;

    const list = await page.goto('/admin/user/roles');
    expect(list?.status()).toBe(200);
    await expect(page.getByRole('heading', { level: 1, name: 'Roles' })).toBeVisible();
    const adminRow = page.locator('table.data-table tbody tr').filter({ hasText: 'Administrator' }).first();
    await expect(adminRow.locator('.badge')).toHaveText('Administrator');
    await expect(page.locator('table.data-table tbody tr').filter({ hasText: 'Loan officer' })).toBeVisible();

    await page.getByRole('link', { name: 'Add a role' }).click();
    await expect(page).toHaveURL(/\/admin\/user\/roles\/add$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Add a role' })).toBeVisible();
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByLabel('Description (optional)').fill('Browser test role');
    // The filter narrows the editor to matching resources.
    await page.getByLabel('Filter permissions').fill('customers');
    await expect(page.getByRole('group', { name: 'Offers' })).toBeHidden();
    await page.getByRole('checkbox', { name: 'Loans › Customers › View', exact: true }).check();
    await expect(page.locator('[data-perm-count]')).toHaveText(/^1 of \d+ permissions selected$/);
    await page.getByLabel('Filter permissions').fill('');
    await page.getByRole('button', { name: 'Create role' }).click();

    await expect(page).toHaveURL(/\/admin\/user\/roles\?done=created/);
    await expect(page.getByRole('status')).toHaveText(`The role ${name} was created.`);
    const row = page.locator('table.data-table tbody tr').filter({ hasText: name });
    await expect(row.locator('td').nth(2)).toHaveText('1');
    await expect(row.locator('td').nth(3)).toHaveText('0');

    // A duplicate name, in another case, is refused next to the field.
    await page.goto('/admin/user/roles/add');
    await page.getByLabel('Name', { exact: true }).fill(name.toUpperCase());
    await page.getByRole('button', { name: 'Create role' }).click();
    await expect(page.locator('#role-name-error')).toHaveText(
      `A role named “${name}” already exists: choose another name.`,
    );
    await expect(page.getByLabel('Name', { exact: true })).toHaveAttribute('aria-invalid', 'true');

    // The matrix: the role's column grants exactly that key.
    const matrixPage = await page.goto('/admin/user/permissions?area=loans&q=customers');
    expect(matrixPage?.status()).toBe(200);
    await expect(page.getByRole('heading', { level: 1, name: 'Permissions' })).toBeVisible();
    await expect(await matrixCell(page, 'loans.customers.view', name)).toHaveText('Yes');
    await expect(await matrixCell(page, 'loans.customers.opt_in', name)).toHaveText('—');
    await expect(await matrixCell(page, 'loans.customers.opt_in', 'Administrator')).toHaveText('Admin');
    await expect(page.locator('table.matrix code', { hasText: 'loans.offers.view' })).toHaveCount(0);
    await expect(page.getByRole('heading', { level: 3, name: 'Loan officer' })).toBeVisible();
    await expect(page.getByRole('link', { name: /Officer|Agent/ }).first()).toHaveAttribute(
      'href',
      /^\/admin\/user\/users\/edit\/[0-9a-f-]{36}$/,
    );

    // The CSV download, filtered as the page is.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('permissions.csv');
    const csv = fs.readFileSync((await download.path())!, 'utf8').replace(/^\uFEFF/, '');
    const [header, ...lines] = csv.trimEnd().split('\r\n');
    expect(header).toMatch(/^Area,Resource,Action,Key,Administrator,/);
    expect(header).toContain(name);
    const viewLine = lines.find((l) => l.includes(',loans.customers.view,'))!;
    const column = header.split(',').indexOf(name);
    expect(viewLine.split(',')[column]).toBe('Granted');
    expect(lines.every((l) => l.startsWith('Loans,Customers,'))).toBe(true);
    const xlsx = await page.request.get('/v1/permissions?format=xlsx');
    expect(xlsx.status()).toBe(200);
    expect(xlsx.headers()['content-type']).toContain('spreadsheetml');

    // Edit: add Opt in, save, the list counts two.
    await page.goto('/admin/user/roles');
    await page.getByRole('link', { name, exact: true }).click();
    await expect(page.getByRole('heading', { level: 1, name: `Role: ${name}` })).toBeVisible();
    await expect(page.getByRole('checkbox', { name: 'Loans › Customers › View', exact: true })).toBeChecked();
    await page.getByRole('checkbox', { name: 'Loans › Customers › Opt in', exact: true }).check();
    // "All of Customers" grants the whole resource: its actions show ticked and locked until it is untied.
    const whole = page.getByRole('checkbox', { name: 'All of Customers', exact: true });
    await whole.check();
    await expect(page.getByRole('checkbox', { name: 'Loans › Customers › Opt out', exact: true })).toBeDisabled();
    await expect(page.getByRole('checkbox', { name: 'Loans › Customers › Opt out', exact: true })).toBeChecked();
    await whole.uncheck();
    await expect(page.getByRole('checkbox', { name: 'Loans › Customers › Opt out', exact: true })).not.toBeChecked();
    await expect(page.getByRole('checkbox', { name: 'Loans › Customers › Opt in', exact: true })).toBeChecked();
    await page.getByRole('button', { name: 'Save role' }).click();
    await expect(page.getByRole('status')).toHaveText(`The role ${name} was saved.`);
    await expect(page.locator('table.data-table tbody tr').filter({ hasText: name }).locator('td').nth(2)).toHaveText(
      '2',
    );

    // Delete: refused without the confirmation, then done.
    await page.getByRole('link', { name, exact: true }).click();
    await page.getByRole('button', { name: 'Delete role' }).click();
    await expect(page.locator('#role-delete-error')).toHaveText('Tick the confirmation box to delete the role.');
    await page.getByLabel(`Yes, delete the role ${name}`).check();
    await page.getByRole('button', { name: 'Delete role' }).click();
    await expect(page).toHaveURL(/\/admin\/user\/roles\?done=deleted/);
    await expect(page.getByRole('status')).toHaveText('The role was deleted.');
    await expect(page.locator('table.data-table')).not.toContainText(name);
  });

  test('the Administrator role is read-only on the page and on the API; unknown roles are 404', async ({ page }) => {
    await signIn(page, 'admin@demo.test');
    await page.goto('/admin/user/roles');
    await page
      .locator('table.data-table tbody tr')
      .filter({ has: page.locator('.badge') })
      .first()
      .getByRole('link')
      .click();
    await expect(page.getByRole('note')).toContainText('cannot be changed or deleted');
    await expect(page.getByRole('checkbox', { name: 'Administration › Users › Edit', exact: true })).toBeChecked();
    await expect(page.getByRole('checkbox', { name: 'Administration › Users › Edit', exact: true })).toBeDisabled();
    await expect(page.getByRole('button', { name: 'Save role' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Delete role' })).toHaveCount(0);
    const adminId = page.url().split('/').pop()!;
    const patch = await page.request.patch(`/v1/roles/${adminId}`, {
      data: { name: 'Superuser' },
      headers: { origin: appOrigin() },
    });
    expect(patch.status()).toBe(403);
    expect((await patch.json()).error.message).toContain('cannot be changed');
    const del = await page.request.delete(`/v1/roles/${adminId}`, { headers: { origin: appOrigin() } });
    expect(del.status()).toBe(403);

    const missing = await page.goto('/admin/user/roles/00000000-0000-4000-8000-000000000000');
    expect(missing?.status()).toBe(404);
    const malformed = await page.goto('/admin/user/roles/not-a-role');
    expect(malformed?.status()).toBe(404);
  });

  test('someone without roles permissions is refused the pages and the API', async ({ page }) => {
    await signIn(page, 'officer@demo.test');
    for (const path of ['/admin/user/roles', '/admin/user/roles/add', '/admin/user/permissions'])
      expect((await page.goto(path))?.status(), path).toBe(403);
    expect((await page.request.get('/v1/roles')).status()).toBe(403);
    expect((await page.request.get('/v1/permissions?format=csv')).status()).toBe(403);
    const post = await page.request.post('/v1/roles', {
      data: { name: 'Mine', permissions: ['admin'] },
      headers: { origin: appOrigin() },
    });
    expect(post.status()).toBe(403);
  });

  test('in French: every page of the area, a role created, found in the matrix and deleted', async ({ page }) => {
    await signIn(page, 'admin@demo.test');
    await setLanguage(page, 'fr-FR');
    try {
      const name = `E2E lecteur ${unique()}`;
      expect((await page.goto('/admin/user/roles'))?.status()).toBe(200);
      await expect(page.getByRole('heading', { level: 1, name: 'Rôles' })).toBeVisible();
      await expect(page.locator('table.data-table .badge').first()).toHaveText('Administrateur');

      expect((await page.goto('/admin/user/roles/add'))?.status()).toBe(200);
      await expect(page.getByRole('heading', { level: 1, name: 'Ajouter un rôle' })).toBeVisible();
      await page.getByLabel('Nom', { exact: true }).fill(name);
      await page.getByRole('checkbox', { name: 'Prêts › Clients › Consulter', exact: true }).check();
      await expect(page.locator('[data-perm-count]')).toHaveText(/^1 permissions sélectionnées sur \d+$/);
      await page.getByRole('button', { name: 'Créer le rôle' }).click();
      await expect(page.getByRole('status')).toHaveText(`Le rôle ${name} a été créé.`);

      // A refusal in French: a name already taken.
      await page.goto('/admin/user/roles/add');
      await page.getByLabel('Nom', { exact: true }).fill(name);
      await page.getByRole('button', { name: 'Créer le rôle' }).click();
      await expect(page.locator('#role-name-error')).toHaveText(
        `Un rôle nommé « ${name} » existe déjà : choisissez un autre nom.`,
      );

      expect((await page.goto('/admin/user/permissions?q=clients'))?.status()).toBe(200);
      await expect(page.getByRole('heading', { level: 1, name: 'Permissions' })).toBeVisible();
      await expect(page.getByLabel('Domaine')).toBeVisible();
      await expect(await matrixCell(page, 'loans.customers.view', name)).toHaveText('Oui');
      await expect(page.getByRole('heading', { level: 2, name: 'Personnes par rôle' })).toBeVisible();
      const csv = await page.request.get('/v1/permissions?format=csv&area=loans');
      expect(csv.status()).toBe(200);
      expect((await csv.text()).replace(/^\uFEFF/, '')).toMatch(/^Domaine,Ressource,Action,Clé,Administrator,/);

      await page.goto('/admin/user/roles');
      await page.getByRole('link', { name, exact: true }).click();
      await expect(page.getByRole('heading', { level: 1, name: `Rôle : ${name}` })).toBeVisible();
      await page.getByLabel(`Oui, supprimer le rôle ${name}`).check();
      await page.getByRole('button', { name: 'Supprimer le rôle' }).click();
      await expect(page.getByRole('status')).toHaveText('Le rôle a été supprimé.');
      await expect(page.locator('table.data-table')).not.toContainText(name);
    } finally {
      await setLanguage(page, 'en-US');
    }
  });
});
