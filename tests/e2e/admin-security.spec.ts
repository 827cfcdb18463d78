import type { APIRequestContext, Page } from '@playwright/test';
import { appOrigin, expect, signIn, test } from './support/fixtures.ts';

// Issue 11, security administration: the IP restriction pages and the password policy page, in
// English and French, as admin@demo.test. The rules added here cover the loopback addresses the
// browser uses, and are removed at the end (other specs send X-Forwarded-For addresses that the
// rules would refuse); the demo password policy and the admin's language are restored.

const DEFAULT_POLICY = {
  minLength: 12,
  historyCount: 5,
  expiryDays: 0,
  lockoutThreshold: 10,
  lockoutMinutes: 15,
  refuseBreached: true,
  mfaRoleIds: [],
};
const json = () => ({ origin: appOrigin(), 'content-type': 'application/json' });

type Rule = { id: string; network: string; label: string };

async function rules(request: APIRequestContext): Promise<Rule[]> {
  const response = await request.get('/v1/ip-restrictions');
  expect(response.status()).toBe(200);
  return (await response.json()).items as Rule[];
}

/** Deletes every rule, those that do not cover our own address first (so no deletion locks us out). */
async function removeAllRules(request: APIRequestContext, ownFamilyIsV6: boolean): Promise<void> {
  const all = await rules(request);
  const own = (r: Rule) => r.network.includes(':') === ownFamilyIsV6;
  for (const rule of [...all.filter((r) => !own(r)), ...all.filter(own)]) {
    await request.delete(`/v1/ip-restrictions/${rule.id}`, { headers: { origin: appOrigin() } });
  }
}

async function setLanguage(page: Page, language: 'en-US' | 'fr-FR'): Promise<void> {
  const response = await page.request.post('/admin/user/profile', {
    form: { display_name: 'Alice Admin', language },
    headers: { origin: appOrigin() },
    maxRedirects: 0,
  });
  expect(response.status()).toBe(303);
}

async function addRule(page: Page, network: string, label: string): Promise<void> {
  await page.goto('/admin/user/ip-restriction/add');
  await page.getByLabel('Network').fill(network);
  await page.getByLabel('Label', { exact: true }).fill(label);
  await page.getByRole('button', { name: 'Add a rule' }).click();
}

