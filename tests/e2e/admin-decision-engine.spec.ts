import type { Browser, Page } from '@playwright/test';
import { expect, signInThroughForm, test } from './support/fixtures.ts';

/**
 * [DECISION-ENGINE]: the administrator binds the seeded E2E model (src/lib/seed/e2e-decisioning.ts)
 * at "application submitted" and tests it on a customer; a loan officer submits an application and
 * its page shows the decision's why and the recommendation; the decisions log lists it and opens its
 * why; the officer gets 403 on the admin pages; the pages hold in French at 1024 px. The binding is
 * disabled at the end so other tests' submissions are not decided.
 */

const unique = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;

async function signedIn(browser: Browser, baseURL: string, email: string): Promise<Page> {
  const context = await browser.newContext({ baseURL, extraHTTPHeaders: { origin: baseURL } });
  const page = await context.newPage();
  await signInThroughForm(page, email);
  await expect(page).not.toHaveURL(/\/user\/login/);
  return page;
}

async function hydrated(page: Page): Promise<void> {
  await page.waitForLoadState('load');
  await page.waitForFunction(() =>
    [...document.querySelectorAll('astro-island')].every((island) => !island.hasAttribute('ssr')),
  );
}

async function setLanguage(page: Page, locale: 'fr-FR' | 'en-US') {
  await page.goto('/admin/user/profile');
  await page.locator('#profile-language').selectOption(locale);
  await page.locator('form.form-stack button[type=submit]').click();
  await expect(page.locator('html')).toHaveAttribute('lang', locale.slice(0, 2));
}

