import type { APIRequestContext } from '@playwright/test';
import { apiSession, expect, signIn, test } from './support/fixtures.ts';
import { createProduct, approvedLoan, disburseLoan } from './support/lending.ts';

/**
 * Days off (issue 16) against the built server: an administrator puts a holiday on a loan's due date,
 * previews "apply to existing loans", applies it and finds the moved due date on the loan's page; the
 * pages in French at 1024 px without horizontal scrolling; a role without the permission gets 403.
 * Each test puts the demo tenant back as it found it (holiday deleted, loans moved back, rule restored).
 */

type Overview = {
  rule: string;
  weekdays: { branch: { id: string } | null; weekdays: number[] }[];
  holidays: { id: string; name: string; from: string; to: string; branch: { id: string } | null }[];
};

const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
const isoWeekday = (date: string) => ((new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7) + 1;
const mmddyyyy = (date: string) => `${date.slice(5, 7)}/${date.slice(8, 10)}/${date.slice(0, 4)}`;

/** The first working day after `date` in the lender-wide calendar (the e2e customer's branch has no days of its own). */
function nextWorkingDay(date: string, overview: Overview): string {
  const weekdays = overview.weekdays.find((w) => w.branch === null)?.weekdays ?? [];
  let day = addDays(date, 1);
  const isOff = (d: string) =>
    weekdays.includes(isoWeekday(d)) || overview.holidays.some((h) => h.branch === null && h.from <= d && d <= h.to);
  while (isOff(day)) day = addDays(day, 1);
  return day;
}

async function activeLoan(admin: APIRequestContext, officer: APIRequestContext, code: string) {
  const productId = await createProduct(admin, code, { name: 'E2E days off' });
  const { customerId, loanId } = await approvedLoan(admin, officer, {
    productId,
    code,
    customer: { firstName: 'Dora', lastName: `Daysoff ${code}` },
    principal: '1200.00',
    numberOfRepayments: 6,
  });
  await disburseLoan(admin, loanId, code);
  return { customerId, loanId };
}

async function dueDates(api: APIRequestContext, loanId: string): Promise<string[]> {
  const loan = await api.get(`/v1/loans/${loanId}`);
  expect(loan.status()).toBe(200);
  return ((await loan.json()).installments as { dueDate: string }[]).map((i) => i.dueDate);
}

test.describe('[DAYS OFF]: days off', () => {
  test('[DAYS OFF]: an admin adds a holiday on a due date, previews and applies it to existing loans, and sees the moved date on the loan page', async ({
    page,
    browser,
    baseURL,
  }) => {
    test.setTimeout(180_000);
    const admin = await apiSession(browser, 'admin@demo.test', baseURL!);
    const officer = await apiSession(browser, 'officer@demo.test', baseURL!);
    const code = `DO${Date.now() % 1_000_000}`;
    const { customerId, loanId } = await activeLoan(admin, officer, code);
    const before = await dueDates(admin, loanId);
    const target = before[1];
    const original = (await (await admin.get('/v1/days-off')).json()) as Overview;
    const name = `<i>Fête</i> ${code}`;

    await signIn(page, 'admin@demo.test');
    try {
      await page.goto('/admin/data/days-off');
      await expect(page.getByRole('heading', { level: 1, name: 'Days off' })).toBeVisible();
      await page.getByRole('radio', { name: 'Next working day' }).check();
      await page.getByRole('button', { name: 'Save the rule' }).click();
      await expect(page.getByRole('status')).toHaveText('The rule was saved.');

      await page.getByRole('link', { name: 'Add a holiday' }).click();
      await page.getByLabel('Name', { exact: true }).fill(name);
      await page.getByLabel('From', { exact: true }).fill(target);
      await page.getByLabel('To', { exact: true }).fill(target);
      await page.getByRole('button', { name: 'Add a holiday' }).click();
      await expect(page).toHaveURL(/\/admin\/data\/days-off\?done=added$/);
      // The name is shown as the text it is (no <i> element made of it).
      await expect(page.getByRole('cell', { name, exact: true })).toBeVisible();
      await expect(page.locator('td i')).toHaveCount(0);

      const overview = (await (await admin.get('/v1/days-off')).json()) as Overview;
      const expected = nextWorkingDay(target, overview);

      await page.getByRole('link', { name: 'Apply to existing loans (preview)' }).click();
      await expect(page.getByRole('heading', { level: 1, name: 'Apply to existing loans' })).toBeVisible();
      const accountNo = ((await (await admin.get(`/v1/loans/${loanId}`)).json()) as { accountNo: string }).accountNo;
      const row = page.getByTestId('apply-preview').getByRole('row').filter({ hasText: accountNo });
      await expect(row).toContainText(mmddyyyy(target));
      await expect(row).toContainText(mmddyyyy(expected));
      expect(await dueDates(admin, loanId)).toEqual(before); // the preview moved nothing
      await page.getByRole('button', { name: 'Move these due dates' }).click();
      await expect(page).toHaveURL(/\/admin\/data\/days-off\?done=applied/);
      await expect(page.getByRole('status')).toContainText('Due dates were moved');
      await expect(page.getByRole('row').filter({ hasText: code })).toContainText('Applied to loans on');

      const after = await dueDates(admin, loanId);
      expect(after[1]).toBe(expected);
      expect(after.filter((_, k) => k !== 1)).toEqual(before.filter((_, k) => k !== 1));
      await page.goto(`/loans/customer/profile/${customerId}/loans/${loanId}`);
      await expect(page.getByText(mmddyyyy(expected)).first()).toBeVisible();

      // Applying again changes nothing.
      const again = await admin.post('/v1/days-off/apply', { data: { dryRun: true } });
      expect(again.status()).toBe(200);
      expect(
        ((await again.json()) as { moves: { loanId: string }[] }).moves.filter((m) => m.loanId === loanId),
      ).toEqual([]);
    } finally {
      // Back as it was: the holiday deleted, the loans moved back, the rule restored.
      const now = (await (await admin.get('/v1/days-off')).json()) as Overview;
      for (const h of now.holidays.filter((x) => x.name === name))
        expect((await admin.delete(`/v1/days-off/holidays/${h.id}`)).status()).toBe(200);
      expect((await admin.put('/v1/days-off/rule', { data: { rule: original.rule } })).status()).toBe(200);
      expect((await admin.post('/v1/days-off/apply', { data: { dryRun: false } })).status()).toBe(200);
    }
    expect(await dueDates(admin, loanId)).toEqual(before);
  });

  test('[DAYS OFF]: the pages in French at 1024 px, without horizontal scrolling', async ({
    page,
    browser,
    baseURL,
  }) => {
    test.setTimeout(120_000);
    const admin = await apiSession(browser, 'admin@demo.test', baseURL!);
    const code = `FR${Date.now() % 1_000_000}`;
    const users = await admin.get('/v1/users?q=admin%40demo.test');
    const me = ((await users.json()).items as { id: string; email: string }[]).find(
      (u) => u.email === 'admin@demo.test',
    )!;
    expect((await admin.patch(`/v1/users/${me.id}`, { data: { language: 'fr-FR' } })).status()).toBe(200);
    try {
      await page.setViewportSize({ width: 1024, height: 800 });
      await signIn(page, 'admin@demo.test');
      const noScroll = async () =>
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1024);
      await page.goto('/admin/data/days-off');
      await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
      await expect(page.getByRole('heading', { level: 1, name: 'Jours non ouvrés' })).toBeVisible();
      await expect(page.getByRole('radio', { name: 'Jour ouvré précédent' })).toBeVisible();
      await expect(page.getByRole('checkbox', { name: 'Dimanche' }).first()).toBeVisible();
      await noScroll();
      await page.getByRole('link', { name: 'Ajouter un jour férié' }).click();
      await expect(page.getByRole('heading', { level: 1, name: 'Ajouter un jour férié' })).toBeVisible();
      // A refused form keeps its values and names the field in French.
      await page.getByLabel('Nom', { exact: true }).fill('Essai');
      await page.getByLabel('Du', { exact: true }).fill('2031-05-02');
      await page.getByLabel('Au', { exact: true }).fill('2031-05-01');
      await page.getByRole('button', { name: 'Ajouter un jour férié' }).click();
      await expect(page.getByRole('alert')).toContainText('Le dernier jour ne peut pas précéder le premier jour.');
      await expect(page.getByLabel('Nom', { exact: true })).toHaveValue('Essai');
      await noScroll();
      await page.goto('/admin/data/days-off/import');
      await expect(page.getByRole('heading', { level: 1, name: 'Importer des jours fériés' })).toBeVisible();
      await page.getByLabel('Fichier (.csv ou .ics, 200 Ko au plus)').setInputFiles({
        name: 'jours.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from('name,from,to\nFête,2031-07-14,2031-07-14\nFaux,2031-02-30,2031-02-30\n'),
      });
      await page.getByRole('button', { name: 'Aperçu' }).click();
      await expect(page.getByRole('alert')).toContainText('Ligne 3 :');
      await expect(page.getByRole('alert')).toContainText('rien n’a été importé');
      await noScroll();
      // The fixed file: preview (nothing added yet), then import, without JavaScript in between.
      await page.getByLabel('Fichier (.csv ou .ics, 200 Ko au plus)').setInputFiles({
        name: 'jours.ics',
        mimeType: 'text/calendar',
        buffer: Buffer.from(
          [
            'BEGIN:VCALENDAR',
            'VERSION:2.0',
            'PRODID:-//E2E//FR',
            'BEGIN:VEVENT',
            'UID:e2e-fete@test',
            'DTSTART;VALUE=DATE:20310714',
            'DTEND;VALUE=DATE:20310715',
            `SUMMARY:Fête ${code}`,
            'END:VEVENT',
            'END:VCALENDAR',
            '',
          ].join('\r\n'),
        ),
      });
      await page.getByRole('button', { name: 'Aperçu' }).click();
      await expect(page.getByRole('heading', { name: 'Ce que l’import ajoutera' })).toBeVisible();
      await expect(page.getByRole('cell', { name: `Fête ${code}` })).toBeVisible();
      expect(
        ((await (await admin.get('/v1/days-off')).json()) as Overview).holidays.some((h) => h.name.endsWith(code)),
      ).toBe(false);
      await noScroll();
      await page.getByRole('button', { name: 'Importer 1 jour férié' }).click();
      await expect(page).toHaveURL(/\/admin\/data\/days-off\?done=imported/);
      await expect(page.getByRole('status')).toHaveText('1 jour férié a été importé.');
      await expect(page.getByRole('row').filter({ hasText: `Fête ${code}` })).toContainText('En attente');
      await page.goto('/admin/data/days-off/apply');
      await expect(page.getByRole('heading', { level: 1, name: 'Appliquer aux prêts en cours' })).toBeVisible();
      await noScroll();
    } finally {
      expect((await admin.patch(`/v1/users/${me.id}`, { data: { language: 'en-US' } })).status()).toBe(200);
      const now = (await (await admin.get('/v1/days-off')).json()) as Overview;
      for (const h of now.holidays.filter((x) => x.name.endsWith(code)))
        expect((await admin.delete(`/v1/days-off/holidays/${h.id}`)).status()).toBe(200);
    }
  });

  test('[DAYS OFF]: a role without the permission gets 403', async ({ page }) => {
    await signIn(page, 'officer@demo.test');
    for (const path of [
      '/admin/data/days-off',
      '/admin/data/days-off/holidays/add',
      '/admin/data/days-off/import',
      '/admin/data/days-off/apply',
    ]) {
      const response = await page.goto(path);
      expect(response?.status(), path).toBe(403);
    }
    expect((await page.request.get('/v1/days-off')).status()).toBe(403);
    const post = await page.request.post('/v1/days-off/holidays', {
      data: { name: 'probe', from: '2031-01-01', to: '2031-01-01' },
      headers: { origin: new URL(page.url()).origin },
    });
    expect(post.status()).toBe(403);
    const apply = await page.request.post('/v1/days-off/apply', {
      data: { dryRun: false },
      headers: { origin: new URL(page.url()).origin },
    });
    expect(apply.status()).toBe(403);
  });
});
