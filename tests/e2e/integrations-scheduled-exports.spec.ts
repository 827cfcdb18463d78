import type { Page } from '@playwright/test';
import { appOrigin, expect, signIn, test } from './support/fixtures.ts';

/**
 * Issue 16, scheduled exports: the administrator creates a daily export of the loans list to the
 * downloads list through the plain form, previews its next runs, runs it now, sees the run in the
 * history and the file in the downloads list; the pages read in French at 1024 px without sideways
 * scrolling; a role without admin.scheduled_exports gets 403 on the pages and the API.
 */

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

async function setLanguage(page: Page, locale: 'fr-FR' | 'en-US') {
  await page.goto('/admin/user/profile');
  await page.locator('#profile-language').selectOption(locale);
  await page.locator('form.form-stack button[type=submit]').click();
  await expect(page.locator('html')).toHaveAttribute('lang', locale.slice(0, 2));
}

test('[SCHEDULED EXPORTS]: an admin creates a daily export of the loans list, runs it now, and finds the file in the downloads list', async ({
  page,
}) => {
  await signIn(page, 'admin@demo.test');
  expect((await page.goto('/admin/notifications/scheduled-exports'))?.status()).toBe(200);
  await expect(page.getByRole('heading', { level: 1, name: 'Scheduled exports' })).toBeVisible();
  await page.getByRole('link', { name: 'Add a scheduled export' }).click();
  await expect(page).toHaveURL(/\/scheduled-exports\/add$/);

  const name = `E2E daily loans ${Date.now()}`;
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel('Source', { exact: true }).selectOption('list:loans');
  await page.getByLabel('Format').selectOption('csv');
  await page.getByLabel('Schedule (cron)').fill('0 6 * * *');
  // The schedule is checked and its next three runs shown before saving.
  await page.getByRole('button', { name: 'Show the next runs' }).click();
  await expect(page.getByText('Every day at 06:00')).toBeVisible();
  await expect(page.locator('ol.next-runs li')).toHaveCount(3);
  // A schedule more frequent than every 15 minutes is refused, naming the field.
  await page.getByLabel('Schedule (cron)').fill('*/5 * * * *');
  await page.getByRole('button', { name: 'Create the export' }).click();
  await expect(page.getByRole('alert')).toContainText('cron');
  await page.getByLabel('Schedule (cron)').fill('0 6 * * *');
  await expect(page.getByLabel('The owner’s downloads list')).toBeChecked();
  await page.getByRole('button', { name: 'Create the export' }).click();
  await expect(page).toHaveURL(/\/scheduled-exports\/update\/[0-9a-f-]{36}\?done=added$/);
  await expect(page.getByRole('heading', { level: 1, name })).toBeVisible();
  const updateUrl = page.url().split('?')[0]!;

  // The list shows it: source, schedule in words and cron, next run.
  await page.goto('/admin/notifications/scheduled-exports');
  const row = page.locator('table tbody tr', { hasText: name });
  await expect(row).toContainText('Loans');
  await expect(row).toContainText('Every day at 06:00');
  await expect(row).toContainText('0 6 * * *');
  await expect(row).toContainText('Never run');

  // Run now: the run appears in the history and succeeds (the server's job worker runs it).
  await page.goto(updateUrl);
  await page.getByRole('button', { name: 'Run now' }).click();
  await expect(page.getByText('A run was queued')).toBeVisible();
  const history = page.locator('table.runs-table tbody tr').first();
  await expect(history).toContainText('Run now');
  await expect(async () => {
    await page.reload();
    await expect(page.locator('table.runs-table tbody tr').first()).toContainText('Succeeded', { timeout: 1_000 });
  }).toPass({ timeout: 60_000 });
  await expect(history).toContainText('Downloads list: delivered');

  // The file is in the downloads list, as a CSV of the loans list.
  await page.goto('/loans/user/downloads-list');
  const file = page
    .locator('table tbody tr')
    .filter({ hasText: /loans-\d{8}-\d{6}\.csv/ })
    .first();
  const link = file.getByRole('link', { name: /loans-\d{8}-\d{6}\.csv/ });
  await expect(link).toBeVisible();
  const response = await page.request.get((await link.getAttribute('href'))!);
  expect(response.status()).toBe(200);
  const csv = (await response.body()).toString('utf8');
  expect(csv.startsWith('\uFEFF')).toBe(true);
  expect(csv.split('\r\n').length).toBeGreaterThan(2);

  // The API answers the export and its runs, never a secret.
  const id = updateUrl.split('/').pop()!;
  const runs = await page.request.get(`/v1/scheduled-exports/${id}/runs`);
  expect(runs.status()).toBe(200);
  expect((await runs.json()).items[0]).toMatchObject({ status: 'succeeded', trigger: 'manual' });

  // In French at 1024 px: the list, the form and the history read in French, nothing spills sideways.
  await page.setViewportSize({ width: 1024, height: 768 });
  await setLanguage(page, 'fr-FR');
  try {
    for (const [path, heading] of [
      ['/admin/notifications/scheduled-exports', 'Exports planifiés'],
      ['/admin/notifications/scheduled-exports/add', 'Nouvel export planifié'],
      [updateUrl.replace(/^https?:\/\/[^/]+/, ''), name],
    ] as const) {
      expect((await page.goto(path))?.status(), path).toBe(200);
      await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, path).toBeLessThanOrEqual(0);
    }
    await expect(page.getByRole('button', { name: 'Exécuter maintenant' })).toBeVisible();
    await expect(page.locator('table.runs-table')).toContainText('Réussi');
    await expect(page.getByText('Tous les jours à 06:00')).toBeVisible();
  } finally {
    await setLanguage(page, 'en-US');
  }

  // Delete it: gone from the list, its page is a 404.
  await page.goto(updateUrl);
  await page.getByRole('button', { name: 'Delete this export' }).click();
  await expect(page).toHaveURL(/\/scheduled-exports\?done=deleted$/);
  await expect(page.getByText(name)).toHaveCount(0);
  expect((await page.goto(updateUrl))?.status()).toBe(404);
});

