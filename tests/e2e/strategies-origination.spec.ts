import type { Browser, Page } from '@playwright/test';
import { expect, signInThroughForm, test } from './support/fixtures.ts';

/**
 * [STRATEGIES-ORIGINATION]: offers made by the live demo strategy ("Personal loans — core", seeded with
 * the demo credit policy and originated at the seed's business date) carry their strategy and the why
 * of their decision; an administrator forces the eligibility of a customer the strategy gave nothing,
 * with a reason, and sees it listed; a loan officer without customer.eligibility.force sees no form
 * and the API answers 403; the pages in French at 1024 px.
 */

type Offer = { id: string; customerId: string; strategyId: string | null; status: string };
type Customer = { id: string; optInStatus?: string; opt_in_status?: string };

async function signedIn(browser: Browser, baseURL: string, email: string, width = 1366): Promise<Page> {
  const context = await browser.newContext({
    baseURL,
    extraHTTPHeaders: { origin: baseURL },
    viewport: { width, height: 800 },
  });
  const page = await context.newPage();
  await signInThroughForm(page, email);
  return page;
}

/** The seeded live strategy's id, read by an administrator (other specs make strategies and offers of their own). */
async function coreStrategyId(browser: Browser, baseURL: string): Promise<string> {
  const admin = await signedIn(browser, baseURL, 'admin@demo.test');
  const response = await admin.request.get('/v1/strategies');
  expect(response.status()).toBe(200);
  const items = (await response.json()).items as { id: string; name: string }[];
  const core = items.find((s) => s.name === 'Personal loans — core');
  expect(core, 'the demo seed has the live strategy').toBeTruthy();
  await admin.context().close();
  return core!.id;
}

async function strategyOffers(page: Page, strategyId: string): Promise<Offer[]> {
  const response = await page.request.get('/v1/offers?limit=500');
  expect(response.status()).toBe(200);
  return ((await response.json()).items as Offer[]).filter((o) => o.strategyId === strategyId);
}

test.describe('[STRATEGIES-ORIGINATION]: offers from the live strategy, and forced eligibility', () => {
  test('a loan officer opens an offer of the live demo strategy and sees its strategy and why', async ({
    browser,
    baseURL,
  }) => {
    const core = await coreStrategyId(browser, baseURL!);
    const officer = await signedIn(browser, baseURL!, 'officer@demo.test');
    const offers = await strategyOffers(officer, core);
    expect(offers.length, 'the seeded origination made offers in the officer’s branch').toBeGreaterThan(0);
    const offer = offers[0];
    await officer.goto(`/loans/customer/profile/${offer.customerId}/offers/${offer.id}`);
    await expect(officer.getByTestId('offer-strategy')).toContainText('Personal loans — core');
    await expect(officer.getByTestId('offer-strategy')).toContainText('version 1');
    // The officer may not see strategies: the name is not a link.
    await expect(officer.getByTestId('offer-strategy').locator('a')).toHaveCount(0);
    const why = officer.locator('section.decision-why');
    await expect(why.getByRole('heading', { name: 'Why this offer' })).toBeVisible();
    await expect(why).toContainText('Demo credit policy');
    await expect(why).toContainText(/Strong income, low debt|Standard profile/);
  });

  test('an administrator forces eligibility for a customer without an offer; an officer may not', async ({
    browser,
    baseURL,
  }) => {
    const core = await coreStrategyId(browser, baseURL!);
    const admin = await signedIn(browser, baseURL!, 'admin@demo.test');
    const withOffer = new Set((await strategyOffers(admin, core)).map((o) => o.customerId));
    const officer = await signedIn(browser, baseURL!, 'officer@demo.test');
    const officerCustomers = (await (await officer.request.get('/v1/customers?limit=200')).json()).items as Customer[];
    const refused = officerCustomers.find((c) => !withOffer.has(c.id));
    expect(refused, 'a customer of the officer’s branch without a strategy offer').toBeTruthy();
    const customerId = refused!.id;

    // The officer: no form, and the API refuses.
    await officer.goto(`/loans/customer/profile/${customerId}/offers`);
    await expect(officer.getByTestId('eligibility')).toBeVisible();
    await expect(officer.getByTestId('force-eligibility')).toHaveCount(0);
    const denied = await officer.request.post(`/v1/customers/${customerId}/eligibility-overrides`, {
      data: { reason: 'I would like to' },
    });
    expect(denied.status()).toBe(403);

    // The administrator: a too-short reason is refused next to the field, then forced and listed.
    const reason = `Known customer, salary moved ${Date.now().toString(36)}`;
    await admin.goto(`/loans/customer/profile/${customerId}/offers`);
    const form = admin.getByTestId('force-eligibility');
    await form.getByLabel('Reason').fill('no');
    await form.getByLabel('Reason').evaluate((el) => el.removeAttribute('minlength'));
    await form.getByRole('button', { name: 'Force eligibility' }).click();
    await expect(admin.locator('#eligibility-reason')).toHaveAttribute('aria-invalid', 'true');
    await admin.getByTestId('force-eligibility').getByLabel('Reason').fill(reason);
    await admin
      .getByTestId('force-eligibility')
      .getByLabel('Strategy')
      .selectOption({ label: 'Personal loans — core' });
    await admin.getByTestId('force-eligibility').getByRole('button', { name: 'Force eligibility' }).click();
    await expect(admin).toHaveURL(/\/offers\?done=saved$/);
    const row = admin.getByTestId('eligibility').locator('tbody tr', { hasText: reason });
    await expect(row).toContainText('Alice Admin');
    await expect(row).toContainText('Personal loans — core');
    await expect(row).toContainText('Waiting for the next origination');
  });

  test('in French at 1024 px: the offer’s strategy and why, without horizontal scrolling', async ({
    browser,
    baseURL,
  }) => {
    const core = await coreStrategyId(browser, baseURL!);
    const agent = await signedIn(browser, baseURL!, 'agent.fr@demo.test', 1024);
    const offers = await strategyOffers(agent, core);
    expect(offers.length).toBeGreaterThan(0);
    const offer = offers[0];
    await agent.goto(`/loans/customer/profile/${offer.customerId}/offers/${offer.id}`);
    await expect(agent.getByTestId('offer-strategy')).toContainText('Personal loans — core');
    await expect(
      agent.locator('section.decision-why').getByRole('heading', { name: 'Pourquoi cette offre' }),
    ).toBeVisible();
    await agent.goto(`/loans/customer/profile/${offer.customerId}/offers`);
    await expect(agent.getByRole('heading', { name: 'Forcer l’éligibilité' })).toBeVisible();
    const overflow = await agent.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });
});
