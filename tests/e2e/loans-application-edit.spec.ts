import type { Browser, Page } from '@playwright/test';
import { expect, signInThroughForm, test } from './support/fixtures.ts';

async function signedIn(browser: Browser, baseURL: string, email: string): Promise<Page> {
  const context = await browser.newContext({ baseURL, extraHTTPHeaders: { origin: baseURL } });
  const page = await context.newPage();
  await signInThroughForm(page, email);
  return page;
}

test('[LOANS]: officer edits a submitted loan application (amount, term, purpose); once approved it can no longer be edited', async ({
  browser,
  baseURL,
}) => {
  const officer = await signedIn(browser, baseURL!, 'officer@demo.test');
  const customers = await (await officer.request.get('/v1/customers?limit=1')).json();
  const customerId = (customers.items ?? customers)[0].id;
  const products = (await (await officer.request.get('/v1/products')).json()).items as {
    id: string;
    isActive?: boolean;
    minPrincipal: string;
    minRepayments: number;
    maxRepayments: number;
  }[];
  const product = products.find((p) => p.isActive !== false)!;
  const submitted = await officer.request.post('/v1/applications', {
    data: {
      customerId,
      productId: product.id,
      principal: product.minPrincipal,
      numberOfRepayments: product.minRepayments,
      formData: { purpose: 'Working capital' },
    },
  });
  expect(submitted.status()).toBe(201);
  const application = await submitted.json();

  await officer.goto(`/loans/customer/profile/${customerId}/processing-loans/${application.loanId}`);
  await officer.getByRole('link', { name: 'Edit the loan application' }).click();
  await expect(officer.getByRole('heading', { level: 1 })).toHaveText('Edit the loan application');
  await officer.getByLabel(/^Amount/).fill('12.345');
  await officer.getByRole('button', { name: 'Save the application' }).click();
  await expect(officer.getByRole('alert')).toHaveText('Amount can have at most 2 decimal places.');
  const term = Math.min(product.minRepayments + 1, product.maxRepayments);
  await officer.getByLabel(/^Amount/).fill('1234.56');
  await officer.getByLabel('Number of repayments').fill(String(term));
  await officer.getByLabel('Purpose').fill('Stock for the season');
  await officer.getByRole('button', { name: 'Save the application' }).click();
  await expect(officer).toHaveURL(new RegExp(`/processing-loans/${application.loanId}`));
  await expect(officer.getByText('Stock for the season')).toBeVisible();
  await expect(officer.getByText('€1,234.56')).toBeVisible();

  const admin = await signedIn(browser, baseURL!, 'admin@demo.test');
  const approved = await admin.request.post(`/v1/applications/${application.id}/approve`, {
    data: {},
    headers: { 'Idempotency-Key': `edit-approve-${application.id}` },
  });
  expect(approved.status()).toBe(200);
  await officer.goto(`/loans/loan-applications/edit/${customerId}/${application.loanId}`);
  await expect(officer.getByRole('status')).toHaveText(
    'This application has been decided and can no longer be edited.',
  );
  await expect(officer.getByRole('button', { name: 'Save the application' })).toHaveCount(0);
});
