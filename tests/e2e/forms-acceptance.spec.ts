import crypto from 'node:crypto';
import { expect, islandsHydrated, signIn, test } from './support/fixtures.ts';
import { addField, unique } from './support/form-builder.ts';

/**
 * [FORMS-ACCEPTANCE] (issue 13): an administrator builds a form in the browser — starting from the
 * demo personal-loan form, whose bound questions make the customer and the application — adds a
 * choice, a question shown only for one of its answers and a required consent, and publishes it. An
 * applicant fills it in French on a phone without JavaScript (the conditional question answered, the
 * consent given); the decision engine, bound for this test, pre-approves the application. The administrator then changes the form and publishes version 2: the submission keeps
 * version 1, and its page shows the questions as version 1 asked them.
 */
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

test('[FORMS-ACCEPTANCE]: build, publish, apply in French, the submission keeps its version', async ({
  page,
  browser,
}) => {
  test.slow(); // a form built by hand, an application of five pages, a second publication
  await signIn(page, 'admin@demo.test');
  const slug = `accept-${unique()}`;
  expect((await page.goto('/admin/business/application-form'))?.status()).toBe(200);
  await page.getByLabel('Name', { exact: true }).fill(`Acceptance ${slug}`);
  await page.getByLabel('Public link id').fill(slug);
  await page.locator('#form-copy').selectOption({ label: 'A copy of “Personal loan”' });
  await page.getByRole('button', { name: 'Create the form' }).click();
  await expect(page).toHaveURL(/\/admin\/business\/application-form\/[0-9a-f-]{36}\?done=created$/);
  const formId = /application-form\/([0-9a-f-]{36})/.exec(page.url())![1];
  await islandsHydrated(page);

  // On the first step: a required choice and a question shown (and required) only for one answer.
  const first = page.getByTestId('step-0');
  let panel = await addField(page, first, 'radio');
  await panel.getByLabel('Question (English)').fill('Employment');
  await panel.getByLabel('Question (French)').fill('Emploi');
  await panel.getByLabel('Required').check();
  await panel.getByRole('button', { name: 'Add an option' }).click();
  await panel.getByTestId('option-0').getByLabel('Value').fill('salaried');
  await panel.getByTestId('option-0').getByLabel('Label (English)').fill('Salaried');
  await panel.getByTestId('option-0').getByLabel('Label (French)').fill('Salarié');
  await panel.getByTestId('option-1').getByLabel('Value').fill('self');
  await panel.getByTestId('option-1').getByLabel('Label (English)').fill('Self-employed');
  await panel.getByTestId('option-1').getByLabel('Label (French)').fill('Indépendant');
  panel = await addField(page, first, 'text');
  await panel.getByLabel('Question (English)').fill('Business name');
  await panel.getByLabel('Question (French)').fill('Nom de l’entreprise');
  await panel.getByLabel('Show only when').selectOption({ label: 'Employment' });
  await panel.getByLabel('Self-employed').check();
  await panel.getByLabel('Salaried').uncheck();
  await panel.getByLabel('Required').check();

  // On the last step: a second required consent, with its text.
  const last = page.getByTestId('step-3');
  panel = await addField(page, last, 'consent');
  await panel.getByLabel('Question (English)').fill('I accept to be called');
  await panel.getByLabel('Question (French)').fill('J’accepte d’être appelé');
  await panel.getByLabel('Consent text (English)').fill('The lender may call me about this application.');
  await panel.getByLabel('Consent text (French)').fill('Le prêteur peut m’appeler au sujet de cette demande.');
  await panel.getByLabel('Required').check();
  await expect(page.getByTestId('live-problems')).toContainText('The form is ready.');
  await page.getByRole('button', { name: 'Publish', exact: true }).click();
  await expect(page.getByTestId('editor-notice')).toHaveText('Version 1 published.', { timeout: 15_000 });

  // A decision engine on submitted applications for this test (the browser tests' amount rules:
  // anything up to 50,000 is approved), disabled again at the end so other tests stay undecided.
  const binding = `Acceptance binding ${slug}`;
  await page.goto('/admin/business/decision-engine/new');
  await page.getByLabel('Name').fill(binding);
  // The option says "(in use)" once another test has bound the model: found by its start.
  const versions = page.getByLabel('Model and version');
  const amountRules = await versions.locator('option', { hasText: 'E2E amount rules — v1' }).getAttribute('value');
  await versions.selectOption(amountRules!);
  await page.getByRole('checkbox', { name: /^Enabled/ }).check();
  await page.getByRole('button', { name: 'Create binding' }).click();
  await expect(page).toHaveURL(/\/admin\/business\/decision-engine\?done=created/);
  try {
    await applyAndCheck();
  } finally {
    await page.goto('/admin/business/decision-engine');
    await page.getByRole('link', { name: binding }).first().click();
    await page.getByRole('checkbox', { name: /^Enabled/ }).uncheck();
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page).toHaveURL(/done=saved/);
  }

  async function applyAndCheck(): Promise<void> {
    // The applicant, in French, on a phone, without JavaScript.
    const bytes = crypto.randomBytes(3);
    const context = await browser.newContext({
      viewport: { width: 360, height: 640 },
      javaScriptEnabled: false,
      locale: 'fr-FR',
      extraHTTPHeaders: {
        'accept-language': 'fr-FR,fr;q=0.9',
        'x-forwarded-for': `10.${bytes[0]}.${bytes[1]}.${bytes[2]}`,
      },
    });
    const applicant = await context.newPage();
    expect((await applicant.goto(`/application/${slug}`))?.status()).toBe(200);
    await expect(applicant.getByRole('heading', { level: 1, name: 'Votre prêt' })).toBeVisible();
    await applicant.getByLabel('Montant').fill('1500');
    await applicant.getByLabel('Nombre de mensualités').fill('12');
    await applicant.getByRole('radio', { name: 'Voiture' }).check();
    await applicant.getByRole('radio', { name: 'Indépendant' }).check();
    // Without JavaScript the conditional question shows with its "only if" hint; left empty, it is required.
    await expect(applicant.getByText('À remplir seulement si « Emploi » vaut : Indépendant.')).toBeVisible();
    await applicant.getByRole('button', { name: 'Suivant' }).click();
    await expect(applicant.locator('.form-field__error')).toHaveText('Ce champ est obligatoire.');
    await applicant.getByLabel('Nom de l’entreprise').fill('Atelier Dupont');
    await applicant.getByRole('button', { name: 'Suivant' }).click();

    await expect(applicant.getByRole('heading', { level: 1, name: 'Vous concernant' })).toBeVisible();
    const nationalId = `ACC-${crypto.randomBytes(4).toString('hex').toUpperCase()}`;
    await applicant.getByLabel('Prénom').fill('Lucie');
    await applicant.locator('input[name="lastName"]').fill('Dupont');
    await applicant.getByLabel('Numéro d’identité').fill(nationalId);
    await applicant.getByLabel('Date de naissance').fill('1988-06-15');
    await applicant.getByLabel('Téléphone mobile').fill('+33 6 98 76 54 32');
    await applicant.getByRole('button', { name: 'Suivant' }).click();

    await expect(applicant.getByRole('heading', { level: 1, name: 'Documents' })).toBeVisible();
    await applicant
      .getByLabel('Pièce d’identité ou bulletin de salaire')
      .setInputFiles({ name: 'bulletin.pdf', mimeType: 'application/pdf', buffer: PDF });
    await applicant.getByRole('button', { name: 'Suivant' }).click();

    await expect(applicant.getByRole('heading', { level: 1, name: 'Consentement' })).toBeVisible();
    // The role's name leaves out the label's decorative required marker.
    await applicant.getByRole('checkbox', { name: 'J’accepte', exact: true }).check();
    await applicant.getByRole('button', { name: 'Suivant' }).click();
    // The new consent is required: the browser itself keeps the step until it is given (the server
    // refuses it too: tests/integration/intake-public.test.ts).
    await expect(applicant.getByRole('heading', { level: 1, name: 'Consentement' })).toBeVisible();
    await expect(applicant.locator('input[name="consent_1"]:invalid')).toHaveCount(1);
    await applicant.getByRole('checkbox', { name: 'J’accepte d’être appelé', exact: true }).check();
    await applicant.getByRole('button', { name: 'Suivant' }).click();

    await expect(applicant.getByRole('heading', { level: 1, name: 'Vérifiez vos réponses' })).toBeVisible();
    await expect(applicant.getByText('Atelier Dupont')).toBeVisible();
    await applicant.getByRole('button', { name: 'Envoyer ma demande' }).click();
    await expect(applicant.getByText('Votre demande est pré-approuvée', { exact: true })).toBeVisible();
    const reference = ((await applicant.locator('[data-reference]').textContent()) ?? '').trim();
    expect(reference).toMatch(/^APP-[A-Z0-9]{6}$/);
    await context.close();

    // The form changes: version 2.
    await page.goto(`/admin/business/application-form/${formId}`);
    await islandsHydrated(page);
    await page.getByRole('button', { name: 'Edit “Employment”' }).click();
    await page.getByTestId('field-panel-radio_1').getByLabel('Question (English)').fill('Your work');
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await expect(page.getByTestId('editor-notice')).toHaveText('Version 2 published.', { timeout: 15_000 });

    // The submission keeps version 1, and shows the questions as version 1 asked them.
    expect((await page.goto(`/admin/business/application-form/${formId}/submissions`))?.status()).toBe(200);
    const row = page.getByTestId('submissions-table').locator('tbody tr', { hasText: reference });
    await expect(row).toHaveCount(1);
    await expect(row.locator('td.num')).toHaveText('1');
    await expect(row).toContainText('Lucie Dupont');
    await row.getByRole('link', { name: reference }).click();
    await expect(page.getByText('Version 1', { exact: true })).toBeVisible();
    const answers = page.getByTestId('submission-answers');
    await expect(answers).toContainText('Employment');
    await expect(answers).not.toContainText('Your work');
    await expect(answers).toContainText('Self-employed');
    await expect(answers).toContainText('Atelier Dupont');
    await expect(answers).toContainText('bulletin.pdf');
    await expect(answers).toContainText('I accept to be called');
    // Its application, and the decision the engine took on it with its why.
    await expect(page.getByTestId('submission-application')).toBeVisible();
    const decision = page.locator('.decision-why');
    await expect(decision).toContainText('Approve');
    await expect(decision).toContainText('Reasonable request');
  }
});
