import { DEMO_PASSWORD, expect, signInThroughForm, test } from './support/fixtures.ts';
import { latestMailTo } from './support/mail.ts';
import { personalPasswords, STRONG_PASSWORDS, WEAK_PASSWORDS } from './support/payloads-passwords.ts';

// Weak passwords: every weak value is refused by the real endpoints —
// password change and reset completion — with a message that says why and how, in the user's
// language; a strong one is then accepted. Accounts of the security tests' own lender (E2E_PLANS_TENANT).
const LENDER = { tenantName: 'Plans Test Lender', tenantSlug: 'plans' };
const EN = { email: 'passwords@plans.test', displayName: 'Petra Passwords', ...LENDER };
const FR = { email: 'mots-de-passe@plans.test', displayName: 'Marcel Motdepasse', ...LENDER };
const weakFor = (account: typeof EN) => [...Object.values(WEAK_PASSWORDS).flat(), ...personalPasswords(account)];

test.use({ extraHTTPHeaders: { 'x-forwarded-for': '198.51.100.208' } });

test('[SECURITY]: password change refuses every weak password, saying why in English, then takes a strong one', async ({
  page,
  baseURL,
}) => {
  const origin = new URL(baseURL!).origin;
  await signInThroughForm(page, EN.email);
  await expect(page).toHaveURL((u) => u.pathname === '/');
  for (const weak of weakFor(EN)) {
    const response = await page.request.post('/v1/auth/password', {
      headers: { origin },
      data: { current_password: DEMO_PASSWORD, new_password: weak },
    });
    expect(response.status(), weak).toBe(400);
    const { error } = await response.json();
    expect(error.field, weak).toBe('new_password');
    expect(['weak', 'common', 'personal'], weak).toContain(error.reason);
    expect(error.message, weak).toMatch(/password/i);
    if (error.reason !== 'personal') expect(error.message, weak).toMatch(/Use three or four uncommon words/);
  }
  const strong = STRONG_PASSWORDS[0];
  expect(
    (
      await page.request.post('/v1/auth/password', {
        headers: { origin },
        data: { current_password: DEMO_PASSWORD, new_password: strong },
      })
    ).status(),
  ).toBe(204);
});

test('[SECURITY]: reset completion refuses every weak password, in French for a French user, and the link survives until a strong one', async ({
  page,
  baseURL,
}) => {
  const origin = new URL(baseURL!).origin;
  const since = Date.now() - 1000;
  expect(
    (await page.request.post('/v1/auth/password-reset', { headers: { origin }, data: { email: FR.email } })).status(),
  ).toBe(202);
  const mail = await latestMailTo(FR.email, since);
  const link = new URL(mail.match(/https?:\/\/\S+\/user\/reset-password\?\S+/)![0]);
  const tenantId = link.searchParams.get('tenant')!;
  const token = link.searchParams.get('token')!;
  for (const weak of weakFor(FR)) {
    const response = await page.request.post('/v1/auth/password-reset/complete', {
      headers: { origin, 'accept-language': 'fr-FR' },
      data: { tenant_id: tenantId, token, password: weak },
    });
    expect(response.status(), weak).toBe(400);
    const { error } = await response.json();
    expect(['weak', 'common', 'personal'], weak).toContain(error.reason);
  }
  // The same refusal through the page, in French (the reset page follows ?lang=).
  await page.goto(`${link.pathname}${link.search}&lang=fr`);
  await page.locator('#new_password').fill('123456789012');
  await page.locator('#confirm_password').fill('123456789012');
  await page.locator('form button[type=submit]').click();
  await expect(page.getByRole('alert')).toContainText('Ce mot de passe');
  await expect(page.getByRole('alert')).toContainText('Utilisez trois ou quatre mots peu courants');

  const strong = 'tapioca lighthouse wobble';
  expect(
    (
      await page.request.post('/v1/auth/password-reset/complete', {
        headers: { origin },
        data: { tenant_id: tenantId, token, password: strong },
      })
    ).status(),
  ).toBe(204);
  await signInThroughForm(page, FR.email, strong);
  await expect(page).toHaveURL((u) => u.pathname === '/');
});
