import type { Page } from '@playwright/test';
import { appOrigin, expect, islandsHydrated, signIn, test } from './support/fixtures.ts';

/**
 * [ADMIN-DECISION-MODELS]: the administrator creates a decision table, adds a rule and a test case,
 * saves (the test passes), breaks the test and sees the save refused with the report, tries the model
 * and sees the rule that fired; saving a model whose version is in use makes a new version; a loan
 * officer is refused; the editor in French at 1024 px. Models are the test's own (unique names), apart
 * from the E2E fixture "E2E policy in use" (src/lib/seed/e2e-decision-model.ts).
 */

const unique = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;

async function setLanguage(page: Page, locale: 'fr-FR' | 'en-US') {
  await page.goto('/admin/user/profile');
  await page.locator('#profile-language').selectOption(locale);
  await page.locator('form.form-stack button[type=submit]').click();
  await expect(page.locator('html')).toHaveAttribute('lang', locale.slice(0, 2));
}

async function createTableModel(page: Page, name: string) {
  expect((await page.goto('/admin/business/decision-models'))?.status()).toBe(200);
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel('Kind').selectOption('table');
  await page.getByLabel('Description', { exact: true }).fill('Browser test policy');
  await page.getByRole('button', { name: 'Create the model' }).click();
  await expect(page).toHaveURL(/\/admin\/business\/decision-models\/[0-9a-f-]{36}\?done=created$/);
  await expect(page.getByRole('status').filter({ hasText: `The model ${name} was created.` })).toBeVisible();
  await expect(page.getByTestId('rules-table')).toBeVisible();
  await islandsHydrated(page);
}

const late = {
  exposure: { maxDaysPastDue: 95, writtenOffLoans: 0, debtServiceRatio: 0.1 },
  bankStatement: { averageInflow: 4000 },
};