test('[SCHEDULED EXPORTS]: a role without the permission gets 403; an unknown export is a 404', async ({ page }) => {
  await signIn(page, 'officer@demo.test');
  for (const path of [
    '/admin/notifications/scheduled-exports',
    '/admin/notifications/scheduled-exports/add',
    `/admin/notifications/scheduled-exports/update/${UNKNOWN}`,
  ])
    expect((await page.goto(path))?.status(), path).toBe(403);
  expect((await page.request.get('/v1/scheduled-exports')).status()).toBe(403);
  expect(
    (
      await page.request.post(`/v1/scheduled-exports/${UNKNOWN}/run`, { data: {}, headers: { origin: appOrigin() } })
    ).status(),
  ).toBe(403);

  await page.goto('about:blank');
  await signIn(page, 'admin@demo.test');
  expect((await page.goto(`/admin/notifications/scheduled-exports/update/${UNKNOWN}`))?.status()).toBe(404);
  expect((await page.goto('/admin/notifications/scheduled-exports/update/x'))?.status()).toBe(404);
  expect((await page.request.get(`/v1/scheduled-exports/${UNKNOWN}`)).status()).toBe(404);
  // A private HTTP target is refused with a 400 naming the field.
  const refused = await page.request.post('/v1/scheduled-exports', {
    headers: { origin: appOrigin() },
    data: {
      name: 'SSRF probe',
      source: { kind: 'list', list: 'loans' },
      format: 'csv',
      cron: '0 6 * * *',
      targets: { http: { url: 'http://169.254.169.254/latest/meta-data', method: 'PUT' } },
    },
  });
  expect(refused.status()).toBe(400);
  expect((await refused.json()).error.field).toBe('targets.http.url');
});
