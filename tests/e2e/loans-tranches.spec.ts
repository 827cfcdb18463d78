import type { Page } from '@playwright/test';
import { apiSession, expect, islandsHydrated, signInThroughForm, test } from './support/fixtures.ts';
import { createProduct, approvedLoan } from './support/lending.ts';

// Multi-disbursement loans (issue 17) through the real loan page: the administrator's product pays
// loans out in up to three tranches; on an approved loan the tranches are entered on the loan page
// (a split that does not add up to the approved amount is refused, with the reason); the transfer of
// funds pays out the first, "Disburse tranche 2" the second, and the schedule then carries both.
// The section holds in French at 1024 px.

async function setLanguage(page: Page, locale: 'fr-FR' | 'en-US') {
  await page.goto('/admin/user/profile');
  await page.locator('#profile-language').selectOption(locale);
  await page.locator('form.form-stack button[type=submit]').click();
  await expect(page.locator('html')).toHaveAttribute('lang', locale.slice(0, 2));
}

/** The principal column of the loan page's schedule, summed in cents. */
async function schedulePrincipal(page: Page): Promise<number> {
  const cells = await page.locator('tr[data-installment] td:nth-child(3)').allInnerTexts();
  return cells.reduce((sum, text) => sum + Math.round(Number(text.replace(/[^\d.-]/g, '')) * 100), 0);
}

test('[LOANS]: tranches set on the loan page, the first paid out by the transfer, the second from the page', async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const admin = await apiSession(browser, 'admin@demo.test', baseURL!);
  const officer = await apiSession(browser, 'officer@demo.test', baseURL!);
  const code = `TRA${Date.now() % 1_000_000}`;
  const productId = await createProduct(admin, code, { name: 'E2E tranches', multiDisbursement: true, maxTranches: 3 });
  const { customerId, loanId } = await approvedLoan(admin, officer, {
    productId,
    code,
    customer: { firstName: 'Noé', lastName: `Tranche ${code}` },
    principal: '1200.00',
    numberOfRepayments: 6,
  });

  const context = await browser.newContext({ baseURL, extraHTTPHeaders: { origin: baseURL! } });
  const page = await context.newPage();
  await signInThroughForm(page, 'admin@demo.test');
  const loanPath = `/loans/customer/profile/${customerId}/loans/${loanId}`;
  await page.goto(loanPath);
  await islandsHydrated(page);

  const section = page.getByRole('region', { name: 'Tranches' });
  await expect(section.getByText('No tranches are recorded yet.')).toBeVisible();
  const form = page.getByRole('form', { name: 'Expected tranches' });
  // The form starts with one tranche of the whole approved amount on the business date.
  await expect(form.getByLabel('Amount of tranche 1')).toHaveValue('1200.00');
  const firstDate = await form.getByLabel('Date of tranche 1').inputValue();
  const secondDate = new Date(Date.parse(firstDate) + 20 * 86_400_000).toISOString().slice(0, 10);

  // A split that does not add up to the approved amount is refused, and nothing is saved.
  await form.getByLabel('Amount of tranche 1').fill('700.00');
  await form.getByRole('button', { name: 'Add a tranche' }).click();
  await form.getByLabel('Date of tranche 2').fill(secondDate);
  await form.getByLabel('Amount of tranche 2').fill('400.00');
  await form.getByRole('button', { name: 'Save the tranches' }).click();
  await expect(form.getByRole('alert')).toContainText('Tranches must add up to the approved amount (1,200.00).');
  const none = await admin.get(`/v1/loans/${loanId}/tranches`);
  expect((await none.json()).items).toEqual([]);

  await form.getByLabel('Amount of tranche 2').fill('500.00');
  await form.getByRole('button', { name: 'Save the tranches' }).click();
  const table = page.getByTestId('loan-tranches');
  await expect(table.locator('tbody tr')).toHaveCount(2);
  await expect(table.locator('tbody tr').nth(0)).toContainText('700.00 EUR');
  await expect(table.locator('tbody tr').nth(0)).toContainText('Expected');
  await expect(table.locator('tbody tr').nth(1)).toContainText(secondDate);
  await expect(table.locator('tbody tr').nth(1)).toContainText('500.00 EUR');

  // The transfer of funds pays out the first tranche only.
  await islandsHydrated(page);
  await page.getByRole('button', { name: 'Transfer the funds', exact: true }).click();
  const transfer = page.getByRole('form', { name: 'Transfer the funds' });
  await transfer.getByRole('button', { name: 'Transfer funds', exact: true }).click();
  await expect(table.locator('tbody tr').nth(0)).toContainText(`Disbursed on ${firstDate}`, { timeout: 15_000 });
  await expect(table.locator('tbody tr').nth(1)).toContainText('Expected');
  await islandsHydrated(page);
  expect(await schedulePrincipal(page)).toBe(70_000);
  const before = await page.locator('tr[data-installment]').first().innerText();

  // The second tranche from the loan page: the installments now carry both tranches.
  const next = page.getByRole('form', { name: 'Disburse the next tranche' });
  await expect(next).toContainText('Tranche 2: 500.00 EUR');
  await next.getByRole('button', { name: 'Disburse tranche 2' }).click();
  await expect(table.locator('tbody tr').nth(1)).toContainText('Disbursed on', { timeout: 15_000 });
  await expect(page.getByRole('form', { name: 'Disburse the next tranche' })).toHaveCount(0);
  await expect.poll(() => schedulePrincipal(page)).toBe(120_000);
  expect(await page.locator('tr[data-installment]').first().innerText()).not.toBe(before);
  const view = (await (await admin.get(`/v1/loans/${loanId}`)).json()) as {
    installments: { principal: string }[];
    transactions: { type: string; amount: string }[];
  };
  expect(view.transactions.filter((t) => t.type === 'DISBURSEMENT').map((t) => t.amount)).toEqual(['700.00', '500.00']);

  // French at 1024 px: the section reads in French and nothing spills sideways.
  await page.setViewportSize({ width: 1024, height: 768 });
  await setLanguage(page, 'fr-FR');
  try {
    await page.goto(loanPath);
    await islandsHydrated(page);
    await expect(page.getByRole('region', { name: 'Tranches' }).getByTestId('loan-tranches')).toBeVisible();
    await expect(page.getByTestId('loan-tranches')).toContainText('Versée le');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    const box = await page.getByRole('region', { name: 'Tranches' }).boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(1024);
  } finally {
    await setLanguage(page, 'en-US');
  }
  await context.close();
});