test.describe('[ADMIN-DECISION-MODELS]: decision models in the browser', () => {
  test('create a table, add a rule and a test case, save, see a broken test refused, try it', async ({ page }) => {
    test.slow(); // three saves, each running the test cases, and an evaluation
    await signIn(page, 'admin@demo.test');
    const name = `E2E policy ${unique()}`;
    await createTableModel(page, name);
    const rules = page.locator('[data-testid^="rule-"]');
    await expect(rules).toHaveCount(6);

    // A new rule, moved to the top with the keyboard-reachable buttons.
    await page.getByRole('button', { name: 'Add rule' }).click();
    await expect(rules).toHaveCount(7);
    await page.getByLabel('Rule 7, Worst days past due').fill('> 90');
    await page.getByLabel('Rule 7, Decision').fill('"reject"');
    await page.getByLabel('Rule 7, Limit').fill('0');
    await page.getByLabel('Rule 7, Annual rate').fill('0');
    await page.getByLabel('Rule 7, Why (description)').fill('More than 90 days late');
    for (let n = 7; n > 1; n--) {
      const up = page.getByRole('button', { name: `Move rule ${n} up` });
      await up.focus();
      await page.keyboard.press('Enter');
    }
    await expect(page.getByLabel('Rule 1, Why (description)')).toHaveValue('More than 90 days late');
    await expect(page.getByText('Unsaved changes', { exact: true })).toBeVisible();

    // A test case for it.
    await page.getByRole('button', { name: 'Add test case' }).click();
    const testCase = page.getByTestId('test-case-0');
    await testCase.getByLabel('Name').fill('Very late is refused');
    await testCase.getByLabel('Input (JSON)').fill(JSON.stringify(late));
    await testCase.getByLabel('Expected output (JSON)').fill('{"decision": "reject", "limit": 0}');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByTestId('save-notice')).toHaveText('Saved version 1. All test cases passed.');
    await expect(testCase.getByTestId('case-report')).toHaveAttribute('data-pass', 'true');
    await expect(page.getByText('Unsaved changes', { exact: true })).toBeHidden();

    // Broken on purpose: the save is refused and the case shows expected against actual.
    await testCase.getByLabel('Expected output (JSON)').fill('{"decision": "approve"}');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByTestId('save-refused')).toContainText('1 test case(s) failed');
    await expect(testCase.getByTestId('case-report')).toHaveAttribute('data-pass', 'false');
    await expect(testCase.getByTestId('case-actual')).toContainText('"decision": "reject"');
    // Not JSON: refused next to the field before anything is sent.
    await testCase.getByLabel('Expected output (JSON)').fill('{ nope');
    await expect(testCase.getByText('Not a JSON object')).toBeVisible();
    await testCase.getByLabel('Expected output (JSON)').fill('{"decision": "reject"}');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByTestId('save-notice')).toHaveText('Saved version 1. All test cases passed.');

    // Try it: the result and the rule that fired.
    await page.getByLabel('Input (JSON)', { exact: true }).last().fill(JSON.stringify(late));
    await page.getByRole('button', { name: 'Evaluate' }).click();
    await expect(page.getByTestId('try-result')).toContainText('"decision": "reject"');
    await expect(page.getByTestId('try-trace')).toContainText('More than 90 days late');

    // The list shows it with its tests passing.
    await page.goto(`/admin/business/decision-models?q=${encodeURIComponent(name)}`);
    const row = page.getByTestId('models-table').locator('tbody tr');
    await expect(row).toHaveCount(1);
    await expect(row).toContainText('Decision table');
    await expect(row).toContainText('1 passed');
  });

  test('a model whose version is in use gets a new version on save', async ({ page }) => {
    await signIn(page, 'admin@demo.test');
    await page.goto('/admin/business/decision-models?q=E2E+policy+in+use');
    await page.getByRole('link', { name: 'E2E policy in use' }).click();
    await islandsHydrated(page);
    await expect(page.getByTestId('latest-status')).toContainText('In use (immutable)');
    await expect(page.getByRole('note')).toHaveText('Version 1 is in use: saving will create version 2.');
    await page.getByLabel('Rule 1, Why (description)').fill('Late more than 30 days (reviewed)');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByTestId('save-notice')).toHaveText(
      'Version 1 is in use; your changes were saved as version 2.',
    );
    await expect(page.getByTestId('version-2')).toContainText('Editable');
    await expect(page.getByTestId('version-1')).toContainText('In use (immutable)');
    // The old version opens read-only.
    await page.getByTestId('version-1').getByRole('button', { name: 'View 1' }).click();
    await expect(page.getByText('You are viewing version 1, read-only.')).toBeVisible();
    await expect(page.getByLabel('Rule 1, Why (description)')).toHaveValue('Currently more than 30 days late');
    await expect(page.getByLabel('Rule 1, Why (description)')).toHaveAttribute('readonly', '');
    await expect(page.getByRole('button', { name: 'Save' })).toBeHidden();

    // Unknown and malformed ids: the 404 page.
    expect((await page.goto('/admin/business/decision-models/00000000-0000-4000-8000-000000000000'))?.status()).toBe(
      404,
    );
    expect((await page.goto('/admin/business/decision-models/not-a-model'))?.status()).toBe(404);
  });

  test('a loan officer is refused the pages and the API', async ({ page }) => {
    await signIn(page, 'officer@demo.test');
    expect((await page.goto('/admin/business/decision-models'))?.status()).toBe(403);
    expect((await page.request.get('/v1/decision-models')).status()).toBe(403);
    const post = await page.request.post('/v1/decision-models', {
      data: { name: 'Mine', kind: 'table' },
      headers: { origin: appOrigin() },
    });
    expect(post.status()).toBe(403);
  });

  test('in French at 1024 px: the editor and a refusal next to its field', async ({ page }) => {
    await page.setViewportSize({ width: 1024, height: 800 });
    await signIn(page, 'admin@demo.test');
    await setLanguage(page, 'fr-FR');
    try {
      expect((await page.goto('/admin/business/decision-models'))?.status()).toBe(200);
      await expect(page.getByRole('heading', { level: 1, name: 'Modèles de décision' })).toBeVisible();
      // A name already taken: refused next to the name.
      await page.getByLabel('Nom', { exact: true }).fill('E2E policy in use');
      await page.getByRole('button', { name: 'Créer le modèle' }).click();
      await expect(page.locator('#model-name-error')).toBeVisible();
      const name = `E2E grille ${unique()}`;
      await page.getByLabel('Nom', { exact: true }).fill(name);
      await page.getByLabel('Type').selectOption('scorecard');
      await page.getByRole('button', { name: 'Créer le modèle' }).click();
      await expect(page.getByRole('heading', { level: 1, name })).toBeVisible();
      await islandsHydrated(page);
      await expect(page.getByRole('heading', { name: 'Cas de test' })).toBeVisible();
      await expect(page.getByLabel('Score de base')).toHaveValue('500');
      await expect(page.getByRole('button', { name: 'Enregistrer' })).toBeVisible();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
    } finally {
      await setLanguage(page, 'en-US');
    }
  });
});