test.describe('[ADMIN]: security administration', () => {
  test('IP rules: add, edit, refuse a self-lockout, enforce on pages, /v1 and downloads, delete; in English and French', async ({
    page,
  }) => {
    test.setTimeout(120_000);
    await signIn(page, 'admin@demo.test');
    const list = await page.goto('/admin/user/ip-restriction');
    expect(list?.status()).toBe(200);
    await expect(page.getByRole('heading', { level: 1, name: 'IP restriction' })).toBeVisible();
    const addressText = await page.getByText(/^Your address, as this application sees it: /).innerText();
    const own = addressText.replace(/^.*: /, '').trim();
    expect(['127.0.0.1', '::1']).toContain(own);
    const ownIsV6 = own.includes(':');
    expect(await rules(page.request)).toEqual([]);
    await expect(page.getByText('No rule yet: every address is accepted.')).toBeVisible();

    try {
      // The only rule would leave our own address outside: refused, naming the address, nothing saved.
      await addRule(page, '203.0.113.0/24', 'Elsewhere');
      await expect(page.locator('#ip-network-error')).toHaveText(
        `Your address ${own} is not inside the networks that would apply to you: this change would sign you out. Add a network that contains it first.`,
      );
      await expect(page.getByLabel('Network')).toHaveAttribute('aria-invalid', 'true');
      expect(await rules(page.request)).toEqual([]);

      // A bad network is refused next to its field.
      await addRule(page, '10.0.0.300', '');
      await expect(page.locator('#ip-network-error')).toHaveText(
        'Network must be an IP address or a network such as 203.0.113.0/24.',
      );

      // Our own loopback family first, then the other: the browser may come from 127.0.0.1 or ::1.
      const [first, second] = ownIsV6
        ? [
            ['::1', 'E2E loopback v6'],
            ['127.0.0.1/8', 'E2E loopback v4'],
          ]
        : [
            ['127.0.0.1/8', 'E2E loopback v4'],
            ['::1', 'E2E loopback v6'],
          ];
      await addRule(page, first[0], first[1]);
      await expect(page).toHaveURL(/\/admin\/user\/ip-restriction\?done=added$/);
      await expect(page.locator('p.alert--info')).toHaveText('The rule was added.');
      await addRule(page, second[0], second[1]);
      await expect(page.getByRole('cell', { name: '127.0.0.0/8', exact: true })).toBeVisible(); // host bits normalised
      await expect(page.getByRole('cell', { name: '::1/128', exact: true })).toBeVisible();

      // Edit: the label and whom it applies to.
      const v4 = (await rules(page.request)).find((r) => r.network === '127.0.0.0/8')!;
      const edit = await page.goto(`/admin/user/ip-restriction/edit/${v4.id}`);
      expect(edit?.status()).toBe(200);
      await expect(page.getByRole('heading', { level: 1, name: 'Edit an IP rule' })).toBeVisible();
      await expect(page.getByLabel('Network')).toHaveValue('127.0.0.0/8');
      await page.getByLabel('Label', { exact: true }).fill('E2E loopback (edited)');
      await page.getByRole('button', { name: 'Save' }).click();
      await expect(page.locator('p.alert--info')).toHaveText('The rule was saved.');
      await expect(page.getByRole('cell', { name: 'E2E loopback (edited)', exact: true })).toBeVisible();
      // Moving our own family's rule away would lock us out: refused on edit too.
      const ownRule = (await rules(page.request)).find((r) => r.network.includes(':') === ownIsV6)!;
      await page.goto(`/admin/user/ip-restriction/edit/${ownRule.id}`);
      await page.getByLabel('Network').fill(ownIsV6 ? '2001:db8::/32' : '198.51.100.0/24');
      await page.getByRole('button', { name: 'Save' }).click();
      await expect(page.locator('#ip-network-error')).toContainText(`Your address ${own} is not inside`);
      const unknown = await page.goto('/admin/user/ip-restriction/edit/00000000-0000-4000-8000-000000000000');
      expect(unknown?.status()).toBe(404);
      // The API refuses a duplicate on its field.
      const duplicate = await page.request.post('/v1/ip-restrictions', {
        headers: json(),
        data: { network: '127.0.0.0/8', label: 'again' },
      });
      expect(duplicate.status()).toBe(409);
      expect((await duplicate.json()).error.field).toBe('network');

      // Enforcement, with the client address given by the trusted proxy (TRUST_PROXY=1).
      const download = '/v1/downloads/00000000-0000-4000-8000-000000000000/file';
      for (const [address, isAllowed] of [
        ['127.0.0.1', true],
        ['::ffff:127.0.0.1', true],
        ['::1', true],
        ['203.0.113.7', false],
        ['2001:db8::7', false],
        ['::ffff:203.0.113.7', false],
      ] as const) {
        const headers = { 'x-forwarded-for': address };
        const pageResponse = await page.request.get('/admin/user/ip-restriction', { headers, maxRedirects: 0 });
        const apiResponse = await page.request.get('/v1/loans', { headers });
        const fileResponse = await page.request.get(download, { headers });
        if (isAllowed) {
          expect(pageResponse.status(), address).toBe(200);
          expect(apiResponse.status(), address).toBe(200);
          expect(fileResponse.status(), address).toBe(404); // past the rule: no such file
        } else {
          expect(pageResponse.status(), address).toBe(403);
          expect(apiResponse.status(), address).toBe(403);
          expect((await apiResponse.json()).error.code, address).toBe('FORBIDDEN');
          expect(fileResponse.status(), address).toBe(403);
        }
      }

      // French: the three pages and the policy page.
      await setLanguage(page, 'fr-FR');
      await page.goto('/admin/user/ip-restriction');
      await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
      await expect(page.getByRole('heading', { level: 1, name: 'Restriction IP' })).toBeVisible();
      await expect(page.getByRole('cell', { name: 'E2E loopback (edited)', exact: true })).toBeVisible();
      await expect(page.getByText(`Votre adresse, telle que l’application la voit : ${own}`)).toBeVisible();
      expect((await page.goto('/admin/user/ip-restriction/add'))?.status()).toBe(200);
      await expect(page.getByRole('heading', { level: 1, name: 'Ajouter une règle IP' })).toBeVisible();
      expect((await page.goto(`/admin/user/ip-restriction/edit/${v4.id}`))?.status()).toBe(200);
      await expect(page.getByRole('heading', { level: 1, name: 'Modifier une règle IP' })).toBeVisible();
      await expect(page.getByLabel('Réseau')).toHaveValue('127.0.0.0/8');
      expect((await page.goto('/admin/platform/password-policy'))?.status()).toBe(200);
      await expect(page.getByRole('heading', { level: 1, name: 'Politique de mots de passe' })).toBeVisible();
      await expect(page.getByLabel('Longueur minimale')).toHaveValue('12');
      await setLanguage(page, 'en-US');

      // Delete through the list: the other family's rule first; our own last would be refused while another applies.
      await page.goto('/admin/user/ip-restriction');
      const otherNetwork = ownIsV6 ? '127.0.0.0/8' : '::1/128';
      const ownNetwork = ownIsV6 ? '::1/128' : '127.0.0.0/8';
      await page.getByRole('button', { name: `Delete ${ownNetwork}` }).click();
      await expect(page.locator('p.alert--error')).toContainText(`Your address ${own} is not inside`);
      await page.getByRole('button', { name: `Delete ${otherNetwork}` }).click();
      await expect(page.locator('p.alert--info')).toHaveText('The rule was deleted.');
      await page.getByRole('button', { name: `Delete ${ownNetwork}` }).click();
      await expect(page.getByText('No rule yet: every address is accepted.')).toBeVisible();
      // Open again for everyone.
      expect((await page.request.get('/v1/loans', { headers: { 'x-forwarded-for': '203.0.113.7' } })).status()).toBe(
        200,
      );
    } finally {
      await removeAllRules(page.request, ownIsV6);
      await setLanguage(page, 'en-US');
    }
  });

  test('password policy: edit with field errors, rules shown on the change form in English and French', async ({
    page,
  }) => {
    await signIn(page, 'admin@demo.test');
    try {
      const response = await page.goto('/admin/platform/password-policy');
      expect(response?.status()).toBe(200);
      await expect(page.getByRole('heading', { level: 1, name: 'Password policy' })).toBeVisible();
      await expect(page.getByLabel('Minimum length')).toHaveValue('12');
      await expect(page.getByLabel('Lockout threshold')).toHaveValue('10');
      await expect(page.getByRole('checkbox', { name: /Refuse common and breached passwords/ })).toBeChecked();
      await expect(page.getByRole('group', { name: 'Two-step sign-in required for' })).toContainText('Strategist');

      await page.getByLabel('Minimum length').fill('7');
      await page.getByRole('button', { name: 'Save' }).click();
      await expect(page.locator('#policy-minLength-error')).toHaveText('Minimum length must be at least 8.');
      await expect(page.getByLabel('Minimum length')).toHaveAttribute('aria-invalid', 'true');
      await page.getByLabel('Minimum length').fill('14');
      await page.getByLabel('Password history').fill('3');
      await page.getByLabel('Expiry (days)').fill('90');
      await page.getByRole('button', { name: 'Save' }).click();
      await expect(page.locator('p.alert--info')).toHaveText('The password policy was saved.');
      await expect(page.getByLabel('Minimum length')).toHaveValue('14');
      const api = await page.request.get('/v1/password-policy');
      expect(await api.json()).toMatchObject({ minLength: 14, historyCount: 3, expiryDays: 90, lockoutThreshold: 10 });

      // The change form lists the rules in force.
      await page.goto('/user/reset-password');
      const rulesList = page.locator('#password-policy');
      await expect(rulesList).toContainText('Your new password must:');
      await expect(rulesList).toContainText('be at least 14 characters long');
      await expect(rulesList).toContainText('differ from your previous passwords (the last 3)');
      await expect(rulesList).toContainText('not be a common password or one known from data breaches');
      await expect(rulesList).toContainText('be changed every 90 days');

      await setLanguage(page, 'fr-FR');
      await page.goto('/user/reset-password');
      await expect(page.locator('#password-policy')).toContainText('comporter au moins 14 caractères');
      await expect(page.locator('#password-policy')).toContainText('les 3 derniers');
      await page.goto('/admin/platform/password-policy');
      await expect(page.getByRole('heading', { level: 1, name: 'Politique de mots de passe' })).toBeVisible();
      await page.getByLabel('Longueur minimale').fill('200');
      await page.getByRole('button', { name: 'Enregistrer' }).click();
      await expect(page.locator('#policy-minLength-error')).toHaveText('Longueur minimale doit être au plus 128.');
    } finally {
      const restored = await page.request.put('/v1/password-policy', { headers: json(), data: DEFAULT_POLICY });
      expect(restored.status()).toBe(200);
      await setLanguage(page, 'en-US');
    }
  });
});
