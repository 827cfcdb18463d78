import type { Browser, Page } from '@playwright/test';
import { expect, signInThroughForm, test } from './support/fixtures.ts';

// The officer's day from an offer to a repaid installment, through
// the real pages, islands and API of the built server (freshly seeded demo: the seed gives branch
// PAR-01 offers to propose).

/** Waits until every island of the page is hydrated, so a click reaches React and not the bare markup. */
async function hydrated(page: Page): Promise<void> {
  await page.waitForLoadState('load');
  await page.waitForFunction(() =>
    [...document.querySelectorAll('astro-island')].every((island) => !island.hasAttribute('ssr')),
  );
}

async function signedIn(browser: Browser, baseURL: string, email: string): Promise<Page> {
  const context = await browser.newContext({ baseURL, extraHTTPHeaders: { origin: baseURL } });
  const page = await context.newPage();
  await signInThroughForm(page, email);
  return page;
}

test('[LOANS]: officer notifies an offer, simulates, requests the loan; admin approves; officer transfers and repays once (double click)', async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const officer = await signedIn(browser, baseURL!, 'officer@demo.test');

  // Find a customer with an offer to propose, in the officer's branch.
  await officer.goto('/loans/offers?tab=to_propose');
  const row = officer.locator('table.data-table tbody tr').first();
  await expect(row).toBeVisible();
  const customerName = (await row.locator('td').nth(1).innerText()).trim();
  const lastName = customerName.split(' ')[0];
  await officer.goto(`/loans/customers?q=${encodeURIComponent(lastName)}`);
  await expect(officer.locator('table.data-table tbody')).toContainText(lastName);

  // Open the offer.
  await officer.goto('/loans/offers?tab=to_propose');
  await officer.locator('table.data-table tbody tr').first().locator('a').first().click();
  await expect(officer).toHaveURL(/\/loans\/customer\/profile\/[0-9a-f-]{36}\/offers\/[0-9a-f-]{36}$/);
  const offerUrl = new URL(officer.url());
  const customerId = offerUrl.pathname.split('/')[4];
  await expect(officer.getByTestId('offer-status')).toHaveText('To propose');
  await hydrated(officer);

  // Notify: refused without Channel; feedback and comment only for PhoneCall / InPerson / Other, then required.
  await officer.getByRole('button', { name: 'Notify' }).click();
  const dialog = officer.getByRole('dialog');
  await expect(dialog.getByText('How did you propose the offer to your customer?')).toBeVisible();
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByText('How did you propose the offer to your customer? is required')).toBeVisible();
  await expect(dialog.getByText('What was their level of interest?')).toHaveCount(0);
  await dialog.getByText('Message', { exact: true }).click();
  await expect(dialog.getByText('What was their level of interest?')).toHaveCount(0);
  await expect(dialog.getByText('Customer comments (optional)')).toHaveCount(0);
  for (const channel of ['In person', 'Other', 'Phone call']) {
    await dialog.getByText(channel, { exact: true }).click();
    await expect(dialog.getByText('What was their level of interest?')).toBeVisible();
    await expect(dialog.getByText('Customer comments (optional)')).toBeVisible();
  }
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByText('What was their level of interest? is required')).toBeVisible();
  await dialog.getByText('Interested', { exact: true }).click();
  await dialog.getByRole('textbox').fill('Wants it before the summer');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(officer.getByTestId('offer-status')).toHaveText('Pending');
  await expect(officer.locator('.facts')).toContainText('Phone call');
  await expect(officer.locator('.facts')).toContainText('Wants it before the summer');
  await hydrated(officer);

  // Simulate repayment with the engine.
  await officer.getByRole('button', { name: 'Simulate repayment' }).click();
  await officer.getByRole('button', { name: 'Calculate' }).click();
  await expect(officer.getByTestId('simulation-total')).toContainText('EUR');
  await expect(officer.getByRole('table', { name: 'Repayment schedule' }).locator('tbody tr').first()).toContainText(
    '1',
  );

  // Request the loan (the application form), landing on the processing loan.
  await officer.getByRole('link', { name: 'Request loan' }).click();
  await expect(officer).toHaveURL(/\/request$/);
  await hydrated(officer);
  await officer.getByLabel('Purpose of the loan').fill('Shop refit');
  await officer.getByRole('button', { name: 'Submit the loan application' }).click();
  await expect(officer).toHaveURL(/\/processing-loans\/[0-9a-f-]{36}$/);
  const processingUrl = new URL(officer.url()).pathname;
  const loanId = processingUrl.split('/').pop()!;
  await expect(officer.getByTestId('application-status')).toHaveText('Submitted');
  // The officer cannot approve their own application, and the page says why (the dry run's reason).
  await expect(officer.getByTestId('approval-refusal')).toHaveText(
    'You submitted this application, so another user must approve it.',
  );
  await expect(officer.getByRole('button', { name: 'Approve' })).toHaveCount(0);

  // The administrator approves it.
  const admin = await signedIn(browser, baseURL!, 'admin@demo.test');
  await admin.goto(processingUrl);
  await hydrated(admin);
  await admin.getByRole('button', { name: 'Approve' }).click();
  await expect(admin.getByTestId('application-status')).toHaveText('Approved');

  // The officer transfers the funds.
  const loanPath = `/loans/customer/profile/${customerId}/loans/${loanId}`;
  await officer.goto(`${loanPath}/transfer`);
  await hydrated(officer);
  await officer.getByRole('button', { name: 'Transfer funds' }).click();
  await expect(officer).toHaveURL(new RegExp(`${loanPath}$`));
  await expect(officer.getByTestId('loan-status')).toHaveText('Active');
  await hydrated(officer);

  // A repayment of the first installment with a double click: one payment.
  const keys: string[] = [];
  officer.on('request', (request) => {
    if (request.method() === 'POST' && request.url().endsWith(`/v1/loans/${loanId}/repayments`))
      keys.push(request.headers()['idempotency-key'] ?? '');
  });
  const firstInstallment = officer.locator('tr[data-installment="1"]');
  const firstTotal = (await firstInstallment.locator('td').nth(6).innerText()).trim();
  // The loan page's forms open on demand.
  await officer.getByRole('button', { name: 'Record a repayment' }).click();
  const repayForm = officer.getByRole('form', { name: 'Record a repayment' });
  await expect(repayForm.getByRole('textbox', { name: /Amount/ })).toHaveValue(firstTotal);
  await repayForm.getByRole('button', { name: 'Repay' }).dblclick();
  await officer.waitForLoadState('load');
  await expect(officer.locator('table[aria-label="Transactions"] tbody tr[data-type="REPAYMENT"]')).toHaveCount(1);
  expect(keys.length).toBeGreaterThanOrEqual(1);
  expect(new Set(keys).size).toBe(1);
  await expect(firstInstallment).toHaveAttribute('data-state', 'paid');
  await expect(firstInstallment.locator('td').nth(7)).toHaveText(firstTotal);

  // The API agrees: exactly one repayment of that amount.
  const loan = await (await officer.request.get(`/v1/loans/${loanId}`)).json();
  const repayments = loan.transactions.filter((t: { type: string }) => t.type === 'REPAYMENT');
  expect(repayments).toHaveLength(1);
  expect(repayments[0].amount).toBe(firstTotal);

  // The customer profile shows the loan and the payment.
  await officer.goto(`/loans/customer/profile/${customerId}/loans`);
  await expect(officer.locator('main')).toContainText(loan.accountNo);
  await officer.goto(`/loans/customer/profile/${customerId}/transactions`);
  await expect(officer.locator('main')).toContainText(firstTotal);

  // The lists show it too: the application is approved, the next installment is an expected payment.
  await officer.goto('/loans/loan-applications?tab=approved');
  await expect(officer.locator('table.data-table tbody')).toContainText(lastName);
  await officer.goto(`/loans/payments?tab=expected&q=${encodeURIComponent(loan.accountNo)}`);
  await expect(officer.locator('table.data-table tbody tr').first()).toContainText(loan.accountNo);

  // The same loan page lives under every section's customer profile (here the admin section's).
  await admin.goto(`/admin/customer/profile/${customerId}/loans/${loanId}`);
  await expect(admin.getByTestId('loan-status')).toHaveText('Active');
  await hydrated(admin);
  await expect(admin.locator('tr[data-installment="1"]')).toHaveAttribute('data-state', 'paid');
  // The officer has no reversal (administrators only); the admin reverses the repayment.
  await officer.goto(loanPath);
  await hydrated(officer);
  await expect(officer.getByRole('button', { name: 'Record a repayment' })).toBeVisible();
  await expect(officer.getByRole('button', { name: 'Reverse this transaction' })).toHaveCount(0);
  // Reversal asks to confirm, like write-off.
  await admin.getByRole('button', { name: 'Reverse this transaction' }).click();
  await admin.getByRole('button', { name: 'Reverse', exact: true }).click();
  await expect(
    admin.getByRole('alert').filter({ hasText: /^Reverse .*\? The loan’s balances are recomputed without it\.$/ }),
  ).toBeVisible();
  await admin.getByRole('button', { name: 'Confirm the reversal' }).click();
  await expect(admin.locator('table[aria-label="Transactions"] tbody')).toContainText('(Reversed)');
  await expect(admin.locator('tr[data-installment="1"]')).not.toHaveAttribute('data-state', 'paid');
});

