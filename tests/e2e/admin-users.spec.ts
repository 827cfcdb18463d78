import { appOrigin, expect, signIn, signInThroughForm, test } from './support/fixtures.ts';
import { latestMailTo } from './support/mail.ts';

// Admin › Users (issue 11): the list, the invitation form and the edit page in English and French; an
// invitation through the /add form with the seeded "Loan officer" role scoped to one branch, the
// e-mailed link (outbox), the first password, the invitee's sign-in; then the administrator disables
// them and the invitee's open session is refused on its next request. Works on a user it creates;
// the administrator's language is put back to English.

const PASSWORD = 'Quartz-Heron-Lantern-58!';

test.describe('[ADMIN]: users', () => {
  test('the list, invitation and edit pages answer with real content, in English and in French', async ({ page }) => {
    await signIn(page, 'admin@demo.test');
    const list = await page.goto('/admin/user/users');
    expect(list?.status()).toBe(200);
    await expect(page.getByRole('heading', { level: 1, name: 'Users' })).toBeVisible();
    const table = page.locator('table.data-table');
    await expect(table.getByRole('columnheader', { name: 'Last sign-in' })).toBeVisible();
    await expect(table.getByRole('row', { name: /Olivia Officer/ })).toContainText('Branch: Paris Centre');
    await expect(table.getByRole('row', { name: /Alice Admin/ })).toContainText('Whole organisation');

    // Search and filters live in the URL.
    await page.getByLabel('Name or e-mail').fill('olivia');
    await page.getByLabel('Status').selectOption('active');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect(page).toHaveURL(/q=olivia/);
    await expect(table.locator('tbody tr')).toHaveCount(1);
    await page.goto('/admin/user/users?q=nobody-has-this-name');
    await expect(page.locator('.empty-state')).toHaveText('No user matches these filters.');

    const add = await page.goto('/admin/user/users/add');
    expect(add?.status()).toBe(200);
    await expect(page.getByRole('heading', { level: 1, name: 'Invite a user' })).toBeVisible();
    await expect(page.getByRole('checkbox', { name: 'Loan officer', exact: true })).toBeVisible();
    await expect(page.getByRole('checkbox', { name: /^Paris Centre PAR-01/ })).toBeVisible();

    await page.goto('/admin/user/users?q=olivia');
    await page.getByRole('link', { name: 'Edit Olivia Officer' }).click();
    await expect(page).toHaveURL(/\/admin\/user\/users\/edit\/[0-9a-f-]{36}$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Olivia Officer' })).toBeVisible();
    await expect(page.getByRole('checkbox', { name: /^Paris Centre PAR-01/ })).toBeChecked();
    const missing = await page.goto('/admin/user/users/edit/00000000-0000-4000-8000-000000000000');
    expect(missing?.status()).toBe(404);

    // French: the administrator switches their own language through PATCH /v1/users/{id}, and back.
    const me = await (await page.request.get('/v1/users/me')).json();
    const setLanguage = async (language: string) => {
      const res = await page.request.patch(`/v1/users/${me.id}`, {
        data: { language },
        headers: { origin: appOrigin() },
      });
      expect(res.status(), await res.text()).toBe(200);
    };
    await setLanguage('fr-FR');
    try {
      await page.goto('/admin/user/users');
      await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
      await expect(page.getByRole('heading', { level: 1, name: 'Utilisateurs' })).toBeVisible();
      await expect(page.getByRole('columnheader', { name: 'Dernière connexion' })).toBeVisible();
      await expect(page.locator('table.data-table').getByRole('row', { name: /Olivia Officer/ })).toContainText(
        'Agence : Paris Centre',
      );
      await page.goto('/admin/user/users/add');
      await expect(page.getByRole('heading', { level: 1, name: 'Inviter un utilisateur' })).toBeVisible();
      await expect(page.getByRole('button', { name: 'Envoyer l’invitation' })).toBeVisible();
      await page.goto('/admin/user/users?q=olivia');
      await page.getByRole('link', { name: 'Modifier Olivia Officer' }).click();
      await expect(page.getByRole('button', { name: 'Enregistrer' })).toBeVisible();
      await expect(page.getByText('Permissions sur les données', { exact: true })).toBeVisible();
    } finally {
      await setLanguage('en-US');
    }
  });

  test('invite through /add, accept the e-mailed link, sign in; disabled, the open session is refused', async ({
    page,
    browser,
    baseURL,
  }) => {
    const email = `e2e.invitee.${Date.now()}@demo.test`;
    const since = Date.now() - 1000;
    await signIn(page, 'admin@demo.test');
    await page.goto('/admin/user/users/add');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Name').fill('Iris Invitee');
    await page.getByLabel('Language').selectOption('en-US');
    await page.getByRole('checkbox', { name: 'Loan officer', exact: true }).check();
    await page.getByRole('checkbox', { name: /^Paris Centre PAR-01/ }).check();
    await page.getByRole('button', { name: 'Send the invitation' }).click();
    await expect(page).toHaveURL(/\/admin\/user\/users\/edit\/[0-9a-f-]{36}\?done=invited$/);
    await expect(page.getByRole('status')).toHaveText('The invitation has been sent.');
    await expect(page.locator('[data-status]')).toHaveText('Invited');
    const editUrl = new URL(page.url()).pathname;

    // The invitee opens the e-mailed link in their own browser.
    const mail = await latestMailTo(email, since);
    expect(mail).toContain('Demo Lending');
    const link = mail.match(/https?:\/\/\S+\/user\/reset-password\?\S+/)?.[0];
    expect(link).toBeTruthy();
    const inviteeContext = await browser.newContext({ baseURL });
    const invitee = await inviteeContext.newPage();
    try {
      const url = new URL(link!);
      await invitee.goto(`${url.pathname}${url.search}`);
      await expect(invitee.getByRole('heading', { level: 1, name: 'Welcome, Iris Invitee' })).toBeVisible();
      await invitee.getByLabel('New password', { exact: true }).fill(PASSWORD);
      await invitee.getByLabel('Confirm the new password').fill(PASSWORD);
      await invitee.getByRole('button', { name: 'Set my password' }).click();
      await expect(invitee).toHaveURL(/\/user\/login/);
      await signInThroughForm(invitee, email, PASSWORD);
      await expect(invitee).toHaveURL((u) => u.pathname === '/');
      const opened = await invitee.goto('/loans/customers');
      expect(opened?.status()).toBe(200);
      const meAnswer = await invitee.request.get('/v1/users/me');
      expect(meAnswer.status()).toBe(200);
      expect(await meAnswer.json()).toMatchObject({
        email,
        roles: [{ name: 'Loan officer' }],
        data_permissions: [{ field: 'branch', value: 'PAR-01' }],
      });

      // The administrator sees them active with a last sign-in, then disables them.
      await page.goto(`/admin/user/users?q=${encodeURIComponent(email)}`);
      const row = page.locator('table.data-table tbody tr');
      await expect(row).toContainText('Active');
      await expect(row).not.toContainText('Never');
      await page.goto(editUrl);
      await page.getByText('Disable the user').click();
      await page.getByRole('button', { name: 'Yes, disable Iris Invitee' }).click();
      await expect(page.getByRole('status')).toHaveText('The user is disabled and signed out.');
      await expect(page.locator('[data-status]')).toHaveText('Disabled');

      // The invitee's open session is refused on its next request.
      expect((await invitee.request.get('/v1/users/me')).status()).toBe(401);
      await invitee.goto('/loans/customers');
      await expect(invitee).toHaveURL(/\/user\/login/);
    } finally {
      await inviteeContext.close();
    }
  });
});
