import type { Page } from '@playwright/test';
import { apiSession, expect, signIn, test } from './support/fixtures.ts';

/**
 * Issue 14, collection (acceptance): the collector's worklist by bucket, a call logged with a promise
 * to pay on a loan of the 31–60 bucket, the promise on the loan's timeline; then the daily close
 * breaks the unpaid promise and the collection workflow escalates once (not again the next day).
 * This spec moves the demo tenant's business date: it runs after the other specs (team-* last).
 */

const addDays = (date: string, days: number) => {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
};

test.describe.serial('[COLLECTION]: worklist, promise to pay, broken promise and escalation', () => {
  let loanUrl = '';
  let promiseDate = '';

  const timeline = (page: Page) => page.locator('#timeline-title').locator('..').locator('.timeline-entry');
  /** The promise this spec records, told from the demo's older ones by its amount. */
  const PROMISED = '12.34';
  const ours = (page: Page) =>
    timeline(page)
      .filter({ has: page.locator('strong', { hasText: /^Promise to pay$/ }) })
      .filter({ hasText: PROMISED });

  test('the collector logs a call with a promise on a 31–60 days loan and sees it open on the timeline', async ({
    page,
  }) => {
    await signIn(page, 'collector@demo.test');
    expect((await page.goto('/loans/collection'))?.status()).toBe(200);
    await expect(page.getByRole('heading', { level: 1, name: 'Collection' })).toBeVisible();
    const tab = page.locator('.collection-buckets a[data-bucket="31–60"]');
    await expect(tab).toBeVisible();
    await tab.click();
    await expect(tab).toHaveAttribute('aria-current', 'page');
    const rows = page.locator('table.collection-table tbody tr');
    expect(await rows.count()).toBeGreaterThan(0);
    // Highest priority first, every row in 31–60 days.
    for (const days of await rows.locator('td:nth-child(3)').allInnerTexts()) {
      expect(Number(days)).toBeGreaterThanOrEqual(31);
      expect(Number(days)).toBeLessThanOrEqual(60);
    }
    await rows.first().locator('td').first().getByRole('link').click();
    await expect(page).toHaveURL(/\/loans\/collection\?loan=[0-9a-f-]{36}$/);
    loanUrl = new URL(page.url()).pathname + new URL(page.url()).search;
    await expect(page.getByTestId('bucket')).toHaveText('31–60');

    const businessDate = (await page.locator('#contact-promise-date').getAttribute('min'))!;
    promiseDate = addDays(businessDate, 1);
    const form = page.locator('form[data-action="contact"]');
    await form.getByLabel('Channel').selectOption('phone');
    await form.getByLabel('Outcome').selectOption('reached');
    await form.getByLabel('Note').fill('Reached the customer; will pay tomorrow.');
    await form.getByLabel('Promise date').fill(promiseDate);
    await form.getByLabel(/Promise amount/).fill(PROMISED);
    await form.getByRole('button', { name: 'Log the contact' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'The contact is logged.' })).toBeVisible();
    await expect(page.getByTestId('open-promise')).toContainText(PROMISED);

    // The demo loan may carry older promises (kept or broken): this one is told by its amount.
    const promise = ours(page);
    await expect(promise).toHaveCount(1);
    await expect(promise).toHaveAttribute('data-status', 'open');
    await expect(
      timeline(page)
        .filter({ has: page.locator('strong', { hasText: /^Contact$/ }) })
        .filter({ hasText: 'will pay tomorrow' }),
    ).toContainText('Reached');

    // The same promise shows on the loan page's timeline.
    await page.getByRole('link', { name: 'Loan page' }).click();
    await expect(ours(page)).toHaveAttribute('data-status', 'open');
  });

  test('French at 1024 px: the worklist fits without horizontal page scroll', async ({ page }) => {
    await signIn(page, 'collector@demo.test');
    await page.goto('/loans/user/profile');
    await page.getByLabel('Language').selectOption('fr-FR');
    await page.getByRole('button', { name: 'Save changes' }).click();
    try {
      await page.setViewportSize({ width: 1024, height: 800 });
      for (const url of ['/loans/collection', loanUrl]) {
        expect((await page.goto(url))?.status()).toBe(200);
        await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
        await expect(page.getByRole('heading', { level: 1 })).toContainText('Recouvrement');
        const wide = await page.evaluate(() =>
          [...document.querySelectorAll('body *')]
            .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
            .slice(0, 5)
            .map(
              (e) =>
                `${e.tagName.toLowerCase()}#${e.id}.${e.className} in ${e.parentElement?.tagName}.${e.parentElement?.className} right=${Math.round(e.getBoundingClientRect().right)}`,
            ),
        );
        expect(
          await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
          `${url}: ${wide.join(', ')}`,
        ).toBeLessThanOrEqual(0);
      }
    } finally {
      await page.goto('/loans/user/profile');
      await page.getByLabel('Langue').selectOption('en-US');
      await page.getByRole('button', { name: 'Enregistrer les modifications' }).click();
    }
  });

  test('an analyst without loans.collection.view gets 403; an unknown loan answers 404', async ({ page }) => {
    await signIn(page, 'analyst@demo.test');
    expect((await page.goto('/loans/collection'))?.status()).toBe(403);
    const api = await page.request.get('/v1/collection/cases');
    expect(api.status()).toBe(403);
    await signIn(page, 'collector@demo.test');
    expect((await page.goto('/loans/collection?loan=00000000-0000-4000-8000-000000000000'))?.status()).toBe(404);
    expect((await page.goto('/loans/collection?loan=not-a-uuid'))?.status()).toBe(404);
    expect((await page.request.get('/v1/collection/cases/00000000-0000-4000-8000-000000000000')).status()).toBe(404);
  });

  test('after the promise date the close breaks the promise and escalates once, not again the next day', async ({
    page,
    browser,
    baseURL,
  }) => {
    expect(loanUrl).not.toBe('');
    const admin = await apiSession(browser, 'admin@demo.test', baseURL!);
    const close = async (until: string) => {
      const response = await admin.post('/v1/close-of-business', { data: { until } });
      expect(response.status(), await response.text()).toBeLessThan(300);
    };
    await close(addDays(promiseDate, 1));
    await signIn(page, 'collector@demo.test');
    await page.goto(loanUrl);
    await expect(ours(page)).toHaveAttribute('data-status', 'broken');
    const escalation = timeline(page).filter({ hasText: /Escalation/ });
    await expect(escalation).toHaveCount(1);

    await close(addDays(promiseDate, 2));
    await page.goto(loanUrl);
    await expect(timeline(page).filter({ hasText: /Escalation/ })).toHaveCount(1);
  });
});
