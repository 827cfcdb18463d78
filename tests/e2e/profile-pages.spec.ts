import zlib from 'node:zlib';
import type { Page } from '@playwright/test';
import { expect, signIn, test } from './support/fixtures.ts';

async function customers(page: Page): Promise<{ id: string; firstName: string; lastName: string }[]> {
  const response = await page.request.get('/v1/customers?limit=500');
  expect(response.status()).toBe(200);
  return (await response.json()).items;
}

function bureauPdf(): Buffer {
  const data = zlib.deflateSync(Buffer.from('BT /F1 12 Tf 72 720 Td (Score 701 - no defaults) Tj ET', 'latin1'));
  return Buffer.concat([
    Buffer.from(`%PDF-1.4\n4 0 obj\n<< /Length ${data.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'),
    data,
    Buffer.from('\nendstream\nendobj\n%%EOF\n'),
  ]);
}

test.describe('[PROFILE]: customer profile subpages', () => {
  test('officer: every tab opens with engine data, uploads and statements work without JavaScript, unknown subpaths are 404', async ({
    page,
  }) => {
    await signIn(page, 'officer@demo.test');
    // The oldest customer in scope is a seeded one with the simulator's bank history (other tests add new customers).
    const customer = (await customers(page)).at(-1)!;
    const base = `/loans/customer/profile/${customer.id}`;
    const resume = await page.goto(base);
    expect(resume?.status()).toBe(200);
    await expect(
      page.getByRole('heading', { level: 1, name: `${customer.firstName} ${customer.lastName}` }),
    ).toBeVisible();
    const tabs = page.getByRole('navigation', { name: 'Profile sections' });
    for (const name of [
      'Summary',
      'Transaction metrics',
      'Files',
      'Collaterals',
      'Offers',
      'Loans',
      'Transactions',
      'Repayment behaviour',
      'Risk class',
      'Credit bureau PDF',
      'Bank statements',
    ]) {
      await expect(tabs.getByRole('link', { name, exact: true })).toBeVisible();
    }
    // The officer role has no credit-analysis permission: no tab, and the URL is refused.
    await expect(tabs.getByRole('link', { name: 'Credit analysis' })).toHaveCount(0);
    expect((await page.goto(`${base}/credit-analysis`))?.status()).toBe(403);

    for (const sub of [
      'transaction-metrics',
      'files',
      'collaterals',
      'offers',
      'loans',
      'transactions',
      'repayment-behavior',
      'class',
      'upload-bureau-pdf',
      'bank-statements',
    ]) {
      const response = await page.goto(`${base}/${sub}`);
      expect(response?.status(), sub).toBe(200);
      await expect(page.locator('a[aria-current="page"]', { hasText: /./ }).last()).toBeVisible();
    }
    // The simulator's bank history gives monthly metrics and a server-rendered chart.
    await page.goto(`${base}/transaction-metrics`);
    await expect(page.getByRole('img', { name: 'Inflows, outflows and closing balance by month' })).toBeVisible();

    expect((await page.goto(`${base}/no-such-tab`))?.status()).toBe(404);
    expect((await page.goto(`${base}/closed-loans/00000000-0000-4000-8000-000000000000`))?.status()).toBe(404);
    expect((await page.goto(`/loans/customer/profile/00000000-0000-4000-8000-000000000000/resume`))?.status()).toBe(
      404,
    );

    // A bank statement with a bad row: nothing imported, the row is named.
    await page.goto(`${base}/bank-statements`);
    await page.getByLabel('Statement (CSV)').setInputFiles({
      name: 'bad.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('date,amount\n2026-01-02,100.00\n2026-13-01,5\n'),
    });
    await page.getByRole('button', { name: 'Upload' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'The statement was not imported' });
    await expect(alert).toBeVisible();
    await expect(alert.getByRole('row', { name: /3 date date must be a calendar date/ })).toBeVisible();
    const csv = 'date,amount,description,category\n2020-01-02,1234.56,Salary,salary\n2020-01-09,-234.56,Rent,rent\n';
    await page
      .getByLabel('Statement (CSV)')
      .setInputFiles({ name: 'jan-2020.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Upload' }).click();
    await expect(page.getByRole('status')).toHaveText(
      'The statement was imported; the transaction metrics are updated.',
    );
    await expect(page.getByRole('row', { name: /jan-2020\.csv 2/ })).toBeVisible();

    // Files: type refused, upload, download, delete.
    await page.goto(`${base}/files`);
    await page
      .getByLabel('Document')
      .setInputFiles({ name: 'run.exe', mimeType: 'application/x-msdownload', buffer: Buffer.from('MZ') });
    await page.getByRole('button', { name: 'Upload' }).click();
    await expect(page.getByRole('alert')).toContainText('This file type is not accepted here');
    await page
      .getByLabel('Document')
      .setInputFiles({ name: 'payslip.txt', mimeType: 'text/plain', buffer: Buffer.from('net pay 1234.56') });
    await page.getByRole('button', { name: 'Upload' }).click();
    await expect(page.getByRole('status')).toHaveText('The file was uploaded.');
    const link = page.getByRole('link', { name: 'payslip.txt' });
    const download = await page.request.get((await link.getAttribute('href'))!);
    expect(download.status()).toBe(200);
    expect(await download.text()).toBe('net pay 1234.56');

    // Bureau PDF: kept with its extracted text.
    await page.goto(`${base}/upload-bureau-pdf`);
    await page
      .getByLabel('Bureau report (PDF)')
      .setInputFiles({ name: 'bureau.pdf', mimeType: 'application/pdf', buffer: bureauPdf() });
    await page.getByRole('button', { name: 'Upload' }).click();
    await expect(page.getByRole('status')).toHaveText('The file was uploaded.');
    await page.getByText('Extracted text').first().click();
    await expect(page.getByText('Score 701 - no defaults')).toBeVisible();
  });

  test("officer of one branch: another branch's customer profile is 404; an administrator sees the credit analysis", async ({
    page,
    browser,
  }) => {
    const admin = await browser.newPage();
    await signIn(admin, 'admin@demo.test');
    const all = await customers(admin);
    await signIn(page, 'officer@demo.test');
    const mine = new Set((await customers(page)).map((c) => c.id));
    const other = all.find((c) => !mine.has(c.id));
    expect(other).toBeDefined();
    expect((await page.goto(`/loans/customer/profile/${other!.id}/resume`))?.status()).toBe(404);
    expect((await page.request.get(`/v1/customers/${other!.id}/files`)).status()).toBe(404);

    const response = await admin.goto(`/loans/customer/profile/${all[0].id}/credit-analysis`);
    expect(response?.status()).toBe(200);
    await expect(admin.getByRole('heading', { name: 'Affordability' })).toBeVisible();
    // The same profile under another section's layout, and that section's 404 for an unknown subpath.
    expect((await admin.goto(`/admin/customer/profile/${all[0].id}/class`))?.status()).toBe(200);
    await expect(
      admin.getByRole('heading', { level: 1, name: `${all[0].firstName} ${all[0].lastName}` }),
    ).toBeVisible();
    expect((await admin.goto(`/analytics/customer/profile/${all[0].id}/nope`))?.status()).toBe(404);
    await admin.close();
  });
});

test('[PROFILE]: a French user gets the profile in French', async ({ page }) => {
  await signIn(page, 'agent.fr@demo.test');
  const customer = (await customers(page)).at(-1)!;
  const response = await page.goto(`/loans/customer/profile/${customer.id}/transaction-metrics`);
  expect(response?.status()).toBe(200);
  const tabs = page.getByRole('navigation', { name: 'Rubriques de la fiche' });
  for (const name of [
    'Résumé',
    'Indicateurs de transactions',
    'Fichiers',
    'Garanties',
    'Comportement de remboursement',
    'Relevés bancaires',
  ]) {
    await expect(tabs.getByRole('link', { name, exact: true })).toBeVisible();
  }
  await expect(page.getByRole('img', { name: 'Entrées, sorties et solde de clôture par mois' })).toBeVisible();
  await page.goto(`/loans/customer/profile/${customer.id}/repayment-behavior`);
  await expect(page.getByText(/Échéances arrivées à terme/)).toBeVisible();
});
