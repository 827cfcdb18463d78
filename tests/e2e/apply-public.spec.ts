import crypto from 'node:crypto';
import type { Browser, BrowserContextOptions, Page } from '@playwright/test';
import { apiSession, expect, test } from './support/fixtures.ts';

/**
 * The public application page /application/:id (issue 13) as an applicant on a phone: without
 * JavaScript (plain form posts, one step per page), in English and French, and with JavaScript
 * (inline validation before posting, proof of work solved by the page's script). Each test comes
 * from its own address (X-Forwarded-For; the e2e server trusts one proxy) so the per-address limits
 * of the page never reach another test.
 */
const FORM = '/application/demo-personal-loan';
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
const PHONE = { width: 360, height: 640 };

function address(): string {
  const bytes = crypto.randomBytes(3);
  return `10.${bytes[0]}.${bytes[1]}.${bytes[2]}`;
}

async function applicant(browser: Browser, options: BrowserContextOptions = {}): Promise<Page> {
  const context = await browser.newContext({
    viewport: PHONE,
    javaScriptEnabled: false,
    extraHTTPHeaders: { 'x-forwarded-for': address() },
    ...options,
  });
  return context.newPage();
}

type Person = { firstName: string; lastName: string; nationalId: string };

/** Fills the demo form's four steps in English and sends it; returns the reference shown. */
async function apply(page: Page, person: Person): Promise<string> {
  await page.goto(FORM);
  await expect(page.getByRole('heading', { level: 1, name: 'Your loan' })).toBeVisible();
  await expect(page.getByText('Step 1 of 5')).toBeVisible();
  await page.getByLabel('Amount').fill('1500');
  await page.getByLabel('Number of monthly repayments').fill('12');
  await page.getByRole('radio', { name: 'Car' }).check();
  await page.getByRole('button', { name: 'Next' }).click();

  await expect(page.getByRole('heading', { level: 1, name: 'About you' })).toBeVisible();
  await page.getByLabel('First name').fill(person.firstName);
  await page.getByLabel('Last name').fill(person.lastName);
  await page.getByLabel('National ID number').fill(person.nationalId);
  await page.getByLabel('Date of birth').fill('1990-04-02');
  await page.getByLabel('Mobile phone').fill('+33 6 12 34 56 78');
  await page.getByLabel('E-mail').fill('applicant@example.test');
  await page.getByRole('button', { name: 'Next' }).click();

  await expect(page.getByRole('heading', { level: 1, name: 'Documents' })).toBeVisible();
  await page
    .getByLabel('Identity document or payslip')
    .setInputFiles({ name: 'payslip.pdf', mimeType: 'application/pdf', buffer: PDF });
  await page.getByRole('button', { name: 'Next' }).click();

  await expect(page.getByRole('heading', { level: 1, name: 'Consent' })).toBeVisible();
  await page.getByLabel('I agree').check();
  await page.getByRole('button', { name: 'Next' }).click();

  await expect(page.getByRole('heading', { level: 1, name: 'Check your answers' })).toBeVisible();
  await expect(page.getByText('payslip.pdf')).toBeVisible();
  await expect(page.getByText(person.nationalId)).toBeVisible();
  await page.getByRole('button', { name: 'Send my application' }).click();

  await expect(page.getByRole('heading', { level: 1, name: 'We received your application' })).toBeVisible();
  const reference = (await page.locator('[data-reference]').textContent())?.trim() ?? '';
  expect(reference).toMatch(/^APP-[A-Z2-9]{6}$/);
  return reference;
}

