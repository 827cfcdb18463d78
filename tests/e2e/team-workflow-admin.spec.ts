import { expect, signIn, test, appOrigin } from './support/fixtures.ts';

/**
 * Admin › Business › Collection workflow: an administrator creates a workflow with two steps, edits the
 * buckets (a gap is refused with the message in the user's language, French here), an analyst is
 * refused, an unknown workflow is the 404 page. The demo has no French administrator, so the admin
 * switches to French for the bucket check and back at the end.
 */
test.describe('[TEAM] collection workflow administration', () => {
  test('an administrator creates a workflow with two steps and sees it under its bucket', async ({ page }) => {
    await signIn(page, 'admin@demo.test');
    await page.goto('/admin/business/collection-workflow');
    await expect(page.getByRole('heading', { level: 1, name: 'Collection workflow' })).toBeVisible();
    await page.getByRole('link', { name: 'New workflow' }).click();
    await expect(page).toHaveURL(/\/admin\/business\/collection-workflow\/new$/);

    const name = `E2E follow-up ${Date.now()}`;
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByLabel('Bucket', { exact: true }).selectOption({ label: '1–30' });
    const first = page.getByTestId('step-0');
    await first.locator('[name$=".action"]').selectOption('create_task');
    await first.locator('[name$=".offsetDays"]').fill('2');
    await first.locator('[name$=".title"]').fill('E2E call the customer');
    await first.locator('[name$=".priority"]').selectOption('high');
    const second = page.getByTestId('step-1');
    await second.locator('[name$=".action"]').selectOption('send_template');
    await second.locator('[name$=".offsetDays"]').fill('4');
    await second.locator('[name$=".templateCode"]').fill('payment_reminder_sms');

    // A send_template step without a template is refused first, naming the problem.
    const third = page.getByTestId('step-2');
    await third.locator('[name$=".action"]').selectOption('send_template');
    await page.getByRole('button', { name: 'Create workflow' }).click();
    await expect(page.getByTestId('form-error')).toBeVisible();
    await expect(page).toHaveURL(/\/new$/);
    await page.getByTestId('step-2').locator('[name$=".action"]').selectOption('');
    await page.getByRole('button', { name: 'Create workflow' }).click();

    await expect(page).toHaveURL(/\/admin\/business\/collection-workflow\/[0-9a-f-]{36}\?done=created$/);
    await expect(page.getByRole('status')).toContainText(`Workflow “${name}” created.`);
    await expect(page.getByTestId('step-0').locator('[name$=".title"]')).toHaveValue('E2E call the customer');
    await expect(page.getByTestId('step-1').locator('[name$=".templateCode"]')).toHaveValue('payment_reminder_sms');

    // Disable it (so the collection spec's closes are not changed by it) and find it in the list.
    await page.getByLabel('Enabled', { exact: true }).uncheck();
    await page.getByRole('button', { name: 'Save workflow' }).click();
    await expect(page.getByRole('status')).toContainText('Workflow saved.');
    await page.goto('/admin/business/collection-workflow');
    const row = page.getByTestId('bucket-workflows-1').getByRole('row', { name: new RegExp(name) });
    await expect(row).toContainText('Disabled');
    await expect(row).toContainText('Day 2: Create a task');
    await expect(row).toContainText('Day 4: Send a message template');

    // Delete it, with the confirmation.
    await row.getByRole('link', { name }).click();
    await page.getByText('Delete this workflow').click();
    await page.getByRole('button', { name: 'Yes, delete it' }).click();
    await expect(page.getByRole('status')).toContainText(`Workflow “${name}” deleted.`);
  });

  test('buckets: a gap is refused in French, a rename is saved', async ({ page }) => {
    await signIn(page, 'admin@demo.test');
    const me = await (await page.request.get('/v1/users/me')).json();
    const setLanguage = async (language: string) => {
      const response = await page.request.patch(`/v1/users/${me.id}`, {
        data: { language },
        headers: { origin: appOrigin() },
      });
      expect(response.status(), await response.text()).toBe(200);
    };
    await setLanguage('fr-FR');
    try {
      await page.goto('/admin/business/collection-workflow');
      await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
      await expect(page.getByRole('heading', { level: 1, name: 'Processus de recouvrement' })).toBeVisible();
      const form = page.getByTestId('buckets-form');
      await form.getByTestId('bucket-row-1').locator('input[name="buckets.1.minDays"]').fill('35');
      await form.getByRole('button', { name: 'Enregistrer les tranches' }).click();
      await expect(page.getByTestId('buckets-error')).toContainText('doit commencer au jour 31');
      await expect(page.locator('input[name="buckets.1.minDays"]')).toHaveValue('35');

      // Rename the last bucket, then put the name back.
      await page.goto('/admin/business/collection-workflow');
      await page.locator('input[name="buckets.3.name"]').fill('Plus de 90');
      await page.getByRole('button', { name: 'Enregistrer les tranches' }).click();
      await expect(page.getByRole('status')).toContainText('Tranches enregistrées.');
      await expect(page.getByTestId('bucket-workflows-4')).toContainText('Plus de 90');
      await page.locator('input[name="buckets.3.name"]').fill('90+');
      await page.getByRole('button', { name: 'Enregistrer les tranches' }).click();
      await expect(page.getByRole('status')).toContainText('Tranches enregistrées.');
    } finally {
      await setLanguage('en-US');
    }
  });

  test('an analyst is refused; an unknown workflow is the 404 page', async ({ page, browser }) => {
    await signIn(page, 'analyst@demo.test');
    expect((await page.goto('/admin/business/collection-workflow'))?.status()).toBe(403);
    expect((await page.goto('/admin/business/collection-workflow/new'))?.status()).toBe(403);
    const context = await browser.newContext({ baseURL: appOrigin() });
    const admin = await context.newPage();
    await signIn(admin, 'admin@demo.test');
    expect(
      (await admin.goto('/admin/business/collection-workflow/00000000-0000-4000-8000-000000000000'))?.status(),
    ).toBe(404);
    expect((await admin.goto('/admin/business/collection-workflow/not-an-id'))?.status()).toBe(404);
    await context.close();
  });
});
