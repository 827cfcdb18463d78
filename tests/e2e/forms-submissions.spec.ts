import { E2E_SUBMISSIONS_FILE, E2E_SUBMISSIONS_FORM_ID } from '#lib/seed/e2e-submissions.ts';
import { expect, signIn, test } from './support/fixtures.ts';

// Admin › business › application form › submissions, on the form the e2e seed publishes with three
// submissions (src/lib/seed/e2e-submissions.ts): list, filters in the URL, one submission with its
// answers, customer differences and file, the file download and the CSV export.

const LIST = `/admin/business/application-form/${E2E_SUBMISSIONS_FORM_ID}/submissions`;

test.describe('[ADMIN]: submissions of an application form', () => {
  test('lists, filters, opens one, downloads its file and exports CSV', async ({ page }) => {
    await signIn(page, 'admin@demo.test');
    for (const width of [1024, 1366]) {
      await page.setViewportSize({ width, height: 768 });
      await page.goto(LIST);
      await expect(page.getByRole('heading', { level: 1 })).toContainText('E2E personal loan');
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    }
    const rows = page.getByTestId('submissions-table').locator('tbody tr');
    await expect(rows).toHaveCount(3);
    await expect(rows.first()).toContainText('E2E-SUB-003');
    // The applicant's name is text, never markup.
    await expect(rows.first()).toContainText('<b>Tables</b>');

    // Filters go in the URL (plain GET form).
    // (A label's text includes its select's chosen option, so the selects are found by name.)
    await page.locator('select[name="status"]').selectOption('processed');
    await page.locator('select[name="match"]').selectOption('review');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await expect(page).toHaveURL(/status=processed/);
    await expect(page).toHaveURL(/match=review/);
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText('E2E-SUB-002');
    await expect(rows.first()).toContainText('To review');

    // A search that matches nothing shows the empty state.
    await page.goto(`${LIST}?q=nobody-here`);
    await expect(page.getByTestId('submissions-empty')).toBeVisible();

    // The CSV export of the filtered list has the answers as columns.
    await page.goto(`${LIST}?status=processed`);
    const csvHref = await page.getByTestId('export-csv').getAttribute('href');
    const csv = await page.request.get(csvHref!);
    expect(csv.status()).toBe(200);
    expect(csv.headers()['content-disposition']).toMatch(/^attachment/);
    const text = (await csv.text()).replace(/^\uFEFF/, '');
    const [header, ...lines] = text.trim().split('\r\n');
    expect(header).toContain('Amount wanted');
    expect(header).toContain('Purpose');
    expect(lines).toHaveLength(2);
    expect(text).toContain('Home works');

    // One submission: answers with the version's labels, the differences, the file.
    await page.getByRole('link', { name: 'E2E-SUB-002' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toContainText('E2E-SUB-002');
    const answers = page.getByTestId('submission-answers');
    await expect(answers).toContainText('Amount wanted');
    await expect(answers).toContainText('Home works');
    await expect(page.getByTestId('submission-differences')).toContainText('+33 6 11 11 11 11');
    const fileLink = answers.getByRole('link', { name: /payslip\.pdf/ });
    const downloadPromise = page.waitForEvent('download');
    await fileLink.click();
    const download = await downloadPromise;
    expect(download.suggestedFilename()).toBe(E2E_SUBMISSIONS_FILE.name);
    const file = await page.request.get((await fileLink.getAttribute('href'))!);
    expect(file.headers()['content-type']).toBe('application/pdf');
    expect(await file.text()).toBe(E2E_SUBMISSIONS_FILE.bytes);
    await page.getByRole('link', { name: 'Back to the submissions' }).click();
    await expect(page).toHaveURL(/status=processed/);

    // A failed one shows its error.
    await page.goto(`${LIST}?status=failed`);
    await page.getByRole('link', { name: 'E2E-SUB-003' }).click();
    await expect(page.getByTestId('submission-error')).toContainText('not available');
  });

  test('another role cannot open the submissions; an unknown form is a 404', async ({ page }) => {
    await signIn(page, 'officer@demo.test');
    const refused = await page.goto(LIST);
    expect(refused?.status()).toBe(403);
    // Leave the officer's page before the session changes hands: its shell script (idle sign-out) acts
    // on whatever session the browser holds, and must not end the administrator's.
    await page.goto('about:blank');
    await signIn(page, 'admin@demo.test');
    const unknown = await page.goto(
      '/admin/business/application-form/00000000-0000-4000-8000-000000000000/submissions',
    );
    expect(unknown?.status()).toBe(404);
  });
});
