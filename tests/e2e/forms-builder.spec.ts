import { appOrigin, expect, islandsHydrated, signIn, test } from './support/fixtures.ts';
import { addField, unique } from './support/form-builder.ts';

/**
 * [FORMS-BUILDER]: the administrator creates an application form (plain form post), adds a radio
 * field, a field shown only for one of its values and a required consent, previews it as an applicant,
 * publishes version 1 and sees the public link, changes a label and publishes version 2 (version 1
 * unchanged); edits the customers' customized form (adds a text field, saved at once). A loan officer
 * gets the 403 page and the API refuses; unknown ids are 404. Forms are the test's own (unique slugs).
 */

test.describe('[FORMS-BUILDER]: application and customized forms in the browser', () => {
  test('build a form with a conditional field and a required consent, publish version 1 then 2', async ({ page }) => {
    test.slow(); // a form post, five edits, two publications
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await signIn(page, 'admin@demo.test');
    const slug = `e2e-form-${unique()}`;
    expect((await page.goto('/admin/business/application-form'))?.status()).toBe(200);
    await page.getByLabel('Name', { exact: true }).fill(`E2E form ${slug}`);
    await page.getByLabel('Public link id').fill(slug);
    await page.getByRole('button', { name: 'Create the form' }).click();
    await expect(page).toHaveURL(/\/admin\/business\/application-form\/[0-9a-f-]{36}\?done=created$/);
    const formId = /application-form\/([0-9a-f-]{36})/.exec(page.url())![1];
    await islandsHydrated(page);
    await expect(page.getByTestId('form-status')).toHaveText('Status: Draft');
    await expect(page.getByTestId('live-problems')).toContainText('Before publishing: Form: Add at least one field.');

    const step = page.getByTestId('step-0');
    // A radio field with two options, required.
    let panel = await addField(page, step, 'radio');
    await panel.getByLabel('Question (English)').fill('Employment');
    await panel.getByLabel('Question (French)').fill('Emploi');
    await panel.getByLabel('Required').check();
    await panel.getByRole('button', { name: 'Add an option' }).click();
    await panel.getByTestId('option-0').getByLabel('Value').fill('salaried');
    await panel.getByTestId('option-0').getByLabel('Label (English)').fill('Salaried');
    await panel.getByTestId('option-1').getByLabel('Value').fill('self');
    await panel.getByTestId('option-1').getByLabel('Label (English)').fill('Self-employed');
    await panel.getByTestId('option-1').getByLabel('Label (French)').fill('Indépendant');

    // A text field shown only for "self", required while it shows.
    panel = await addField(page, step, 'text');
    await panel.getByLabel('Question (English)').fill('Business name');
    await panel.getByLabel('Show only when').selectOption({ label: 'Employment' });
    await panel.getByLabel('Self-employed').check();
    await panel.getByLabel('Salaried').uncheck();
    await panel.getByLabel('Required').check();
    await expect(page.getByTestId('field-row-text_1')).toContainText('Conditional');

    // A required consent with its text.
    panel = await addField(page, step, 'consent');
    await panel.getByLabel('Question (English)').fill('Your consent');
    await panel.getByLabel('Consent text (English)').fill('I agree to the processing of my data.');
    await panel.getByLabel('Required').check();
    await expect(page.getByTestId('live-problems')).toContainText('The form is ready.');

    // The preview follows the same visibility rules, in English and French.
    const preview = page.getByTestId('preview-frame');
    await expect(preview.getByTestId('preview-field-radio_1')).toBeVisible();
    await expect(preview.getByTestId('preview-field-text_1')).toHaveCount(0);
    await preview.getByLabel('Self-employed').check();
    await expect(preview.getByTestId('preview-field-text_1')).toBeVisible();
    await page.getByLabel('Language').selectOption('fr');
    await expect(preview.getByTestId('preview-field-radio_1')).toContainText('Emploi');
    await expect(preview.getByLabel('Indépendant')).toBeChecked();
    const box = await preview.boundingBox();
    expect(Math.round(box!.width)).toBe(360);
    expect(Math.round(box!.height)).toBe(640);

    // Publish (saves first): version 1 and the public link.
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    // Two requests and a re-render of the whole editor: generous on a loaded test machine.
    await expect(page.getByTestId('editor-notice'), errors.join('\n')).toHaveText('Version 1 published.', {
      timeout: 15_000,
    });
    await expect(page.getByTestId('published-version')).toHaveText('Version 1 is published');
    await expect(page.getByTestId('public-link-url')).toHaveText(`${appOrigin()}/application/${slug}`);
    await expect(page.getByTestId('form-status')).toHaveText('Status: Published');

    // Nothing changed: nothing to publish.
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await expect(page.getByTestId('editor-failure')).toContainText('Nothing to publish', { timeout: 15_000 });

    // A new label, published as version 2.
    await page.getByRole('button', { name: 'Edit “Employment”' }).click();
    await page.getByTestId('field-panel-radio_1').getByLabel('Question (English)').fill('Your work');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByTestId('editor-notice')).toHaveText('Saved.', { timeout: 15_000 });
    await expect(page.getByTestId('form-status')).toHaveText('Status: Changed since publishing');
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await expect(page.getByTestId('editor-notice')).toHaveText('Version 2 published.', { timeout: 15_000 });
    await expect(page.getByTestId('published-version')).toHaveText('Version 2 is published');

    const v1 = await (await page.request.get(`/v1/application-forms/${formId}/versions/1`)).json();
    expect(v1.document.ui.fields.radio_1.label.en).toBe('Employment');
    const v2 = await (await page.request.get(`/v1/application-forms/${formId}/versions/2`)).json();
    expect(v2.document.ui.fields.radio_1.label.en).toBe('Your work');
    expect(v2.document.schema.allOf[0].then.required).toEqual(['text_1']);
    expect(v2.document.schema.required).toEqual(['radio_1', 'consent_1']);

    await page.reload();
    await expect(page.getByTestId('form-versions').locator('li')).toHaveCount(2);
    expect((await page.goto('/admin/business/application-form'))?.status()).toBe(200);
    await expect(page.getByTestId(`form-row-${slug}`)).toContainText('Published');

    // A second form cannot take the same link.
    await page.getByLabel('Name', { exact: true }).fill(`E2E other ${slug}`);
    await page.getByLabel('Public link id').fill(slug);
    await page.getByRole('button', { name: 'Create the form' }).click();
    await expect(page.locator('#form-slug-error')).toContainText('already taken');
  });

  test('the customers’ customized form gets a text field, saved at once', async ({ page }) => {
    await signIn(page, 'admin@demo.test');
    expect((await page.goto('/admin/business/customized-form'))?.status()).toBe(200);
    const row = page.getByTestId('customized-row-customer');
    const before = Number(await row.locator('td.num').innerText());
    await row.getByRole('link').click();
    await expect(page).toHaveURL(/\/admin\/business\/customized-form\/customer$/);
    await islandsHydrated(page);
    const step = page.getByTestId('step-0');
    await expect(step.getByLabel('Kind of field').locator('option[value="file"]')).toHaveCount(0);
    await expect(step.getByLabel('Kind of field').locator('option[value="consent"]')).toHaveCount(0);
    const panel = await addField(page, step, 'text');
    await expect(panel.getByLabel('Fills in')).toHaveCount(0);
    await panel.getByLabel('Question (English)').fill(`Nickname ${unique()}`);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByTestId('editor-notice')).toHaveText('Saved.', { timeout: 15_000 });
    await page.goto('/admin/business/customized-form');
    await expect(page.getByTestId('customized-row-customer').locator('td.num')).toHaveText(String(before + 1));
  });

  test('unknown ids are 404; a loan officer gets the 403 page and the API refuses', async ({ page }) => {
    await signIn(page, 'admin@demo.test');
    expect((await page.goto('/admin/business/application-form/00000000-0000-4000-8000-000000000000'))?.status()).toBe(
      404,
    );
    expect((await page.goto('/admin/business/application-form/not-an-id'))?.status()).toBe(404);
    expect((await page.goto('/admin/business/customized-form/loans'))?.status()).toBe(404);

    await page.context().clearCookies();
    await signIn(page, 'officer@demo.test');
    for (const path of [
      '/admin/business/application-form',
      '/admin/business/application-form/00000000-0000-4000-8000-000000000000',
      '/admin/business/customized-form',
      '/admin/business/customized-form/customer',
    ]) {
      expect((await page.goto(path))?.status(), path).toBe(403);
      await expect(page.locator('h1')).toBeVisible();
    }
    expect((await page.request.get('/v1/application-forms')).status()).toBe(403);
    const post = await page.request.post('/v1/application-forms', {
      data: { name: 'Mine', slug: 'officer-form' },
      headers: { origin: appOrigin() },
    });
    expect(post.status()).toBe(403);
    const put = await page.request.put('/v1/customized-forms/customer', {
      data: { document: {}, expectedRevision: null },
      headers: { origin: appOrigin() },
    });
    expect(put.status()).toBe(403);
  });
});