test('[LOANS]: offer pages in French, and the offer letter as a PDF', async ({ browser, baseURL }) => {
  const agent = await signedIn(browser, baseURL!, 'agent.fr@demo.test');
  await agent.goto('/loans/offers?tab=total_active');
  await expect(agent.getByRole('heading', { level: 1 })).toHaveText('Offres');
  await agent.locator('table.data-table tbody tr').first().locator('a').first().click();
  await expect(agent.getByRole('heading', { level: 1 })).toContainText('Offre ');
  await expect(agent.getByRole('button', { name: 'Simuler le remboursement' })).toBeVisible();
  const offerId = new URL(agent.url()).pathname.split('/').pop()!;
  const letter = await agent.request.get(`/v1/offers/${offerId}/letter?lang=fr`);
  expect(letter.status()).toBe(200);
  expect(letter.headers()['content-type']).toBe('application/pdf');
  const text = (await letter.body()).toString('latin1');
  expect(text.startsWith('%PDF-1.4')).toBe(true);
  expect(text).toContain("(Lettre d'offre ");
});

test('[LOANS]: a loan application without an offer: required fields named, then submitted for another user', async ({
  browser,
  baseURL,
}) => {
  const officer = await signedIn(browser, baseURL!, 'officer@demo.test');
  const customers = await (await officer.request.get('/v1/customers?limit=1')).json();
  const customerId = (customers.items ?? customers)[0].id;
  await officer.goto(`/loans/loan-applications/new/${customerId}`);
  await hydrated(officer);
  await officer.getByRole('button', { name: 'Submit the loan application' }).click();
  await expect(officer.getByText('Purpose of the loan is required')).toBeVisible();
  const amountLabel = await officer.getByText(/^Amount \(/).innerText();
  const [, min] = /Amount \((\S+) to/.exec(amountLabel)!;
  const repaymentsLabel = await officer.getByText(/^Number of repayments \(/).innerText();
  const [, minRepayments] = /\((\d+) to/.exec(repaymentsLabel)!;
  await officer.getByRole('textbox', { name: /^Amount/ }).fill(min);
  await officer.getByRole('textbox', { name: /^Number of repayments/ }).fill(minRepayments);
  await officer.getByLabel('Purpose of the loan').fill('Working capital');
  await officer.getByRole('button', { name: 'Submit the loan application' }).click();
  await expect(officer).toHaveURL(/\/processing-loans\/[0-9a-f-]{36}$/);
  await expect(officer.getByTestId('application-status')).toHaveText('Submitted');
  await expect(officer.getByTestId('approval-refusal')).toBeVisible();
});
