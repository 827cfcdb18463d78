import type { Page } from '@playwright/test';
import { expect, signIn, test } from './support/fixtures.ts';

/**
 * Issue 15, performance boards: the analyst opens monthly revenue, portfolio analysis and bullet loans
 * collection with figures from the demo history, switches the dimension with the URL form, downloads
 * CSV, opens a maturity week's loans; the boards read in French at 1024 px without sideways scrolling;
 * a loans-side role (the collector) gets 403 on pages and APIs.
 */

async function csvOf(page: Page, name: RegExp): Promise<string[]> {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.locator('ul.perf-exports').getByRole('link', { name }).click(),
  ]);
  const chunks = await (await download.createReadStream()).toArray();
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimEnd()
    .split('\r\n');
}

const amount = (text: string | null) => Number((text ?? '').replace(/[^\d.-]/g, ''));

async function setLanguage(page: Page, locale: 'fr-FR' | 'en-US') {
  await page.goto('/admin/user/profile');
  await page.locator('#profile-language').selectOption(locale);
  await page.locator('form.form-stack button[type=submit]').click();
  await expect(page.locator('html')).toHaveAttribute('lang', locale.slice(0, 2));
}

test('[ANALYTICS-PERFORMANCE]: revenue and portfolio with figures, dimension from the URL form, CSV', async ({
  page,
}) => {
  await signIn(page, 'analyst@demo.test');
  expect((await page.goto('/analytics/performance/monthly-revenue'))?.status()).toBe(200);
  await expect(page.getByRole('heading', { level: 1, name: 'Monthly revenue' })).toBeVisible();
  await expect(page.locator('figure.chart-figure svg')).toBeVisible();
  const revenue = page.getByTestId('revenue-table');
  expect(await revenue.locator('tbody tr').count()).toBeGreaterThan(0);
  expect(amount(await revenue.locator('tfoot td[data-total="interest"]').textContent())).toBeGreaterThan(0);

  await page.locator('select[name="by"]').selectOption('branch');
  await page.locator('form[role="search"] button[type="submit"]').click();
  await expect(page).toHaveURL(/by=branch/);
  await expect(revenue.locator('thead th').first()).toHaveText('Branch');
  const lines = await csvOf(page, /CSV/);
  expect(lines[0]).toBe('Month,Branch,Interest,Fees,Penalties,Total');
  expect(lines.length).toBeGreaterThan(1);

  expect((await page.goto('/analytics/performance/portfolio-analysis'))?.status()).toBe(200);
  await expect(page.getByRole('heading', { level: 1, name: 'Portfolio analysis' })).toBeVisible();
  const portfolio = page.getByTestId('portfolio-table');
  expect(await portfolio.locator('tbody tr').count()).toBeGreaterThan(0);
  expect(amount(await portfolio.locator('tfoot td[data-total="principal"]').textContent())).toBeGreaterThan(0);
  await page.locator('select[name="by"]').selectOption('size_band');
  await page.locator('form[role="search"] button[type="submit"]').click();
  await expect(page).toHaveURL(/by=size_band/);
  await expect(portfolio.locator('thead th').first()).toHaveText('Size band');
  const rows = await portfolio.locator('tbody tr').count();
  expect(rows).toBeGreaterThan(1);
  const csv = await csvOf(page, /CSV/);
  expect(csv[0]).toBe('Month,Size band,Loans,Outstanding principal');

  // A bad dimension is a 400 naming the field, not a 500.
  expect((await page.goto('/analytics/performance/portfolio-analysis?by=colour'))?.status()).toBe(400);
  const api = await page.request.get('/v1/analytics/performance/portfolio-analysis?by=term_band');
  expect(api.status()).toBe(200);
  const body = (await api.json()) as { months: { principalOutstanding: string }[] };
  expect(body.months.at(-1)!.principalOutstanding).toMatch(/^\d+(\.\d+)?$/);
});

test('[ANALYTICS-PERFORMANCE]: bullet loans by maturity week open the loans behind a week', async ({ page }) => {
  await signIn(page, 'analyst@demo.test');
  expect((await page.goto('/analytics/risk/bullet-loans-collection'))?.status()).toBe(200);
  await expect(page.getByRole('heading', { level: 1, name: 'Bullet loans collection' })).toBeVisible();
  // Widen to the last 100 weeks of the business date (the `to` field holds the business date's week end).
  const to = await page.locator('input[name="to"]').inputValue();
  const from = new Date(Date.parse(`${to}T00:00:00Z`) - 100 * 7 * 86_400_000).toISOString().slice(0, 10);
  expect((await page.goto(`/analytics/risk/bullet-loans-collection?from=${from}&to=${to}`))?.status()).toBe(200);
  const weeks = page.getByTestId('bullet-table').locator('a[data-week]');
  expect(await weeks.count()).toBeGreaterThan(0);
  const week = (await weeks.first().getAttribute('data-week'))!;
  await weeks.first().click();
  await expect(page).toHaveURL(new RegExp(`week=${week}`));
  const loans = page.getByTestId('bullet-loans').locator('tbody tr');
  expect(await loans.count()).toBeGreaterThan(0);
  await expect(loans.first().locator('th a')).toHaveAttribute(
    'href',
    /^\/loans\/customer\/profile\/[0-9a-f-]+\/loans\/[0-9a-f-]+$/,
  );
  const lines = await csvOf(page, /CSV/);
  expect(lines[0]).toMatch(/^Maturity week,Loans,Due,Collected by maturity,/);
  expect((await page.goto('/analytics/risk/bullet-loans-collection?week=1999-W01'))?.status()).toBe(400);
});

test('[ANALYTICS-PERFORMANCE]: French at 1024 px without sideways scrolling; the collector gets 403', async ({
  browser,
}) => {
  const fr = await browser.newPage({ viewport: { width: 1024, height: 768 } });
  await signIn(fr, 'analyst@demo.test');
  await setLanguage(fr, 'fr-FR');
  try {
    for (const [path, title] of [
      ['/analytics/performance/monthly-revenue', 'Revenus mensuels'],
      ['/analytics/performance/portfolio-analysis?by=risk_class', 'Analyse du portefeuille'],
      ['/analytics/risk/bullet-loans-collection', 'Recouvrement des prêts in fine'],
    ] as const) {
      expect((await fr.goto(path))?.status()).toBe(200);
      await expect(fr.getByRole('heading', { level: 1, name: title })).toBeVisible();
      expect(await fr.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    }
  } finally {
    await setLanguage(fr, 'en-US');
    await fr.close();
  }

  const collector = await browser.newPage();
  await signIn(collector, 'collector@demo.test');
  for (const path of [
    '/analytics/performance/monthly-revenue',
    '/analytics/performance/portfolio-analysis',
    '/analytics/risk/bullet-loans-collection',
  ]) {
    expect((await collector.goto(path))?.status(), path).toBe(403);
    expect((await collector.request.get(`/v1${path}`)).status(), `/v1${path}`).toBe(403);
  }
  await collector.close();
});
