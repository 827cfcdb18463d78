import crypto from 'node:crypto';
import { request as playwrightRequest, type APIRequestContext } from '@playwright/test';
import { apiSession, expect, islandsHydrated, signIn, test } from './support/fixtures.ts';
import { latestMailTo } from './support/mail.ts';
import { E2E_INBOUND_WEBHOOK_SECRET } from '../../playwright.config.ts';

// Issue 14, conversations: an officer starts an e-mail conversation with a customer of their branch,
// the e-mail reaches the test SMTP server with the thread's reply address, the customer's reply comes
// back through the signed inbound webhook and shows in the open thread without a reload; a colleague
// of the branch sees the unread count in the navigation (in French, at 1024 px); an opted-out
// customer's marketing message is refused with the reason next to the purpose. No business date
// is assumed.

test.describe.configure({ mode: 'serial' });

const stamp = `${Date.now().toString(36)}${crypto.randomBytes(2).toString('hex')}`;
const email = `convo-${stamp}@example.test`;
let officer: APIRequestContext;
let customerId = '';
let optedOutId = '';

function signed(body: string, id = `msg_${crypto.randomUUID()}`, timestamp = Math.floor(Date.now() / 1000)) {
  const key = Buffer.from(E2E_INBOUND_WEBHOOK_SECRET.slice('whsec_'.length), 'base64');
  const signature = crypto.createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': `v1,${signature}`,
  };
}

test.beforeAll(async ({ browser, baseURL }) => {
  officer = await apiSession(browser, 'officer@demo.test', baseURL!);
  const created = await officer.post('/v1/customers', {
    data: { firstName: 'Camille', lastName: `Convo ${stamp}`, email, phone: '+33 6 00 00 00 01' },
  });
  expect(created.status(), await created.text()).toBe(201);
  customerId = (await created.json()).id;
  const other = await officer.post('/v1/customers', {
    data: { firstName: 'Oscar', lastName: `Optout ${stamp}`, email: `optout-${stamp}@example.test` },
  });
  expect(other.status()).toBe(201);
  optedOutId = (await other.json()).id;
  const out = await officer.post(`/v1/customers/${optedOutId}/opt-out`, { data: { reason: 'Asked by phone' } });
  expect(out.status(), await out.text()).toBe(200);
});

test('an e-mail to the customer, its reply through the signed webhook, live in the open thread', async ({ page }) => {
  await signIn(page, 'officer@demo.test');
  await page.goto(`/loans/conversations/new?customer=${customerId}`);
  await expect(page.getByText(`Camille Convo ${stamp}`)).toBeVisible();
  await page.getByLabel('Channel').selectOption('email');
  await page.getByLabel('Purpose').selectOption('service');
  await page.getByLabel('Subject').fill(`Documents ${stamp}`);
  await page.getByLabel('Message').fill(`Hello Camille, please send your payslip (${stamp}).`);
  const since = Date.now() - 1000;
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page).toHaveURL(/\/loans\/conversations\/[0-9a-f-]{36}$/);
  const conversationId = page.url().split('/').pop()!;
  await islandsHydrated(page);
  await expect(page.getByTestId('message-outbound')).toContainText(`please send your payslip (${stamp})`);
  await expect(page.getByTestId('message-outbound')).toContainText('Service');

  // The e-mail as the test SMTP server received it, with the thread's reply address.
  const mail = await latestMailTo(email, since);
  expect(mail).toContain(`Subject: Documents ${stamp}`);
  expect(mail).toContain(`please send your payslip (${stamp})`);
  const token = /Reply-To: reply\+([a-z0-9]+)@/i.exec(mail)?.[1];
  expect(token).toBeTruthy();
  // The thread shows the message sent once the job has run (live, no reload).
  await expect(page.getByTestId('message-outbound').getByTestId('message-status')).toHaveText('Sent', {
    timeout: 15_000,
  });

  // The customer's reply, posted by the provider, signed.
  const provider = await playwrightRequest.newContext({ baseURL: page.url().replace(/\/loans\/.*$/, '') });
  const body = JSON.stringify({
    type: 'email',
    from: email,
    to: `reply+${token}@localhost`,
    subject: `Re: Documents ${stamp}`,
    text: `Here it is (${stamp}).`,
    messageId: `<reply-${stamp}@example.test>`,
  });
  const unsigned = await provider.post('/v1/conversations/inbound', {
    data: body,
    headers: { 'content-type': 'application/json' },
  });
  expect(unsigned.status()).toBe(401);
  const headers = signed(body);
  const posted = await provider.post('/v1/conversations/inbound', { data: body, headers });
  expect(posted.status(), await posted.text()).toBe(200);
  await expect(page.getByTestId('message-inbound')).toContainText(`Here it is (${stamp}).`, { timeout: 10_000 });
  // A replay of the same delivery stores nothing more.
  const replay = await provider.post('/v1/conversations/inbound', { data: body, headers });
  expect(replay.status()).toBe(200);
  const messages = await officer.get(`/v1/conversations/${conversationId}/messages`);
  const items = (await messages.json()).items as { kind: string }[];
  expect(items.filter((m) => m.kind === 'inbound')).toHaveLength(1);
  await provider.dispose();
});

