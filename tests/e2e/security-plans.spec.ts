import { expect, signInThroughForm, test } from './support/fixtures.ts';

// Plan limits are enforced on the server. The security tests' lender (E2E_PLANS_TENANT in
// src/lib/seed/demo.ts) is on Starter: 2 API tokens, no decision engine, no single sign-on, and —
// for this test — no exports and no analytics reports.
const ADMIN = 'admin@plans.test';
const ANALYST_FR = 'analyste@plans.test';
const DISABLED_PAGES = [
  '/admin/business/decision-engine',
  '/admin/business/decision-engine/x1',
  '/admin/application/decision-engine',
  '/admin/business/decision-models',
  '/admin/business/decision-models/x1',
  '/analytics/reports',
  '/analytics/reports/add',
  '/analytics/reports/r1',
];

test.use({ extraHTTPHeaders: { 'x-forwarded-for': '198.51.100.209' } });

test('[SECURITY]: a Starter lender creating API tokens in parallel gets exactly its limit (2), the rest refused naming plan and limit', async ({
  page,
  baseURL,
}) => {
  const origin = new URL(baseURL!).origin;
  await signInThroughForm(page, ADMIN);
  await expect(page).toHaveURL((u) => u.pathname === '/');
  const responses = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      page.request.post('/v1/auth/api-tokens', { headers: { origin }, data: { name: `parallel ${i}` } }),
    ),
  );
  const created = responses.filter((r) => r.status() === 201);
  const refused = responses.filter((r) => r.status() !== 201);
  expect(created).toHaveLength(2);
  for (const response of refused) {
    expect(response.status()).toBe(402);
    const { error } = await response.json();
    expect(error).toMatchObject({ code: 'LIMIT_REACHED', feature: 'api_tokens', plan: 'Starter', usage_limit: 2 });
    expect(error.message).toMatch(/Starter plan allows 2 API tokens/);
  }
  // Revoking one frees its place; then the limit holds again. Leave none behind.
  const ids = await Promise.all(created.map(async (r) => ((await r.json()) as { id: string }).id));
  expect((await page.request.delete(`/v1/auth/api-tokens/${ids[0]}`, { headers: { origin } })).status()).toBe(204);
  const third = await page.request.post('/v1/auth/api-tokens', { headers: { origin }, data: { name: 'after revoke' } });
  expect(third.status()).toBe(201);
  expect(
    (await page.request.post('/v1/auth/api-tokens', { headers: { origin }, data: { name: 'one too many' } })).status(),
  ).toBe(402);
  for (const id of [ids[1], ((await third.json()) as { id: string }).id]) {
    expect((await page.request.delete(`/v1/auth/api-tokens/${id}`, { headers: { origin } })).status()).toBe(204);
  }
});

test('[SECURITY]: pages of features the plan lacks answer 403 with "not in your plan"; their API answers 403', async ({
  page,
  baseURL,
}) => {
  const origin = new URL(baseURL!).origin;
  await signInThroughForm(page, ADMIN);
  await expect(page).toHaveURL((u) => u.pathname === '/');
  for (const path of DISABLED_PAGES) {
    const response = await page.goto(path);
    expect(response?.status(), path).toBe(403);
    await expect(page.getByTestId('plan-required'), path).toBeVisible();
    await expect(page.locator('.result-subtitle'), path).toContainText('is not part of your Starter plan');
  }
  // Features in the plan are not refused (the strategies pages are a 404 until they exist, never the plan page).
  const strategies = await page.goto('/strategies/list');
  expect(strategies?.status()).not.toBe(403);
  await expect(page.getByTestId('plan-required')).toHaveCount(0);

  // The API of a disabled feature: exports, also under parallel requests.
  const exports = await Promise.all(
    Array.from({ length: 4 }, () =>
      page.request.post('/v1/exports', { headers: { origin }, data: { list: 'loans', query: '', format: 'csv' } }),
    ),
  );
  for (const response of exports) {
    expect(response.status()).toBe(403);
    const { error } = await response.json();
    expect(error).toMatchObject({ code: 'FORBIDDEN', reason: 'not_in_plan', feature: 'exports', plan: 'Starter' });
    expect(error.message).toMatch(/not part of your Starter plan/);
  }
  // Single sign-on is not in Starter: no button on the lender's login page.
  const context = await page.context().browser()!.newContext({ baseURL });
  const signedOut = await context.newPage();
  await signedOut.goto('/user/login?tenant=plans');
  await expect(signedOut.getByTestId('sso-button')).toHaveCount(0);
  await context.close();
});

test('[SECURITY]: the "not in your plan" page speaks French to a French user', async ({ page }) => {
  await signInThroughForm(page, ANALYST_FR);
  await expect(page).toHaveURL((u) => u.pathname === '/');
  const response = await page.goto('/analytics/reports');
  expect(response?.status()).toBe(403);
  await expect(page.locator('.result-subtitle')).toHaveText(
    '« Rapports d’analyse » ne fait pas partie de votre offre Starter. Demandez à votre administrateur une offre qui l’inclut.',
  );
});
