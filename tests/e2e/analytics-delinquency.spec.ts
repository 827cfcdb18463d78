import type { Page } from '@playwright/test';
import { expect, signIn, test } from './support/fixtures.ts';

/**
 * Issue 15, delinquency transitions and vintages: the analyst opens the roll-rate matrix (the demo's
 * five months of history give month-end pairs), opens a cell and sees the loans that moved (as many as
 * the cell says), downloads the matrix as CSV, reads the vintage curves and table; both pages in
 * French at 1024 px without sideways scrolling; a loans-side user is refused (403) pages and APIs.
 */

async function setLanguage(page: Page, locale: 'en-US' | 'fr-FR'): Promise<void> {
  await page.goto('/admin/user/profile');
  await page.locator('#profile-language').selectOption(locale);
  await page.locator('form.form-stack button[type=submit]').click();
  await expect(page.locator('html')).toHaveAttribute('lang', locale.slice(0, 2));
}

test.describe('[ANALYTICS-DELINQUENCY]', () => {
  test.setTimeout(180_000);

  test('the analyst opens a matrix cell to the loans behind it, downloads the matrix, reads the vintages', async ({
    page,
  }) => {
    await signIn(page, 'analyst@demo.test');
    expect((await page.goto('/analytics/risk/delinquency'))?.status()).toBe(200);
    await expect(page.getByRole('heading', { level: 1, name: 'Delinquency transitions' })).toBeVisible();
    const matrix = page.getByTestId('delinquency-matrix');
    await expect(matrix).toBeVisible();
    await expect(matrix.locator('thead th')).toContainText(['From \\ to', 'Current', '1–30', '31–60', '61–90', '90+']);

    // A cell away from "current → current" (the delinquent rows are what the board is about).
    const cells = matrix.locator('a[data-cell]:not([data-cell="current:current"])');
    expect(await cells.count()).toBeGreaterThan(0);
    const cell = cells.first();
    const key = (await cell.getAttribute('data-cell'))!;
    const count = Number(await cell.getAttribute('data-count'));
    expect(count).toBeGreaterThan(0);
    await cell.click();
    await expect(page).toHaveURL(new RegExp(`cell=${key.replace(':', '(:|%3A)')}`));
    const moved = page.getByTestId('moved-loans');
    await expect(moved).toBeVisible();
    await expect(page.getByTestId('moved-total')).toHaveAttribute('data-total', String(count));
    await expect(moved.getByTestId('moved-row')).toHaveCount(Math.min(count, 50));
    // The account number opens the loan.
    const loanLink = moved.getByTestId('moved-row').first().locator('th a');
    const href = (await loanLink.getAttribute('href'))!;
    expect(href).toMatch(/^\/loans\/[0-9a-f-]{36}$/);

    // The API answers the same count for the cell.
    const api = await page.request.get(`/v1/analytics/risk/delinquency/loans?cell=${key}`);
    expect(api.status()).toBe(200);
    expect((await api.json()).total).toBe(count);

    // CSV of the matrix.
    await page.goto('/analytics/risk/delinquency');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('matrix-csv').click()]);
    expect(download.suggestedFilename()).toMatch(/^delinquency-\d{4}-\d{2}-\d{4}-\d{2}\.csv$/);
    const csv = Buffer.concat(await (await download.createReadStream()).toArray()).toString('utf8');
    expect(csv).toContain('Current');
    expect(csv.trim().split(/\r?\n/).length).toBeGreaterThanOrEqual(6);

    // Vintages: curves and the cohort table with figures.
    expect((await page.goto('/analytics/risk/vintage-analysis'))?.status()).toBe(200);
    await expect(page.getByRole('heading', { level: 1, name: 'Vintage analysis' })).toBeVisible();
    await expect(page.locator('figure.chart-figure svg')).toBeVisible();
    const rows = page.getByTestId('vintage-row');
    expect(await rows.count()).toBeGreaterThan(0);
    await expect(rows.first().locator('td').nth(1)).toContainText(/\d/);
  });

  test('French at 1024 px without sideways scrolling', async ({ page }) => {
    await page.setViewportSize({ width: 1024, height: 768 });
    await signIn(page, 'analyst@demo.test');
    await setLanguage(page, 'fr-FR');
    try {
      expect((await page.goto('/analytics/risk/delinquency'))?.status()).toBe(200);
      await expect(page.getByRole('heading', { level: 1, name: 'Transitions des impayés' })).toBeVisible();
      await expect(page.getByTestId('delinquency-matrix').locator('thead')).toContainText('À jour');
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(
        0,
      );
      const cell = page.locator('a[data-cell]').first();
      await cell.click();
      await expect(page.getByTestId('moved-loans')).toBeVisible();
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(
        0,
      );
      expect((await page.goto('/analytics/risk/vintage-analysis'))?.status()).toBe(200);
      await expect(page.getByRole('heading', { level: 1, name: 'Analyse par génération' })).toBeVisible();
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(
        0,
      );
    } finally {
      await setLanguage(page, 'en-US');
    }
  });

  test('a loans-side user gets 403; bad parameters are 400 naming the field', async ({ page }) => {
    await signIn(page, 'officer@demo.test');
    for (const path of ['/analytics/risk/delinquency', '/analytics/risk/vintage-analysis'])
      expect((await page.goto(path))?.status(), path).toBe(403);
    for (const path of [
      '/v1/analytics/risk/delinquency',
      '/v1/analytics/risk/delinquency/loans?cell=current:1',
      '/v1/analytics/risk/vintage-analysis',
    ])
      expect((await page.request.get(path)).status(), path).toBe(403);
    await page.goto('about:blank');
    await signIn(page, 'analyst@demo.test');
    for (const [path, field] of [
      ['/v1/analytics/risk/delinquency?from=2025-13', 'from'],
      ['/v1/analytics/risk/delinquency/loans?cell=nope', 'cell'],
      ['/v1/analytics/risk/vintage-analysis?measure=ever45', 'measure'],
      ['/v1/analytics/risk/vintage-analysis?product=x', 'product'],
    ] as const) {
      const response = await page.request.get(path);
      expect(response.status(), path).toBe(400);
      expect(JSON.stringify(await response.json()), path).toContain(field);
    }
    expect((await page.goto('/analytics/risk/delinquency?cell=1:nowhere'))?.status()).toBe(400);
  });
});
