import type { Page } from '@playwright/test';
import { expect, signIn, test } from './support/fixtures.ts';

/**
 * Issue 14, boards: the one-branch officer's overview figures lead to lists that show the same
 * number; the performance board sorts and exports; both read in French at 1024 px without sideways
 * scrolling; the collector (no overview permission) is refused. Nothing here depends on the
 * business date (another team-* spec moves it).
 */

/** The number in the active tab's badge of a list page ("Overdue 4"). */
async function activeTabCount(page: Page): Promise<number> {
  const badge = page.locator('nav.list-tabs a[aria-current="page"] .badge');
  const text = (await badge.textContent())!.trim();
  expect(text, 'the count is exact, not capped').toMatch(/^[\d,\s ]+$/);
  return Number(text.replace(/[^\d]/g, ''));
}

/** The figure of a card of the overview, as a number ("4", "12.5 %" → 12.5 is not used here). */
async function figure(page: Page, key: string): Promise<{ value: number; href: string }> {
  const card = page.locator(`a[data-figure="${key}"]`);
  const text = (await card.locator('[data-value]').textContent())!.trim();
  return { value: Number(text.replace(/[^\d]/g, '')), href: (await card.getAttribute('href'))! };
}

test('[TEAM-BOARDS]: the officer follows overview figures to lists showing the same count', async ({ page }) => {
  await signIn(page, 'officer@demo.test');
  expect((await page.goto('/loans/overview'))?.status()).toBe(200);
  await expect(page.getByRole('heading', { level: 1, name: 'Loans overview' })).toBeVisible();

  const active = await figure(page, 'active');
  expect(active.value).toBeGreaterThan(0);
  await page.locator('a[data-figure="active"]').click();
  await expect(page).toHaveURL(/\/loans\/loans/);
  expect(await activeTabCount(page)).toBe(active.value);

  await page.goto('/loans/overview');
  const offers = await figure(page, 'offers');
  await page.locator('a[data-figure="offers"]').click();
  await expect(page).toHaveURL(/\/loans\/offers\?tab=to_propose/);
  expect(await activeTabCount(page)).toBe(offers.value);

  // PAR30: the card shows a share; its detail names the loans, which the filtered list counts.
  await page.goto('/loans/overview');
  const par30 = page.locator('a[data-figure="par30"]');
  const detail = (await par30.locator('.board-detail').textContent())!;
  const loans = Number(/^(\d+)/.exec(detail.trim())![1]);
  expect(loans).toBeGreaterThan(0);
  await par30.click();
  await expect(page).toHaveURL(/f\.days_past_due=31\.\./);
  await expect(page.locator('table tbody tr')).toHaveCount(loans);

  // The scope picker offers the officer's own branch only (and its officers), never another branch.
  await page.goto('/loans/overview');
  const options = await page.locator('select[name="scope"] option').allTextContents();
  expect(options.join('|')).toContain('Paris Centre');
  expect(options.join('|')).not.toContain('Lyon');
  expect(options.join('|')).not.toContain('Paris Nord');
});

test('[TEAM-BOARDS]: performance sorts by a column and exports CSV; French at 1024 px; the collector gets 403', async ({
  page,
  browser,
}) => {
  await signIn(page, 'admin@demo.test');
  expect((await page.goto('/loans/performance?by=branch&from=2000-01-01'))?.status()).toBe(200);
  const table = page.getByTestId('performance-table');
  await expect(table.locator('tbody tr')).not.toHaveCount(0);

  await table.locator('a[data-sort="disbursed_count"]').click();
  await expect(page).toHaveURL(/sort=-disbursed_count/);
  const counts = (
    await page.getByTestId('performance-table').locator('tbody tr td:nth-of-type(1)').allTextContents()
  ).map((t) => Number(t.replace(/[^\d]/g, '')));
  expect(counts.length).toBeGreaterThan(1);
  expect([...counts].sort((a, b) => b - a)).toEqual(counts);

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Export CSV' }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^performance-branch-2000-01-01-\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = await (await download.createReadStream()).toArray();
  const text = Buffer.concat(csv)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  const lines = text.trimEnd().split('\r\n');
  expect(lines[0]).toBe(
    'Branch,Loans disbursed,Amount disbursed,Expected,Collected,Collection rate,PAR 30,Offers created,Offers → loans,Conversion,Tasks done',
  );
  expect(lines).toHaveLength(counts.length + 1);

  // French at 1024 px (the French one-branch officer): the overview reads in French, nothing spills sideways.
  const fr = await browser.newPage({ viewport: { width: 1024, height: 768 } });
  await signIn(fr, 'agent.fr@demo.test');
  expect((await fr.goto('/loans/overview'))?.status()).toBe(200);
  await expect(fr.getByRole('heading', { level: 1, name: 'Vue d’ensemble des prêts' })).toBeVisible();
  expect(await fr.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  await fr.close();
  await page.setViewportSize({ width: 1024, height: 768 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);

  const collector = await browser.newPage();
  await signIn(collector, 'collector@demo.test');
  expect((await collector.goto('/loans/overview'))?.status()).toBe(403);
  expect((await collector.goto('/loans/performance'))?.status()).toBe(403);
  await collector.close();
});