test('a colleague of the branch sees the unread count in the navigation, in French at 1024 px', async ({
  browser,
  baseURL,
}) => {
  const context = await browser.newContext({ baseURL, viewport: { width: 1024, height: 768 } });
  const page = await context.newPage();
  await signIn(page, 'agent.fr@demo.test');
  // "Mes conversations" (root area): the unread thread of the branch is there.
  await page.goto('/conversations');
  await expect(page.getByRole('heading', { name: 'Mes conversations' })).toBeVisible();
  await expect(page.getByRole('row').filter({ hasText: `Camille Convo ${stamp}` })).toBeVisible();
  await page.goto('/loans/conversations?unread=1');
  await expect(page.getByRole('link', { name: 'Nouvelle conversation' })).toBeVisible();
  const count = page.getByTestId('nav-count-conversations');
  await expect(count).toBeVisible();
  expect(Number((await count.textContent())?.replace('+', ''))).toBeGreaterThanOrEqual(1);
  const row = page.getByRole('row').filter({ hasText: `Camille Convo ${stamp}` });
  await expect(row).toBeVisible();
  await expect(row).toContainText('E-mail');
  // No horizontal scroll of the page at 1024 px.
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
  // Reading the thread clears it from the unread list.
  await row.getByRole('link').click();
  await islandsHydrated(page);
  await expect(page.getByTestId('message-inbound')).toBeVisible();
  await expect(page.getByText('Note interne (équipe seulement)').or(page.getByText('Répondre').first())).toBeVisible();
  await expect
    .poll(async () => {
      await page.goto('/loans/conversations?unread=1');
      return page
        .getByRole('row')
        .filter({ hasText: `Camille Convo ${stamp}` })
        .count();
    })
    .toBe(0);
  await context.close();
});

test('an opted-out customer’s marketing message is refused with the reason next to the purpose', async ({ page }) => {
  await signIn(page, 'officer@demo.test');
  await page.goto(`/loans/conversations/new?customer=${optedOutId}`);
  await page.getByLabel('Purpose').selectOption('marketing');
  await page.getByLabel('Subject').fill('A new offer');
  await page.getByLabel('Message').fill('You may be eligible for a new offer.');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.getByTestId('purpose-error')).toHaveText(
    'The customer has opted out: marketing messages are not sent.',
  );
  await expect(page.getByLabel('Purpose')).toHaveAttribute('aria-invalid', 'true');
  const threads = await officer.get(`/v1/conversations?customerId=${optedOutId}`);
  expect((await threads.json()).items).toHaveLength(0);
  const api = await officer.post('/v1/conversations', {
    data: { customerId: optedOutId, channel: 'email', purpose: 'marketing', subject: 'Offer', body: 'Offer' },
  });
  expect(api.status()).toBe(422);
  expect((await api.json()).error.field).toBe('purpose');
});

test('the refusal reads in the user’s language (French)', async ({ page }) => {
  await signIn(page, 'agent.fr@demo.test');
  await page.goto(`/loans/conversations/new?customer=${optedOutId}`);
  await page.getByLabel('Objet du message').selectOption('marketing');
  await page.getByLabel('Objet', { exact: true }).fill('Une offre');
  await page.getByLabel('Message', { exact: true }).fill('Une nouvelle offre.');
  await page.getByRole('button', { name: 'Envoyer' }).click();
  await expect(page.getByTestId('purpose-error')).toHaveText(
    'Le client s’est désinscrit : aucun message marketing ne lui est envoyé.',
  );
});
