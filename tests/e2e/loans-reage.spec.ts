import { apiSession, expect, islandsHydrated, signIn, test } from './support/fixtures.ts';
import { createProduct, approvedLoan, disburseLoan } from './support/lending.ts';

/**
 * Re-age (issue 17) against the built server: a 0 % progressive loan with the advanced payment
 * allocation, past its maturity after a few closes of business, is re-aged from its page with the
 * preview the form computes, then the re-age is undone. The close moves the demo tenant's business
 * date a few days forward, as the collection spec does.
 */
test('[LOANS]: an administrator previews and re-ages an overdue loan from its page, then undoes it', async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(240_000);
  const admin = await apiSession(browser, 'admin@demo.test', baseURL!);
  const officer = await apiSession(browser, 'officer@demo.test', baseURL!);
  const code = `RA${Date.now() % 1_000_000}`;

  const productId = await createProduct(admin, code, {
    name: `E2E re-age ${code}`,
    annualInterestRate: '0',
    repaymentEvery: 1,
    repaymentFrequency: 'DAYS',
    scheduleType: 'PROGRESSIVE',
    interestCalculationPeriod: 'DAILY',
    allocationStrategy: 'advanced-payment-allocation-strategy',
  });
  const { customerId, loanId } = await approvedLoan(admin, officer, {
    productId,
    code,
    customer: { firstName: 'Rea', lastName: `Ageing ${code}` },
    principal: '300.00',
    numberOfRepayments: 3,
  });
  const loan = (await disburseLoan(admin, loanId, code)).loan as { installments: { dueDate: string }[] };
  const maturity = loan.installments.at(-1)!.dueDate;
  const next = new Date(`${maturity}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  const until = next.toISOString().slice(0, 10);
  const closed = await admin.post('/v1/close-of-business', { data: { until } });
  expect(closed.status(), await closed.text()).toBeLessThan(300);

  await signIn(page, 'admin@demo.test');
  await page.goto(`/loans/customer/profile/${customerId}/loans/${loanId}`);
  await islandsHydrated(page);
  await page.getByRole('button', { name: 'Re-age', exact: true }).click();
  const form = page.getByRole('form', { name: 'Re-age' });
  await expect(form.getByLabel('First due date')).toHaveValue(until);
  await form.getByLabel('Number of installments').fill('3');
  await expect(form.getByRole('status')).toHaveText('Principal moved: 300.00 EUR');
  const rows = form.getByTestId('reshape-preview-row');
  // The three old installments give up their principal; three new ones take 100.00 each.
  await expect(rows).toHaveCount(6);
  await expect(rows.nth(3)).toContainText(until);
  await expect(rows.nth(3)).toContainText('100.00');
  // A first due date before the maturity date: no preview, no submit.
  await form.getByLabel('First due date').fill('2000-01-01');
  await expect(form.getByRole('button', { name: 'Re-age the loan' })).toBeDisabled();
  await form.getByLabel('First due date').fill(until);
  await form.getByRole('button', { name: 'Re-age the loan' }).click();

  await expect(page.locator('table.data-table').first().locator('tbody tr')).toHaveCount(6);
  const view = (await (await admin.get(`/v1/loans/${loanId}`)).json()) as {
    installments: { dueDate: string; principal: string }[];
    transactions: { type: string; isReversed: boolean }[];
  };
  expect(view.installments.map((i) => i.principal)).toEqual(['0.00', '0.00', '0.00', '100.00', '100.00', '100.00']);
  expect(view.transactions.filter((t) => t.type === 'REAGE' && !t.isReversed)).toHaveLength(1);

  // Undo.
  await islandsHydrated(page);
  await page.getByRole('button', { name: 'Undo the re-age' }).click();
  await page.getByRole('form', { name: 'Undo the re-age' }).getByRole('button', { name: 'Undo the re-age' }).click();
  await expect(page.locator('table.data-table').first().locator('tbody tr')).toHaveCount(3);
  const after = (await (await admin.get(`/v1/loans/${loanId}`)).json()) as {
    installments: { principal: string }[];
  };
  expect(after.installments.map((i) => i.principal)).toEqual(['100.00', '100.00', '100.00']);
});