test.describe('public application page without JavaScript, on a phone', () => {
  test('completes the demo form with a document; a second application with the same national id reuses the customer', async ({
    browser,
    baseURL,
  }) => {
    const nationalId = `E2E-${crypto.randomBytes(4).toString('hex').toUpperCase()}`;
    const first = await applicant(browser);
    const one = await apply(first, { firstName: 'Camille', lastName: 'Durand', nationalId });
    // No horizontal scrolling on a 360 px screen.
    expect(await first.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);

    const second = await applicant(browser);
    const two = await apply(second, { firstName: 'Camille', lastName: 'Durand', nationalId });
    expect(two).not.toBe(one);

    const api = await apiSession(browser, 'admin@demo.test', baseURL!);
    const found = await api.get(`/v1/customers?search=${encodeURIComponent(nationalId)}`);
    expect(found.status()).toBe(200);
    const { items } = (await found.json()) as { items: { id: string; nationalId: string | null }[] };
    expect(items.filter((c) => c.nationalId === nationalId)).toHaveLength(1);
  });

  test('Back keeps the answers; a missing answer is an error linked to its field, with a summary', async ({
    browser,
  }) => {
    const page = await applicant(browser);
    await page.goto(FORM);
    await page.getByLabel('Amount').fill('1500');
    await page.getByLabel('Number of monthly repayments').fill('12');
    await page.getByRole('radio', { name: 'Other' }).check();
    // Without JavaScript the conditional question shows with when it applies; left empty it is refused.
    await expect(page.getByText('Answer only if “Purpose of the loan” is: Other.')).toBeVisible();
    await page.getByRole('button', { name: 'Next' }).click();
    const summary = page.getByRole('alert').filter({ hasText: 'There is a problem' });
    await expect(summary).toBeVisible();
    await expect(summary.getByRole('link', { name: /Describe the purpose/ })).toHaveAttribute(
      'href',
      '#f-purposeOther',
    );
    await expect(page.getByLabel(/Describe the purpose/)).toHaveAttribute('aria-invalid', 'true');
    await page.getByLabel(/Describe the purpose/).fill('A wedding');
    await page.getByRole('button', { name: 'Next' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'About you' })).toBeVisible();
    await page.getByRole('button', { name: 'Back' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Your loan' })).toBeVisible();
    await expect(page.getByLabel('Amount')).toHaveValue('1500');
    await expect(page.getByLabel(/Describe the purpose/)).toHaveValue('A wedding');
  });

  test('an unknown form answers 404 and names no lender', async ({ browser }) => {
    const page = await applicant(browser);
    const response = await page.goto('/application/no-such-form');
    expect(response?.status()).toBe(404);
    await expect(page.getByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible();
    const html = await page.content();
    expect(html).not.toContain('Demo Lending');
    expect(html).not.toContain('demo-personal-loan');
  });

  test('French from the browser’s language, and the switch keeps the chosen language across steps', async ({
    browser,
  }) => {
    const page = await applicant(browser, { locale: 'fr-FR' });
    await page.goto(FORM);
    await expect(page.getByRole('heading', { level: 1, name: 'Votre prêt' })).toBeVisible();
    await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
    await page.getByLabel('Montant').fill('2000');
    await page.getByLabel('Nombre de mensualités').fill('24');
    await page.getByRole('radio', { name: 'Logement' }).check();
    await page.getByRole('button', { name: 'Suivant' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Vous concernant' })).toBeVisible();
    await page.getByRole('link', { name: 'English' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'About you' })).toBeVisible();
    // The draft travels in a cookie, never in the address.
    expect(new URL(page.url()).searchParams.has('d')).toBe(false);
    await page.getByRole('button', { name: 'Back' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Your loan' })).toBeVisible();
    await expect(page.getByLabel('Amount')).toHaveValue('2000');
    await page.getByRole('link', { name: 'Français' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Votre prêt' })).toBeVisible();
  });
});

test.describe('public application page: oversize files and caching', () => {
  test('a file above its field’s limit is an error on the same step, the draft and answers kept; answers are never cached', async ({
    browser,
  }) => {
    const page = await applicant(browser);
    const first = await page.goto(FORM);
    expect(first?.headers()['cache-control']).toBe('no-store, private');
    await page.getByLabel('Amount').fill('1500');
    await page.getByLabel('Number of monthly repayments').fill('12');
    await page.getByRole('radio', { name: 'Car' }).check();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel('First name').fill('Oscar');
    await page.getByLabel('Last name').fill('Size');
    await page.getByLabel('National ID number').fill(`E2E-BIG-${crypto.randomBytes(3).toString('hex')}`);
    await page.getByLabel('Date of birth').fill('1990-04-02');
    await page.getByLabel('Mobile phone').fill('+33 6 12 34 56 70');
    await page.getByRole('button', { name: 'Next' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Documents' })).toBeVisible();
    // 7 MB: above the field's 5 MB, within the page's 10 MB cap.
    await page.getByLabel('Identity document or payslip').setInputFiles({
      name: 'big.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.concat([PDF, Buffer.alloc(7 * 1024 * 1024)]),
    });
    const [posted] = await Promise.all([
      page.waitForResponse((response) => response.request().method() === 'POST'),
      page.getByRole('button', { name: 'Next' }).click(),
    ]);
    expect(posted.status()).toBe(422);
    expect(posted.headers()['cache-control']).toBe('no-store, private');
    await expect(page.getByRole('heading', { level: 1, name: 'Documents' })).toBeVisible();
    await expect(page.getByText(/5 MB/).first()).toBeVisible();
    await page.getByRole('button', { name: 'Back' }).click();
    await expect(page.getByLabel('First name')).toHaveValue('Oscar');
    expect(new URL(page.url()).searchParams.has('d')).toBe(false);
  });

  test('with JavaScript a file above the limit is said before posting', async ({ browser }) => {
    const page = await applicant(browser, { javaScriptEnabled: true });
    await page.goto(FORM);
    await page.getByLabel('Amount').fill('1500');
    await page.getByLabel('Number of monthly repayments').fill('12');
    await page.getByRole('radio', { name: 'Car' }).check();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel('First name').fill('Ines');
    await page.getByLabel('Last name').fill('Size');
    await page.getByLabel('National ID number').fill(`E2E-BIGJS-${crypto.randomBytes(3).toString('hex')}`);
    await page.getByLabel('Date of birth').fill('1990-04-02');
    await page.getByLabel('Mobile phone').fill('+33 6 12 34 56 71');
    await page.getByRole('button', { name: 'Next' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Documents' })).toBeVisible();
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST') posts.push(request.url());
    });
    await page.getByLabel('Identity document or payslip').setInputFiles({
      name: 'big.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.concat([PDF, Buffer.alloc(6 * 1024 * 1024)]),
    });
    await page.getByRole('button', { name: 'Next' }).click();
    await expect(page.getByRole('alert').filter({ hasText: '5 MB' })).toBeVisible();
    await expect(page.getByLabel('Identity document or payslip')).toHaveAttribute('aria-invalid', 'true');
    expect(posts).toEqual([]);
  });
});

test.describe('public application page with JavaScript', () => {
  test('inline validation shows the error before posting; the page solves the proof of work and sends', async ({
    browser,
  }) => {
    const page = await applicant(browser, { javaScriptEnabled: true });
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST') posts.push(request.url());
    });
    await page.goto(FORM);
    // The conditional question hides until its condition holds.
    await expect(page.getByLabel(/Describe the purpose/)).toBeHidden();
    await page.getByRole('radio', { name: 'Other' }).check();
    await expect(page.getByLabel(/Describe the purpose/)).toBeVisible();
    await page.getByRole('radio', { name: 'Car' }).check();
    await page.getByRole('button', { name: 'Next' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'There is a problem' })).toBeVisible();
    await expect(page.getByLabel('Amount')).toHaveAttribute('aria-invalid', 'true');
    expect(posts).toEqual([]);
    const reference = await apply(page, {
      firstName: 'Jules',
      lastName: 'Martin',
      nationalId: `E2E-JS-${crypto.randomBytes(4).toString('hex').toUpperCase()}`,
    });
    expect(reference).toMatch(/^APP-/);
    // The final post carried a solved challenge.
    expect(posts.length).toBeGreaterThanOrEqual(5);
  });
});
