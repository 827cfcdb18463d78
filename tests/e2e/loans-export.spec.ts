import ExcelJS from 'exceljs';
import type { Page } from '@playwright/test';
import { expect, signInThroughForm, test } from './support/fixtures.ts';

/** The number in a list tab's badge ("All 123"). */
async function tabCount(page: Page, tab: string): Promise<number> {
  const badge = page.locator('nav.list-tabs a', { hasText: tab }).locator('.badge');
  const text = (await badge.textContent())!.trim();
  expect(text, 'the count is exact, not capped').toMatch(/^[\d,]+$/);
  return Number(text.replace(/,/g, ''));
}

/** Asks for an export of the list page that is open, then waits in the downloads list until it is ready and fetches it. */
async function exportList(page: Page, format: 'csv' | 'xlsx'): Promise<Buffer> {
  await page.getByLabel('Export', { exact: true }).selectOption(format);
  await page.getByRole('button', { name: 'Export', exact: true }).click();
  await expect(page).toHaveURL(/\/loans\/user\/downloads-list$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Downloads');
  // The newest file is the first row; its name becomes a link once the job has written it.
  const first = page.locator('table tbody tr').first();
  await expect(first).toContainText(new RegExp(`customers-\\d{4}-\\d{2}-\\d{2}\\.${format}`));
  const link = first.getByRole('link', { name: new RegExp(`\\.${format}$`) });
  await expect(link).toBeVisible({ timeout: 30_000 });
  await expect(first).toContainText('100%');
  const response = await page.request.get((await link.getAttribute('href'))!);
  expect(response.status()).toBe(200);
  return response.body();
}

test('[LOANS]: a one-branch officer exports the customers list to CSV and XLSX through the downloads list, and gets only their rows', async ({
  page,
  browser,
}) => {
  const admin = await browser.newPage();
  await signInThroughForm(admin, 'admin@demo.test');
  await admin.goto('/loans/customers?tab=all');
  const everyone = await tabCount(admin, 'All');
  await admin.close();

  await signInThroughForm(page, 'officer@demo.test');
  await page.goto('/loans/customers?tab=all&sort=name');
  const mine = await tabCount(page, 'All');
  expect(mine).toBeGreaterThan(0);
  expect(mine).toBeLessThan(everyone);

  const csv = (await exportList(page, 'csv')).toString('utf8');
  expect(csv.startsWith('\uFEFF')).toBe(true);
  const lines = csv.slice(1).trimEnd().split(/\r?\n/);
  expect(lines).toHaveLength(mine + 1);
  expect(lines[0]).toContain('Name');

  await page.goto('/loans/customers?tab=all&sort=name');
  const workbook = new ExcelJS.Workbook();
  const xlsx = await exportList(page, 'xlsx');
  await workbook.xlsx.load(xlsx.buffer.slice(xlsx.byteOffset, xlsx.byteOffset + xlsx.byteLength) as ArrayBuffer);
  const sheet = workbook.worksheets[0]!;
  expect(sheet.rowCount).toBe(mine + 1);
  let formulas = 0;
  sheet.eachRow((row) =>
    row.eachCell((cell) => {
      if (cell.type === ExcelJS.ValueType.Formula) formulas++;
    }),
  );
  expect(formulas).toBe(0);
});