test('[DECISION-ENGINE]: bind a model, an application is decided with its why, the log lists it', async ({
  browser,
  baseURL,
}) => {
  const admin = await signedIn(browser, baseURL!, 'admin@demo.test');
  const name = `E2E binding ${unique()}`;

  expect((await admin.goto('/admin/business/decision-engine'))?.status()).toBe(200);
  await expect(admin.getByRole('heading', { level: 1, name: 'Decision engine' })).toBeVisible();
  await expect(admin.getByTestId('point-application_submitted')).toContainText('No binding is enabled');
  await admin.getByRole('link', { name: 'New binding' }).click();
  await expect(admin).toHaveURL(/\/admin\/business\/decision-engine\/new$/);

  // A refusal is shown next to its field, the values kept.
  await admin.getByLabel('Name').fill(name);
  await admin.getByRole('button', { name: 'Create binding' }).click();
  await expect(admin.locator('#binding-version-error')).toBeVisible();
  await expect(admin.getByLabel('Name')).toHaveValue(name);

  await admin.getByLabel('Model and version').selectOption({ label: 'E2E amount rules — v1' });
  await expect(admin.getByRole('checkbox', { name: /^The application's request/ })).toBeChecked();
  await admin.getByRole('checkbox', { name: /^Enabled/ }).check();
  await admin.getByRole('button', { name: 'Create binding' }).click();
  await expect(admin).toHaveURL(/\/admin\/business\/decision-engine\?done=created/);
  await expect(admin.getByRole('status')).toContainText(name);
  await expect(admin.getByTestId('point-application_submitted')).toContainText(name);
  await expect(admin.getByTestId('point-application_submitted')).toContainText('E2E amount rules v1');

  // Test on a customer: nothing stored, the outcome and the rule shown.
  const officer = await signedIn(browser, baseURL!, 'officer@demo.test');
  const customers = await (await officer.request.get('/v1/customers?limit=1')).json();
  const customerId = (customers.items ?? customers)[0].id as string;
  await admin.getByRole('link', { name }).first().click();
  await admin.getByLabel('Customer id').fill(customerId);
  await admin.getByRole('button', { name: 'Test', exact: true }).click();
  await expect(admin.getByTestId('binding-test-result')).toContainText('Approve');
  await expect(admin.getByTestId('binding-test-result')).toContainText('Reasonable request');
  // An unknown customer: a clear message next to the field, no 500.
  await admin.getByLabel('Customer id').fill('00000000-0000-4000-8000-000000000000');
  await admin.getByRole('button', { name: 'Test', exact: true }).click();
  await expect(admin.locator('#binding-test-error')).toBeVisible();

  // The loan officer submits an application: its page shows the why.
  await officer.goto(`/loans/loan-applications/new/${customerId}`);
  await hydrated(officer);
  const amountLabel = await officer.getByText(/^Amount \(/).innerText();
  const [, min] = /Amount \((\S+) to/.exec(amountLabel)!;
  const repaymentsLabel = await officer.getByText(/^Number of repayments \(/).innerText();
  const [, minRepayments] = /\((\d+) to/.exec(repaymentsLabel)!;
  await officer.getByRole('textbox', { name: /^Amount/ }).fill(min);
  await officer.getByRole('textbox', { name: /^Number of repayments/ }).fill(minRepayments);
  await officer.getByLabel('Purpose of the loan').fill('Decision engine test');
  await officer.getByRole('button', { name: 'Submit the loan application' }).click();
  await expect(officer).toHaveURL(/\/processing-loans\/[0-9a-f-]{36}$/);
  await expect(officer.getByTestId('application-status')).toHaveText('Submitted');
  await expect(officer.getByTestId('decision-recommendation')).toHaveText('Recommendation: Approve');
  const why = officer.locator('.decision-why');
  await expect(why.getByRole('heading', { name: 'Why: decisions' })).toBeVisible();
  await expect(why).toContainText('Application submitted');
  await expect(why).toContainText('E2E amount rules v1');
  await expect(why).toContainText('Amount rules: Reasonable request');
  const applicationUrl = new URL(officer.url()).pathname;

  // The officer may not open the admin pages.
  for (const path of [
    '/admin/business/decision-engine',
    '/admin/business/decision-engine/new',
    '/admin/application/decision-engine',
  ]) {
    expect((await officer.goto(path))?.status(), path).toBe(403);
  }

  // The log lists the decision and opens its why.
  expect((await admin.goto('/admin/application/decision-engine?outcome=approve'))?.status()).toBe(200);
  const row = admin.getByTestId('decision-log').locator('tbody tr').first();
  await expect(row).toContainText('E2E amount rules v1');
  await expect(row).toContainText('Approve');
  await row.getByRole('link', { name: 'Why' }).click();
  expect(new URL(admin.url()).pathname.endsWith(applicationUrl.split('/processing-loans/')[1])).toBe(true);
  await expect(admin.locator('.decision-why')).toContainText('Reasonable request');

  // French at 1024 px: the pages read in French and nothing spills sideways.
  await admin.setViewportSize({ width: 1024, height: 768 });
  await setLanguage(admin, 'fr-FR');
  try {
    for (const [path, heading] of [
      ['/admin/business/decision-engine', 'Moteur de décision'],
      ['/admin/application/decision-engine', 'Décisions sur les demandes'],
      ['/admin/business/decision-engine/new', 'Nouvelle liaison'],
    ] as const) {
      await admin.goto(path);
      await expect(admin.getByRole('heading', { level: 1, name: heading })).toBeVisible();
      const overflow = await admin.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, path).toBeLessThanOrEqual(0);
    }
    await admin.goto('/admin/business/decision-engine');
    await expect(admin.getByTestId('point-application_submitted')).toContainText('Liaison active');
  } finally {
    await setLanguage(admin, 'en-US');
  }

  // Disable the binding again (other tests' submissions stay undecided).
  await admin.goto('/admin/business/decision-engine');
  await admin.getByRole('link', { name }).first().click();
  await admin.getByRole('checkbox', { name: /^Enabled/ }).uncheck();
  await admin.getByRole('button', { name: 'Save' }).click();
  await expect(admin).toHaveURL(/done=saved/);
  await expect(admin.getByTestId('point-application_submitted')).toContainText('No binding is enabled');
});
