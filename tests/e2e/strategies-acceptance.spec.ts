import type { Browser, Page } from '@playwright/test';
import { appOrigin, expect, signIn, test } from './support/fixtures.ts';

/**
 * [STRATEGIES]: the issue's acceptance test, in the browser with the demo users. The strategist
 * (strategist@demo.test, the client side) requests a strategy; the provider (provider@demo.test)
 * encodes a draft with the demo decision model and runs a simulation (figures beside the live
 * baseline, the changed customers); one person validating both sides is refused; the provider and
 * the strategist validate; the strategist implements it, generates offers now, the offers carry their
 * "why"; after deactivation no new offer comes.
 *
 * DEPENDS ON helper E's work (branch i12-e), merged by the integrator: the demo seed's decision model
 * "Demo credit policy" (without it the model chooser is empty and the spec stops at the encode step
 * with a clear message), and POST /v1/strategies/{id}/originations with the offers' "why" on the offer
 * pages (the steps marked [E]).
 */

const unique = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;

async function as(browser: Browser, email: string): Promise<Page> {
  const context = await browser.newContext({ baseURL: appOrigin(), extraHTTPHeaders: { origin: appOrigin() } });
  const page = await context.newPage();
  await signIn(page, email);
  return page;
}

const action = (page: Page, name: string) => page.getByRole('button', { name, exact: true });

async function simulate(page: Page) {
  await action(page, 'Run a simulation').click();
  await expect(page).toHaveURL(/done=simulate/);
  // The progress island reloads the page when the job ends; the figures are then server-rendered.
  await expect(page.getByTestId('simulation-figures')).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('draft-stage')).toContainText('Simulated');
}

test.describe('[STRATEGIES]: lending strategies', () => {
  test.setTimeout(180_000);

  test('request → encode → simulate → two validations → implement → generate offers → deactivate', async ({
    browser,
  }) => {
    const name = `E2E strategy ${unique()}`;
    const strategist = await as(browser, 'strategist@demo.test');
    const provider = await as(browser, 'provider@demo.test');
    const admin = await as(browser, 'admin@demo.test');

    // 1. The strategist requests a strategy.
    await strategist.goto('/strategies/list');
    await expect(strategist.getByRole('heading', { level: 1, name: 'Lending strategies' })).toBeVisible();
    await strategist.getByLabel('Name').fill(name);
    await strategist.getByLabel('What should it do?').fill('Offers to customers the demo policy approves');
    await strategist.getByRole('button', { name: 'Request', exact: true }).click();
    await expect(strategist).toHaveURL(/\/strategies\/[0-9a-f-]{36}\?done=request/);
    const strategyUrl = new URL(strategist.url()).pathname;
    const strategyId = strategyUrl.split('/').pop()!;
    await expect(strategist.getByTestId('draft-stage')).toContainText('Requested');
    // Nothing to implement yet: the button is disabled with the reason shown.
    await expect(action(strategist, 'Implement')).toBeDisabled();
    await expect(strategist.locator('#why-implement')).toHaveText('The draft has no terms yet.');

    // 2. The provider encodes the draft with the demo decision model [E: the demo seed's model].
    await provider.goto(strategyUrl);
    const form = provider.getByTestId('terms-form');
    await expect(form).toBeVisible();
    const modelOption = form.locator('#terms-model option', { hasText: 'Demo credit policy' }).first();
    expect(await modelOption.count(), 'the demo seed provides "Demo credit policy" (helper E)').toBe(1);
    await form.locator('#terms-model').selectOption({ value: (await modelOption.getAttribute('value'))! });
    await form.locator('#terms-product').selectOption({ index: 1 });
    await form.getByLabel('Offer validity (days)').fill('30');
    await form.getByLabel('Risk class 1').fill('*');
    await form.getByLabel('Maximum amount 1').fill('5000');
    await form.getByLabel('Repayments 1').fill('12');
    await form.getByRole('button', { name: 'Save terms' }).click();
    await expect(provider).toHaveURL(/done=encode/);
    await expect(provider.getByTestId('draft-stage')).toContainText('Encoded');

    // 3. A simulation: progress, then the figures beside the live baseline and the changed customers.
    await simulate(provider);
    const figures = provider.getByTestId('simulation-figures');
    await expect(figures).toContainText('This draft');
    await expect(figures).toContainText('Live today');
    await expect(provider.getByText(/Expected loss = offered amount/)).toBeVisible();
    const draftOffers = Number((await provider.getByTestId('total-offers-draft').innerText()).replace(/\D/g, ''));
    expect(draftOffers, 'the demo policy approves some demo customers').toBeGreaterThan(0);
    await expect(provider.getByTestId('changed-customers').locator('tbody tr').first()).toBeVisible();
    await expect(provider.getByTestId('changed-customers').locator('a').first()).toHaveAttribute(
      'href',
      /\/loans\/customer\/profile\/[0-9a-f-]{36}$/,
    );

    // 4. One person validating both sides is refused (the administrator holds both permissions).
    await admin.goto(strategyUrl);
    await action(admin, 'Validate as provider').click();
    await expect(admin).toHaveURL(/done=validate_provider/);
    await expect(action(admin, 'Validate as client')).toBeDisabled();
    await expect(admin.locator('#why-validate_client')).toContainText('two different people');
    const twice = await admin.request.post(`/v1/strategies/${strategyId}/client-validation`);
    expect(twice.status()).toBe(409);
    expect(JSON.stringify(await twice.json())).toMatch(/two different people/);

    // A new simulation of the same terms clears the signatures; the provider and the strategist sign.
    await provider.goto(strategyUrl);
    await simulate(provider);
    await action(provider, 'Validate as provider').click();
    await expect(provider).toHaveURL(/done=validate_provider/);
    await expect(provider.getByTestId('signatures')).toContainText('Priya Provider');

    await strategist.goto(strategyUrl);
    await action(strategist, 'Validate as client').click();
    await expect(strategist).toHaveURL(/done=validate_client/);
    await expect(strategist.getByTestId('draft-stage')).toContainText('Validated');

    // 5. Implemented: live.
    await action(strategist, 'Implement').click();
    await expect(strategist).toHaveURL(/done=implement/);
    await expect(strategist.getByTestId('strategy-status')).toHaveText('Live');
    await expect(strategist.getByTestId('history')).toContainText('Implement');

    // 6. [E] Generate offers now: offers for eligible customers, each with its "why".
    await strategist.getByTestId('generate-offers').click();
    await expect(strategist.getByTestId('generate-result')).toContainText(/Offers created: [1-9]/, { timeout: 60_000 });
    const offers = await admin.request.get('/v1/offers?limit=500');
    const mine = ((await offers.json()).items as { id: string; customerId: string; strategyId?: string }[]).filter(
      (o) => o.strategyId === strategyId,
    );
    expect(mine.length).toBeGreaterThan(0);
    await admin.goto(`/loans/customer/profile/${mine[0].customerId}/offers/${mine[0].id}`);
    await expect(admin.locator('.decision-why')).toBeVisible();
    await expect(admin.locator('.decision-why')).toContainText('Demo credit policy');

    // 7. Deactivated: no new offers.
    await action(strategist, 'Deactivate').click();
    await expect(strategist).toHaveURL(/done=deactivate/);
    await expect(strategist.getByTestId('strategy-status')).toHaveText('Inactive');
    await expect(strategist.getByTestId('generate-offers')).toHaveCount(0);
    const again = await strategist.request.post(`/v1/strategies/${strategyId}/originations`, { data: {} });
    if (again.ok()) expect((await again.json()).created).toBe(0);
    else expect([409, 422]).toContain(again.status());
  });
});
