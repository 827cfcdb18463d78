import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.ts';
import type { Page } from '@playwright/test';
import { appOrigin, expect, signIn, test } from './support/fixtures.ts';

/** Waits until the page's islands are hydrated (the notify editor loads when it scrolls into view). */
async function hydrated(page: Page): Promise<void> {
  await page.waitForFunction(() =>
    [...document.querySelectorAll('astro-island')].every((island) => !island.hasAttribute('ssr')),
  );
}

// Admin › general settings, as admin@demo.test on the shared demo tenant. Everything changed here
// (name, auto-logout timeout, notify form, logo, single sign-on) is put back at the end, because
// other specs rely on the demo tenant's timeout and notify form.

const PAGE = '/admin/platform/general-settings';
const APP = appOrigin();
// A valid 1×1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');

type Settings = {
  name: string;
  config: {
    auto_logout: { timeout: number };
    offer: { requestLoan: boolean };
    notify_customer_modal_config: { form: { ui: { fields: Record<string, { options?: { value: string }[] }> } } };
    login: { password: boolean; sso: { client_secret_set: boolean } | null };
  };
  logo: unknown;
};

test.describe.configure({ mode: 'serial' });

test.describe('[ADMIN]: general settings', () => {
  let idp: TestOidcProvider;
  test.beforeAll(async () => {
    idp = await startOidcProvider({
      clientId: 'lending-settings-e2e',
      clientSecret: 'settings-e2e-secret-0123456789abcdef',
      redirectUris: [`${APP}/v1/auth/oidc/callback`],
    });
    idp.setAccount({ sub: 'settings-admin-1', email: 'admin@demo.test' });
  });
  test.afterAll(() => idp?.close());

  test('the administrator changes the settings section by section, in English and French', async ({
    page,
  }, testInfo) => {
    test.setTimeout(180_000);
    await signIn(page, 'admin@demo.test');
    const original = (await (await page.request.get('/v1/tenant-settings')).json()) as Settings;
    expect(original.config.auto_logout.timeout).toBeGreaterThan(0);
    try {
      // The page, in English, with its sections and the business date.
      const response = await page.goto(PAGE);
      expect(response?.status()).toBe(200);
      await expect(page.getByRole('heading', { level: 1, name: 'General settings' })).toBeVisible();
      for (const heading of ['Lender', 'Languages', 'Automatic sign-out', 'Business date', 'Single sign-on', 'Logo'])
        await expect(page.getByRole('heading', { level: 2, name: heading, exact: true })).toBeVisible();
      await expect(page.getByTestId('business-date')).toHaveText(/^\d{2}\/\d{2}\/\d{4}$/);
      await expect(page.getByLabel('Lender name')).toHaveValue(original.name);
      // Nothing overflows the window at the shell's two reference widths (screenshots for a human look).
      for (const width of [1024, 1366]) {
        await page.setViewportSize({ width, height: 768 });
        await page.getByTestId('notify-editor').scrollIntoViewIfNeeded();
        await hydrated(page);
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
        await page.screenshot({ path: testInfo.outputPath(`general-settings-${width}.png`), fullPage: true });
      }

      // Auto-logout timeout: a wrong value is refused next to the field, nothing else is lost; then saved.
      const timeout = page.getByLabel('Inactivity timeout (seconds)');
      await timeout.fill('5');
      await page.locator('#session').getByRole('button', { name: 'Save timeout' }).click();
      await expect(page.locator('#session [role="alert"]')).toBeVisible();
      await expect(page.getByLabel('Inactivity timeout (seconds)')).toHaveValue('5');
      await page.getByLabel('Inactivity timeout (seconds)').fill('1200');
      await page.locator('#session').getByRole('button', { name: 'Save timeout' }).click();
      await expect(page).toHaveURL(/saved=session/);
      await expect(page.getByLabel('Inactivity timeout (seconds)')).toHaveValue('1200');

      // Tenant name.
      await page.getByLabel('Lender name').fill('Demo Lending (settings test)');
      await page.getByRole('button', { name: 'Save name' }).click();
      await expect(page).toHaveURL(/saved=general/);
      await expect(page.getByLabel('Lender name')).toHaveValue('Demo Lending (settings test)');
      const saved = (await (await page.request.get('/v1/tenant-settings')).json()) as Settings;
      expect(saved.name).toBe('Demo Lending (settings test)');
      expect(saved.config.auto_logout.timeout).toBe(1200);

      // The notify form: add an option to the first field, see it in the preview, save it.
      const editor = page.getByTestId('notify-editor');
      await editor.scrollIntoViewIfNeeded();
      await hydrated(page);
      const first = editor.getByTestId('notify-field-0');
      await first.getByRole('button', { name: 'Add an option' }).click();
      const option = first.getByTestId('notify-option-0-4');
      await expect(page.getByTestId('notify-problems')).toBeVisible();
      await option.getByLabel('Value').fill('Email');
      await option.getByLabel('Label (English)').fill('By e-mail');
      await option.getByLabel('Label (French)').fill('Par courriel');
      await expect(page.getByTestId('notify-problems')).toBeHidden();
      await expect(page.getByTestId('notify-preview').getByLabel('By e-mail')).toBeVisible();
      await editor.getByRole('button', { name: 'Save form' }).click();
      await expect(page.getByTestId('notify-saved')).toBeVisible();
      const config = await (await page.request.get('/v1/tenant-config')).json();
      expect(
        config.notify_customer_modal_config.form.ui.fields.Channel.options.map((o: { value: string }) => o.value),
      ).toContain('Email');
      // Reset to the default form (a plain form post).
      await page.reload();
      await page.getByRole('button', { name: 'Reset to the default form' }).click();
      await expect(page).toHaveURL(/saved=notify/);
      const reset = await (await page.request.get('/v1/tenant-config')).json();
      expect(reset.notify_customer_modal_config.form.ui.fields.Channel.options).toHaveLength(4);

      // Logo: SVG refused; a PNG shows in the header; then removed.
      await page.getByLabel('Image file').setInputFiles({ name: 'logo.svg', mimeType: 'image/svg+xml', buffer: SVG });
      await page.getByRole('button', { name: 'Upload logo' }).click();
      await expect(page.locator('#logo [role="alert"]')).toContainText('SVG');
      await page.getByLabel('Image file').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: PNG });
      await page.getByRole('button', { name: 'Upload logo' }).click();
      await expect(page).toHaveURL(/saved=logo/);
      const headerLogo = page.locator('.shell-brand img.shell-logo');
      await expect(headerLogo).toBeVisible();
      const logoResponse = await page.request.get((await headerLogo.getAttribute('src'))!);
      expect(logoResponse.status()).toBe(200);
      expect(logoResponse.headers()['content-type']).toBe('image/png');
      expect(logoResponse.headers()['x-content-type-options']).toBe('nosniff');
      await page.getByRole('button', { name: 'Remove logo' }).click();
      await expect(page).toHaveURL(/saved=logo/);
      await expect(page.locator('.shell-brand img.shell-logo')).toHaveCount(0);

      // Password sign-in cannot be turned off without single sign-on.
      await page.getByLabel('Allow sign-in with e-mail and password').uncheck();
      await page.locator('#password').getByRole('button', { name: 'Save' }).click();
      await expect(page.locator('#password [role="alert"]')).toContainText('single sign-on');

      // Single sign-on against a real OpenID provider; the secret is write-only.
      await page.getByLabel('Issuer URL').fill(idp.issuer);
      await page.getByLabel('Client ID').fill(idp.clientId);
      await page.getByLabel('Client secret').fill(idp.clientSecret);
      await page.getByLabel('Button label').fill('Sign in with the test IdP');
      await page.getByRole('button', { name: 'Save single sign-on' }).click();
      await expect(page).toHaveURL(/saved=sso/);
      await expect(page.getByTestId('sso-secret-state')).toContainText('A secret is stored');
      await expect(page.getByLabel('Client secret')).toHaveValue('');
      expect(await page.content()).not.toContain(idp.clientSecret);
      const withSso = await (await page.request.get('/v1/tenant-settings')).text();
      expect(withSso).not.toContain(idp.clientSecret);
      expect(JSON.parse(withSso).config.login.sso.client_secret_set).toBe(true);

      // "Test sign-in" opens the provider in a new window and comes back with the outcome.
      const [popup] = await Promise.all([page.waitForEvent('popup'), page.getByTestId('sso-test').click()]);
      await popup.waitForURL(/sso_test=/);
      await expect(popup.getByTestId('sso-test-result')).toContainText('Test sign-in succeeded');
      await expect(popup.getByTestId('sso-test-result')).toContainText('admin@demo.test');
      await popup.close();
      // The test signed nobody else in: the administrator's own session is untouched.
      expect((await (await page.request.get('/v1/users/me')).json()).email).toBe('admin@demo.test');

      // The page in French (the administrator's language switched through the profile form).
      const toFrench = await page.request.post('/admin/user/profile', {
        form: { display_name: 'Alice Admin', language: 'fr-FR' },
        headers: { origin: APP },
        maxRedirects: 0,
      });
      expect(toFrench.status()).toBe(303);
      const fr = await page.goto(PAGE);
      expect(fr?.status()).toBe(200);
      await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
      await expect(page.getByRole('heading', { level: 1, name: 'Paramètres généraux' })).toBeVisible();
      await expect(page.getByRole('heading', { level: 2, name: 'Authentification unique' })).toBeVisible();
      await expect(page.getByLabel('Délai d’inactivité (secondes)')).toHaveValue('1200');
      await expect(page.getByLabel('Nom du prêteur')).toHaveValue('Demo Lending (settings test)');
      await expect(
        page.getByTestId('notify-editor').getByRole('button', { name: 'Enregistrer le formulaire' }),
      ).toBeVisible();
    } finally {
      // Put the demo tenant back as it was, and the administrator's language.
      await page.request.post('/admin/user/profile', {
        form: { display_name: 'Alice Admin', language: 'en-US' },
        headers: { origin: APP },
        maxRedirects: 0,
      });
      await page.request.delete('/v1/tenant-settings/logo', { headers: { origin: APP } });
      const restored = await page.request.patch('/v1/tenant-settings', {
        headers: { origin: APP },
        data: {
          name: original.name,
          config: {
            auto_logout: original.config.auto_logout,
            offer: original.config.offer,
            notify_customer_modal_config: original.config.notify_customer_modal_config,
            login: { password: true, sso: null },
          },
        },
      });
      expect(restored.status(), await restored.text()).toBe(200);
    }
  });

  test('a user without the settings permission is refused', async ({ page }) => {
    await signIn(page, 'agent.fr@demo.test');
    const response = await page.goto(PAGE);
    expect(response?.status()).toBe(403);
    expect((await page.request.get('/v1/tenant-settings')).status()).toBe(403);
    const patch = await page.request.patch('/v1/tenant-settings', { headers: { origin: APP }, data: { name: 'x' } });
    expect(patch.status()).toBe(403);
  });
});
