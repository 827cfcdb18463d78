import type { Page } from '@playwright/test';
import { expect, signIn, test } from './support/fixtures.ts';

/**
 * Issue 15, portfolio and risk: the analyst follows an Overview figure to the loans list showing the
 * same count; risk by product in its three views, sorted and downloaded; French at 1024 px without
 * sideways scrolling; a loans-side role (the collector) is refused every page and endpoint.
 */

async function activeTabCount(page: Page): Promise<number> {
  const text = (await page.locator('nav.list-tabs a[aria-current="page"] .badge').textContent())!.trim();
  return Number(text.replace(/[^\d]/g, ''));
}

async function figure(page: Page, key: string): Promise<number> {
  const text = (await page.locator(`a[data-figure="${key}"] [data-value]`).textContent())!.trim();
  return Number(text.replace(/[^\d]/g, ''));
}

test('[ANALYTICS-PORTFOLIO]: the overview figures lead to the lists behind them', async ({ page }) => {
  await signIn(page, 'analyst@demo.test');
  expect((await page.goto('/analytics/overview'))?.status()).toBe(200);
  await expect(page.getByRole('heading', { level: 1, name: 'Portfolio overview' })).toBeVisible();
  await expect(page.locator('figure svg').first()).toBeVisible();

  const active = await figure(page, 'active');
  expect(active).toBeGreaterThan(0);
  await page.locator('a[data-figure="active"]').click();
  await expect(page).toHaveURL(/\/loans\/loans\?tab=all_outstanding/);
  expect(await activeTabCount(page)).toBe(active);

  // PAR 30: the tile's detail names the loans the filtered list shows.
  await page.goto('/analytics/overview');
  const detail = (await page.locator('a[data-figure="par30"] .figure-detail').textContent())!.trim();
  const loans = Number(/^(\d+)/.exec(detail)![1]);
  expect(loans).toBeGreaterThan(0);
  await page.locator('a[data-figure="par30"]').click();
  await expect(page).toHaveURL(/f\.days_past_due=31\.\./);
  await expect(page.locator('table tbody tr')).toHaveCount(loans);

  // The API answers the same figure; a date that is neither the business date nor a closed month end is refused.
  const api = await page.request.get('/v1/analytics/portfolio');
  expect(api.status()).toBe(200);
  const body = await api.json();
  expect(body.activeLoans).toBe(active);
  expect(body.outstandingPrincipal).toMatch(/^\d+\.\d{2}$/);
  const bad = await page.request.get('/v1/analytics/portfolio?date=2001-02-03');
  expect(bad.status()).toBe(400);
  expect((await bad.json()).field ?? JSON.stringify(await bad.json())).toContain('date');
});

test('[ANALYTICS-PORTFOLIO]: risk by product board, cards and table; sort and CSV; French at 1024 px; 403', async ({
  page,
  browser,
}) => {
  await signIn(page, 'analyst@demo.test');
  expect((await page.goto('/analytics/risk/product'))?.status()).toBe(200);
  await expect(page.getByRole('heading', { level: 1, name: 'Risk by product' })).toBeVisible();
  await expect(page.locator('figure svg').first()).toBeVisible();

  await page.locator('nav.risk-tabs a[data-tab="cards"]').click();
  await expect(page).toHaveURL(/\/analytics\/risk\/product\/cards/);
  const cards = await page.locator('section.risk-card').count();
  expect(cards).toBeGreaterThan(1);

  await page.locator('nav.risk-tabs a[data-tab="view"]').click();
  await expect(page).toHaveURL(/\/analytics\/risk\/product\/view/);
  const table = page.getByTestId('risk-table');
  const rows = await table.locator('tbody tr').count();
  expect(rows).toBe(cards);
  await table.locator('a[data-sort="active"]').click();
  await expect(page).toHaveURL(/sort=-active/);
  const counts = (await page.getByTestId('risk-table').locator('tbody tr td:nth-of-type(1)').allTextContents()).map(
    (t) => Number(t.replace(/[^\d]/g, '')),
  );
  expect([...counts].sort((a, b) => b - a)).toEqual(counts);

  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('a[data-export="csv"]').click()]);
  expect(download.suggestedFilename()).toMatch(/^risk-product-\d{4}-\d{2}-\d{2}\.csv$/);
  const text = Buffer.concat(await (await download.createReadStream()).toArray())
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  const lines = text.trimEnd().split('\r\n');
  expect(lines[0].startsWith('Product,Active loans,Principal outstanding')).toBe(true);
  expect(lines).toHaveLength(rows + 2);

  // French at 1024 px.
  await page.setViewportSize({ width: 1024, height: 768 });
  await page.goto('/analytics/user/profile');
  await page.locator('#profile-language').selectOption('fr-FR');
  await page.locator('form.form-stack button[type=submit]').click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
  for (const [path, heading] of [
    ['/analytics/overview', 'Vue d’ensemble du portefeuille'],
    ['/analytics/risk/product/view', 'Risque par produit'],
    ['/analytics/risk/branch/cards', 'Risque par agence'],
  ]) {
    expect((await page.goto(path))?.status()).toBe(200);
    await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  }
  await page.goto('/analytics/user/profile');
  await page.locator('#profile-language').selectOption('en-US');
  await page.locator('form.form-stack button[type=submit]').click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');

  const collector = await browser.newPage();
  await signIn(collector, 'collector@demo.test');
  for (const path of ['/analytics/overview', '/analytics/risk/product', '/analytics/risk/branch/view'])
    expect((await collector.goto(path))?.status()).toBe(403);
  for (const path of [
    '/v1/analytics/portfolio',
    '/v1/analytics/overview',
    '/v1/analytics/risk/product',
    '/v1/analytics/risk/branch',
  ])
    expect((await collector.request.get(path)).status()).toBe(403);
  await collector.close();
});
