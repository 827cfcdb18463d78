import { expect, signIn, test } from './support/fixtures.ts';

/**
 * Issue 15, custom metrics and reports: the analyst creates a metric (average principal of overdue
 * loans) with a preview, builds a report on loans grouped by product, filtered to one branch's overdue
 * loans, with that metric; saves it, sees the pivot, downloads the CSV, prints it (navigation hidden).
 * French at 1024 px (the plans tenant's French analyst, whose plan has no reports: 403 there); a
 * loans-side role is refused. Names carry a run stamp so reruns on the same database do not collide.
 */
const stamp = Date.now().toString(36);

test('[ANALYTICS-REPORTS]: metric with preview, report with the metric, pivot, CSV, print', async ({ page }) => {
  await signIn(page, 'analyst@demo.test');
  expect((await page.goto('/analytics/metrics-config'))?.status()).toBe(200);
  await expect(page.getByRole('heading', { level: 1, name: 'Custom metrics' })).toBeVisible();
  expect((await page.goto('/analytics/metrics-config/add/median'))?.status()).toBe(404);

  expect((await page.goto('/analytics/metrics-config/add/average'))?.status()).toBe(200);
  const name = `avg-overdue-${stamp}`;
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel('Label (English)').fill(`Average overdue principal ${stamp}`);
  await page.getByLabel('Label (French)').fill(`Capital moyen en retard ${stamp}`);
  await page.locator('input[name="f.days_past_due"]').fill('1..');
  await page.getByLabel('Column').selectOption('principal');
  await page.getByLabel('Format').selectOption('money');
  await page.getByRole('button', { name: 'Preview' }).click();
  const preview = page.getByTestId('metric-preview');
  await expect(preview).toBeVisible();
  await expect(preview).toContainText('Average of Principal');
  await expect(preview).toContainText('Days past due at least 1');
  await expect(preview.locator('.metric-preview__value')).toContainText(/\d/);
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page).toHaveURL(new RegExp(`/analytics/metrics-config/average/${name}\\?done=saved`));
  await expect(page.getByTestId('metric-preview')).toContainText(/\d/);

  // The report: loans of Paris Centre that are overdue, by product, with a count and the metric.
  expect((await page.goto('/analytics/reports/add'))?.status()).toBe(200);
  const reportName = `Overdue Paris Centre ${stamp}`;
  await page.getByLabel('Name', { exact: true }).fill(reportName);
  await page.locator('input[name="f.branch"]').fill('Paris Centre');
  await page.locator('input[name="f.days_past_due"]').fill('1..');
  await page.getByLabel('Rows').selectOption('product');
  await page.getByLabel('Measure 1').selectOption('count');
  await page.getByLabel('Measure 2').selectOption(`metric:average/${name}`);
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page).toHaveURL(/\/analytics\/reports\/[0-9a-f-]{36}\?done=saved/);
  const pivot = page.getByTestId('report-pivot');
  await expect(pivot.getByRole('columnheader', { name: `Average overdue principal ${stamp}` })).toBeVisible();
  await expect(pivot.locator('tfoot th[scope="row"]')).toHaveText('Total');
  const reportUrl = page.url().replace(/\?.*$/, '');

  // CSV of the table as shown.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'CSV' }).first().click(),
  ]);
  const csv = await (await download.createReadStream()).toArray();
  const text = Buffer.concat(csv).toString('utf8');
  expect(text).toContain('Product');
  expect(text).toContain('Total');

  // Print: navigation and forms hidden, the pivot shown.
  await page.goto(reportUrl);
  await page.emulateMedia({ media: 'print' });
  await expect(page.locator('nav').first()).toBeHidden();
  await expect(pivot).toBeVisible();
  await page.emulateMedia({ media: 'screen' });

  // Unknown report → 404; the edit view keeps working.
  expect((await page.goto('/analytics/reports/00000000-0000-4000-8000-000000000000'))?.status()).toBe(404);
  expect((await page.goto(`${reportUrl}?edit=1`))?.status()).toBe(200);
  await expect(page.locator('#report-rows')).toHaveValue('product');
});

test('[ANALYTICS-REPORTS]: French at 1024 px, plan without reports, loans-side role refused', async ({ browser }) => {
  const fr = await browser.newPage({ viewport: { width: 1024, height: 768 } });
  await signIn(fr, 'analyste@plans.test');
  expect((await fr.goto('/analytics/metrics-config'))?.status()).toBe(200);
  await expect(fr.getByRole('heading', { level: 1, name: 'Indicateurs personnalisés' })).toBeVisible();
  expect(await fr.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  expect((await fr.goto('/analytics/metrics-config/add/ratio'))?.status()).toBe(200);
  await expect(fr.getByRole('button', { name: 'Aperçu' })).toBeVisible();
  // The plans tenant's plan has analytics_reports off: pages and API refused.
  expect((await fr.goto('/analytics/reports'))?.status()).toBe(403);
  expect((await fr.request.get('/v1/analytics/reports')).status()).toBe(403);
  await fr.close();

  const officer = await browser.newPage();
  await signIn(officer, 'officer@demo.test');
  for (const path of [
    '/analytics/metrics-config',
    '/analytics/metrics-config/add/count',
    '/analytics/reports',
    '/analytics/reports/add',
  ])
    expect((await officer.goto(path))?.status(), path).toBe(403);
  expect((await officer.request.get('/v1/analytics/metrics')).status()).toBe(403);
  await officer.close();
});
