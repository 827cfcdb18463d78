import { apiSession, expect, islandsHydrated, signInThroughForm, test } from './support/fixtures.ts';
import { createProduct, approvedLoan, disburseLoan } from './support/lending.ts';

// Variable installments through the real pages: an approved loan of a variable-installment product,
// its first installment changed on the loan page (preview, then save), then the transfer of funds
// builds the installments from the saved change.

test('[LOANS]: edit an approved loan’s installments with a preview, save, transfer: the schedule keeps the change', async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const admin = await apiSession(browser, 'admin@demo.test', baseURL!);
  const officer = await apiSession(browser, 'officer@demo.test', baseURL!);
  const code = `VAR${Date.now() % 1_000_000}`;
  const productId = await createProduct(admin, code, {
    name: 'E2E variable installments',
    allowVariableInstallments: true,
    variableInstallmentMinGapDays: 5,
    variableInstallmentMaxGapDays: 90,
  });
  const { customerId, loanId } = await approvedLoan(admin, officer, {
    productId,
    code,
    customer: { firstName: 'Inès', lastName: `Var ${code}` },
    principal: '1200.00',
    numberOfRepayments: 4,
  });

  const context = await browser.newContext({ baseURL, extraHTTPHeaders: { origin: baseURL! } });
  const page = await context.newPage();
  await signInThroughForm(page, 'admin@demo.test');
  await page.goto(`/loans/customer/profile/${customerId}/loans/${loanId}`);
  await islandsHydrated(page);

  await page.getByRole('button', { name: 'Edit installments' }).click();
  const form = page.getByRole('form', { name: 'Edit installments' });
  const rows = form.getByTestId('vary-row');
  await expect(rows).toHaveCount(4);
  await expect(form.getByText('No change to the installments yet.')).toBeVisible();

  await form.getByRole('button', { name: 'Add a change' }).click();
  const change = form.getByRole('group', { name: 'Change 1' });
  await change.getByLabel('Amount').fill('500.00');
  await form.getByRole('button', { name: 'Preview' }).click();
  await expect(rows.first()).toContainText('500.00');

  // A change the product's gaps refuse is explained, and nothing is saved.
  await change.getByLabel('Change', { exact: true }).selectOption('INSERT');
  const firstDue = (await rows.first().locator('td').nth(1).innerText()).trim();
  const twoDaysAfter = new Date(Date.parse(firstDue) + 2 * 86_400_000).toISOString().slice(0, 10);
  await change.getByLabel('Date of the new installment').fill(twoDaysAfter);
  await form.getByRole('button', { name: 'Save the installments' }).click();
  await expect(form.getByRole('alert')).toContainText('days between installments');

  await change.getByLabel('Change', { exact: true }).selectOption('AMOUNT');
  await change.getByLabel('Due date').fill(firstDue);
  await change.getByLabel('Amount').fill('500.00');
  await form.getByRole('button', { name: 'Save the installments' }).click();
  await expect(form.getByRole('status')).toHaveText('The installments are saved; the transfer of funds will use them.');

  const loan = (await disburseLoan(admin, loanId, code)).loan as { installments: { dueDate: string; total: string }[] };
  expect(loan.installments[0]).toMatchObject({ dueDate: firstDue, total: '500.00' });
  await page.reload();
  await expect(page.getByRole('table', { name: 'Repayment schedule' }).locator('tbody tr').first()).toContainText(
    '500.00',
  );
  await context.close();
});
