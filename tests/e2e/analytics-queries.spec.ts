import type { Page } from '@playwright/test';
import { expect, signIn, test } from './support/fixtures.ts';

/**
 * Issue 15, list-export queries: the analyst builds a query of overdue loans in one branch, saves
 * it, runs it (the count is the loans list's), exports it to CSV through the downloads list, reads
 * it in French at 1024 px and deletes it; a loans-side role is refused; an unknown id is a 404.
 */

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

async function setLanguage(page: Page, locale: 'fr-FR' | 'en-US') {
  await page.goto('/analytics/user/profile');
  await page.locator('#profile-language').selectOption(locale);
  await page.locator('form.form-stack button[type=submit]').click();
  await expect(page.locator('html')).toHaveAttribute('lang', locale.slice(0, 2));
}

/** The number in the active tab's badge of a list page. */
async function activeTabCount(page: Page): Promise<number> {
  const text = (await page.locator('nav.list-tabs a[aria-current="page"] .badge').textContent())!.trim();
  expect(text, 'the count is exact, not capped').toMatch(/^[\d,\s ]+$/);
  return Number(text.replace(/[^\d]/g, ''));
}

test('[ANALYTICS-QUERIES]: the analyst builds, saves, runs and exports a query of overdue loans in one branch', async ({
  page,
  browser,
}) => {
  await signIn(page, 'analyst@demo.test');
  expect((await page.goto('/analytics/queries'))?.status()).toBe(200);
  await expect(page.getByRole('heading', { level: 1, name: 'List-export queries' })).toBeVisible();
  await page.getByRole('link', { name: 'New query' }).click();
  await expect(page).toHaveURL(/\/analytics\/queries\/new$/);

  const name = `E2E overdue Paris ${Date.now()}`;
  const editor = page.getByTestId('query-editor');
  await editor.getByLabel('Name').fill(name);
  await editor.getByLabel('Rows').selectOption('overdue');
  const scope = (await editor.locator('#query-scope option', { hasText: 'Paris Centre' }).getAttribute('value'))!;
  expect(scope).toMatch(/^branch:/);
  await editor.locator('#query-scope').selectOption(scope);
  await editor.getByLabel('Days past due', { exact: true }).uncheck();
  await editor.getByLabel('Sort by').selectOption('days_past_due');
  await editor.getByLabel('Direction').selectOption('desc');
  await editor.getByRole('button', { name: 'Save' }).click();
  await expect(page).toHaveURL(/\/analytics\/queries\/[0-9a-f-]{36}\?done=saved$/);
  await expect(page.getByText('The query was saved.')).toBeVisible();
  const id = /\/analytics\/queries\/([0-9a-f-]{36})/.exec(page.url())![1]!;

  // Run: the count and rows are the loans list's for the same tab and branch (seen by the administrator).
  await page.locator('.page-intro').getByRole('link', { name: 'Run' }).click();
  await expect(page).toHaveURL(new RegExp(`/analytics/queries/${id}/results$`));
  const countText = (await page.getByTestId('query-count').textContent())!.trim();
  const count = Number(countText.replace(/[^\d]/g, ''));
  expect(count).toBeGreaterThan(0);
  const table = page.getByTestId('query-results');
  await expect(table.locator('tbody tr')).toHaveCount(Math.min(count, 25));
  await expect(table.locator('thead th')).not.toContainText(['Days past due']);
  const admin = await browser.newPage();
  await signIn(admin, 'admin@demo.test');
  await admin.goto(`/loans/loans?tab=overdue&scope=${scope}`);
  expect(await activeTabCount(admin)).toBe(count);
  await admin.close();

  // Export: queued, then the CSV appears in the downloads list with every row.
  await page.getByRole('button', { name: 'Export CSV' }).click();
  await expect(page).toHaveURL(/\/analytics\/user\/downloads-list$/);
  const first = page.locator('table tbody tr').first();
  const file = new RegExp(`e2e-overdue-paris-\\d+-\\d{4}-\\d{2}-\\d{2}\\.csv`);
  await expect(first).toContainText(file);
  const link = first.getByRole('link', { name: file });
  await expect(link).toBeVisible({ timeout: 30_000 });
  const response = await page.request.get((await link.getAttribute('href'))!);
  expect(response.status()).toBe(200);
  const lines = (await response.text())
    .replace(/^\uFEFF/, '')
    .trimEnd()
    .split(/\r?\n/);
  expect(lines).toHaveLength(count + 1);

  // French at 1024 px: the results and the editor read in French without sideways scrolling.
  await setLanguage(page, 'fr-FR');
  try {
    await page.setViewportSize({ width: 1024, height: 768 });
    expect((await page.goto(`/analytics/queries/${id}/results`))?.status()).toBe(200);
    await expect(page.getByRole('button', { name: 'Exporter en CSV' })).toBeVisible();
    await expect(page.getByTestId('query-count')).toContainText('lignes');
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    expect((await page.goto(`/analytics/queries/${id}`))?.status()).toBe(200);
    await expect(page.getByRole('button', { name: 'Exécuter' })).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  } finally {
    await setLanguage(page, 'en-US');
  }

  // Delete, after a confirmation.
  await page.goto(`/analytics/queries/${id}`);
  await page.getByRole('link', { name: 'Delete this query' }).click();
  await page.getByTestId('delete-confirmation').getByRole('button', { name: 'Yes, delete it' }).click();
  await expect(page).toHaveURL(/\/analytics\/queries\?done=deleted$/);
  await expect(page.getByText(name)).toHaveCount(0);
  expect((await page.goto(`/analytics/queries/${id}`))?.status()).toBe(404);
});

test('[ANALYTICS-QUERIES]: a loans-side role gets 403; an unknown query is a 404', async ({ page }) => {
  await signIn(page, 'officer@demo.test');
  for (const path of ['/analytics/queries', '/analytics/queries/new', `/analytics/queries/${UNKNOWN}/results`])
    expect((await page.goto(path))?.status(), path).toBe(403);
  expect((await page.request.get('/v1/analytics/queries')).status()).toBe(403);

  await page.goto('about:blank');
  await signIn(page, 'analyst@demo.test');
  for (const path of [`/analytics/queries/${UNKNOWN}`, `/analytics/queries/${UNKNOWN}/results`, '/analytics/queries/x'])
    expect((await page.goto(path))?.status(), path).toBe(404);
  expect((await page.request.get(`/v1/analytics/queries/${UNKNOWN}`)).status()).toBe(404);
  expect((await page.request.get(`/v1/analytics/queries/${UNKNOWN}/results`)).status()).toBe(404);
  // An unknown column in a definition is a 422 naming it.
  const refused = await page.request.post('/v1/analytics/queries/results', {
    data: { definition: { dataset: 'loans', columns: ['shoe_size'] } },
  });
  expect(refused.status()).toBe(422);
  expect((await refused.json()).error.field).toBe('columns.0');
});
