import { apiSession, expect, islandsHydrated, signInThroughForm, test } from './support/fixtures.ts';
import { createProduct, approvedLoan, disburseLoan } from './support/lending.ts';

// Charges on a live loan (issue 17) through the real loan page: "Add a charge" puts a penalty dated
// after the last due date on the installment for charges after maturity (Fineract's N+1), which the
// schedule shows and labels; a bad amount is refused on its field; "Waive" then waives the fees and
// penalties owed, and the loan's outstanding drops by exactly that. A role without the charge route
// (the analyst) sees neither button.

type Installment = { number: number; dueDate: string; penalties: string; additional?: boolean };
type LoanView = { installments: Installment[]; outstanding: { total: string; penalties: string } };

test('[LOANS]: add a charge after maturity on the loan page (N+1 installment), refuse a bad amount, waive it', async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const admin = await apiSession(browser, 'admin@demo.test', baseURL!);
  const officer = await apiSession(browser, 'officer@demo.test', baseURL!);
  const code = `CHG${Date.now() % 1_000_000}`;
  const productId = await createProduct(admin, code, { name: 'E2E charges on a loan' });
  const { customerId, loanId } = await approvedLoan(admin, officer, {
    productId,
    code,
    customer: { firstName: 'Inès', lastName: `Charges ${code}` },
    principal: '900.00',
    numberOfRepayments: 3,
  });
  await disburseLoan(admin, loanId, code);
  const before = (await (await admin.get(`/v1/loans/${loanId}`)).json()) as LoanView;
  expect(before.installments).toHaveLength(3);
  const maturity = before.installments[2].dueDate;
  const afterMaturity = new Date(Date.parse(maturity) + 10 * 86_400_000).toISOString().slice(0, 10);

  const context = await browser.newContext({ baseURL, extraHTTPHeaders: { origin: baseURL! } });
  const page = await context.newPage();
  await signInThroughForm(page, 'admin@demo.test');
  const loanPath = `/loans/customer/profile/${customerId}/loans/${loanId}`;
  await page.goto(loanPath);
  await islandsHydrated(page);

  await page.getByRole('button', { name: 'Add a charge' }).click();
  const form = page.locator('#loan-form-charge');
  await expect(form.getByLabel('Due date')).toBeEnabled();
  await form.getByLabel('Kind').selectOption('penalty');
  // A bad amount: refused by the server, named on its field, nothing recorded.
  await form.getByLabel(/Amount/).fill('12,5x');
  await form.getByLabel('Due date').fill(afterMaturity);
  await form.getByRole('button', { name: 'Add the charge' }).click();
  await expect(form.getByRole('alert')).toBeVisible();
  expect(((await (await admin.get(`/v1/loans/${loanId}`)).json()) as LoanView).installments).toHaveLength(3);

  await form.getByLabel(/Amount/).fill('25.00');
  await Promise.all([page.waitForEvent('load'), form.getByRole('button', { name: 'Add the charge' }).click()]);
  await islandsHydrated(page);
  const extra = page.locator('tr[data-installment="4"]');
  await expect(extra.locator('[data-additional]')).toHaveText('Charges after maturity');
  await expect(extra).toContainText('25.00');
  const charged = (await (await admin.get(`/v1/loans/${loanId}`)).json()) as LoanView;
  expect(charged.installments.map((i) => [i.number, i.dueDate, i.penalties, i.additional === true])).toEqual([
    ...before.installments.map((i) => [i.number, i.dueDate, '0.00', false]),
    [4, afterMaturity, '25.00', true],
  ]);
  expect(charged.outstanding.penalties).toBe('25.00');

  // Waive the fees and penalties owed (amount left empty: all of them).
  await page.getByRole('button', { name: 'Waive' }).click();
  const waive = page.locator('#loan-form-waive');
  await expect(waive.getByLabel('What to waive')).toBeEnabled();
  await waive.getByLabel('What to waive').selectOption('charges');
  await Promise.all([page.waitForEvent('load'), waive.getByRole('button', { name: 'Waive' }).click()]);
  const waived = (await (await admin.get(`/v1/loans/${loanId}`)).json()) as LoanView;
  expect(waived.outstanding.penalties).toBe('0.00');
  expect(Number(waived.outstanding.total)).toBeCloseTo(Number(charged.outstanding.total) - 25, 2);
  // Waived, the installment for charges after maturity stays, settled (as Fineract keeps it).
  expect(waived.installments).toHaveLength(4);

  // The analyst may read the loan but not charge or waive it.
  const analyst = await browser.newContext({ baseURL, extraHTTPHeaders: { origin: baseURL! } });
  const analystPage = await analyst.newPage();
  await signInThroughForm(analystPage, 'analyst@demo.test');
  const response = await analystPage.goto(loanPath);
  if (response?.status() === 200) {
    await islandsHydrated(analystPage);
    await expect(analystPage.getByRole('button', { name: 'Add a charge' })).toHaveCount(0);
    await expect(analystPage.getByRole('button', { name: 'Waive' })).toHaveCount(0);
  }
  await analyst.close();
  await context.close();
});
