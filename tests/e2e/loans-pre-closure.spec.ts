import { apiSession, expect, islandsHydrated, signInThroughForm, test } from './support/fixtures.ts';
import { createProduct, approvedLoan, disburseLoan } from './support/lending.ts';

// Interest recalculation (issue 17) through the real loan page: on a loan of a progressive product
// that recalculates interest daily, the "Pay-off amount" box shows what closes the loan on a chosen
// date (interest grows with the days; a date before the loan's last transaction is refused), and a
// repayment of exactly the amount shown for the business date closes the loan. A role without
// loans.loans.view (the strategist) gets 403 from the API route.

type Quote = { date: string; principal: string; interest: string; total: string };

/** "1234.50" as the en-US page writes it, without the currency sign: "1,234.50". */
const grouped = (value: string) =>
  Number(value).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

test('[LOANS]: the pay-off amount for a chosen date; repaying exactly it closes the loan; 403 without loans.loans.view', async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const admin = await apiSession(browser, 'admin@demo.test', baseURL!);
  const officer = await apiSession(browser, 'officer@demo.test', baseURL!);
  const code = `PCL${Date.now() % 1_000_000}`;
  const productId = await createProduct(admin, code, {
    name: 'E2E interest recalculation',
    scheduleType: 'PROGRESSIVE',
    interestCalculationPeriod: 'DAILY',
    daysInYear: '360',
    daysInMonth: '30',
    interestRecalculation: true,
    recalculationRestFrequency: 'DAILY',
    preClosureStrategy: 'TILL_PRE_CLOSURE_DATE',
  });
  const { customerId, loanId } = await approvedLoan(admin, officer, {
    productId,
    code,
    customer: { firstName: 'Léa', lastName: `Payoff ${code}` },
    principal: '1000.00',
    numberOfRepayments: 6,
  });
  const disbursedOn = ((await disburseLoan(admin, loanId, code)).loan as { disbursedOn: string }).disbursedOn;

  const context = await browser.newContext({ baseURL, extraHTTPHeaders: { origin: baseURL! } });
  const page = await context.newPage();
  await signInThroughForm(page, 'admin@demo.test');
  await page.goto(`/loans/customer/profile/${customerId}/loans/${loanId}`);
  await islandsHydrated(page);

  const box = page.getByTestId('pre-closure');
  await box.scrollIntoViewIfNeeded();
  await expect(box).toContainText('Pay-off amount');
  await islandsHydrated(page);
  const dateField = box.getByLabel('Date');
  await expect(dateField).toHaveValue(disbursedOn);

  // Forty-five days on: interest for those days on top of the principal, as the API computes it.
  const later = new Date(Date.parse(disbursedOn) + 45 * 86_400_000).toISOString().slice(0, 10);
  await dateField.fill(later);
  await box.getByRole('button', { name: 'Show the amount' }).click();
  const result = box.getByTestId('pre-closure-result');
  await expect(result).toContainText(`To close the loan on ${later}`);
  const laterQuote = (await (await admin.get(`/v1/loans/${loanId}/pre-closure?date=${later}`)).json()) as Quote;
  expect(laterQuote.principal).toBe('1000.00');
  expect(Number(laterQuote.interest)).toBeGreaterThan(0);
  expect(Number(laterQuote.total)).toBeCloseTo(Number(laterQuote.principal) + Number(laterQuote.interest), 2);
  await expect(result).toContainText(grouped(laterQuote.interest));
  await expect(box.getByTestId('pre-closure-total')).toContainText(grouped(laterQuote.total));

  // A date before the loan's last transaction: the field refuses it, and so does the API.
  const before = new Date(Date.parse(disbursedOn) - 86_400_000).toISOString().slice(0, 10);
  await dateField.fill(before);
  expect(await dateField.evaluate((input: HTMLInputElement) => input.validity.rangeUnderflow)).toBe(true);
  const early = await admin.get(`/v1/loans/${loanId}/pre-closure?date=${before}`);
  expect(early.status()).toBe(400);

  // The business date: the amount shown is what a repayment today must be to close the loan.
  await dateField.fill(disbursedOn);
  await box.getByRole('button', { name: 'Show the amount' }).click();
  await expect(result).toContainText(`To close the loan on ${disbursedOn}`);
  const today = (await (await admin.get(`/v1/loans/${loanId}/pre-closure?date=${disbursedOn}`)).json()) as Quote;
  await expect(box.getByTestId('pre-closure-total')).toContainText(grouped(today.total));
  expect(Number(today.total)).toBeLessThan(Number(laterQuote.total));

  await page.getByRole('button', { name: 'Record a repayment', exact: true }).click();
  const repay = page.getByRole('form', { name: 'Record a repayment' });
  await repay.getByLabel('Amount (EUR)').fill(today.total);
  await repay.getByRole('button', { name: 'Repay', exact: true }).click();
  await expect(page.getByTestId('loan-status')).toHaveText('Closed', { timeout: 15_000 });
  const loan = (await (await admin.get(`/v1/loans/${loanId}`)).json()) as {
    status: string;
    installments: { outstanding: { total: string } }[];
  };
  expect(loan.status).toBe('CLOSED_OBLIGATIONS_MET');
  expect(loan.installments.every((i) => Number(i.outstanding.total) === 0)).toBe(true);

  // Without loans.loans.view the route answers 403.
  const strategist = await apiSession(browser, 'strategist@demo.test', baseURL!);
  const refused = await strategist.get(`/v1/loans/${loanId}/pre-closure?date=${disbursedOn}`);
  expect(refused.status()).toBe(403);
  await context.close();
});
