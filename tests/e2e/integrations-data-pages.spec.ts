import type { Page } from '@playwright/test';
import { appOrigin, expect, signIn, test } from './support/fixtures.ts';

// Issue 16, the data pages: the data quality check (run on demand, progress, scores, drill-down to the
// failing rows), data availability, resource usage and /data-flow, with real figures from the demo
// tenant, in English and in French at 1024 px; the analyst and a loan officer get 403 on each.

const PAGES = [
  '/admin/data/data-quality-check',
  '/admin/data/data-availability',
  '/admin/data/data-resource-usage',
  '/data-flow',
];

async function setLanguage(page: Page, language: 'en-US' | 'fr-FR'): Promise<void> {
  const response = await page.request.post('/admin/user/profile', {
    form: { display_name: 'Alice Admin', language },
    headers: { origin: appOrigin() },
    maxRedirects: 0,
  });
  expect(response.status()).toBe(303);
}

async function noHorizontalScroll(page: Page): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

test.describe('[DATA PAGES]: data quality, availability, usage and data flow', () => {
  test('[DATA PAGES]: an admin runs the data quality check on the demo tenant and drills down to a failing row', async ({
    page,
  }) => {
    test.setTimeout(180_000);
    await signIn(page, 'admin@demo.test');
    // A known defect: an address the customer form lets through but that no one can write to.
    const created = await page.request.post('/v1/customers', {
      data: { firstName: 'Quality', lastName: 'Probe', email: 'quality-probe@nowhere', nationalId: 'DQ-PROBE-1' },
      headers: { origin: appOrigin() },
    });
    expect(created.status(), await created.text()).toBe(201);
    const customerId = (await created.json()).id as string;

    expect((await page.goto('/admin/data/data-quality-check'))?.status()).toBe(200);
    await expect(page.getByRole('heading', { level: 1, name: 'Data quality check' })).toBeVisible();
    await page.getByRole('button', { name: 'Run the check now' }).click();
    await expect(page).toHaveURL(/done=started/);
    await expect(page.getByText('The check has started.')).toBeVisible();
    // The page follows the run in the background until its scores appear.
    await expect(page.getByTestId('dq-overall')).toBeVisible({ timeout: 120_000 });
    await expect(page.getByTestId('dq-overall')).toContainText('%');
    const rules = page.getByTestId('dq-rules');
    await expect(rules.locator('tr.dq-entity', { hasText: 'Customers' })).toBeVisible();
    const invalid = rules.locator('tr[data-rule="customers.invalid_email"]');
    await expect(invalid).toContainText('Invalid e-mail address');
    const failing = Number((await invalid.locator('td').nth(2).innerText()).replace(/\D/g, ''));
    expect(failing).toBeGreaterThanOrEqual(1);

    await invalid.getByRole('link', { name: 'Show the failing rows of Invalid e-mail address' }).click();
    const drill = page.getByTestId('dq-drill');
    await expect(drill.getByRole('heading', { name: 'Failing rows: Invalid e-mail address' })).toBeVisible();
    const row = drill.locator('tr', { hasText: customerId });
    await expect(row).toContainText('quality-probe@nowhere');
    await row.getByRole('link', { name: `Open ${customerId}` }).click();
    await expect(page).toHaveURL(new RegExp(`/admin/customer/profile/${customerId}$`));
    await expect(page.getByText('Quality Probe').first()).toBeVisible();

    // The API answers the same run.
    const runs = await page.request.get('/v1/data-quality/runs');
    expect(runs.status()).toBe(200);
    const [last] = (await runs.json()).items;
    expect(last).toMatchObject({ status: 'done', trigger: 'manual' });
    const detail = await (await page.request.get(`/v1/data-quality/runs/${last.id}`)).json();
    expect(detail.results.find((r: { rule: string }) => r.rule === 'customers.invalid_email').failing).toBe(failing);
    const rows = await page.request.get(`/v1/data-quality/runs/${last.id}/failures?rule=customers.invalid_email`);
    expect((await rows.json()).items.map((r: { rowId: string }) => r.rowId)).toContain(customerId);
    expect((await page.request.get(`/v1/data-quality/runs/${last.id}/failures?rule=nope`)).status()).toBe(404);
  });

  test('[DATA PAGES]: availability, usage and the data flow show real figures', async ({ page }) => {
    test.setTimeout(120_000);
    await signIn(page, 'admin@demo.test');
    expect((await page.goto('/admin/data/data-availability'))?.status()).toBe(200);
    const availability = page.getByTestId('availability');
    const loans = availability.locator('tr[data-source="loan_activity"]');
    await expect(loans.getByRole('rowheader')).toHaveText('Loan activity (transactions)');
    await expect(loans).not.toContainText('No data');
    expect(Number((await loans.locator('td.num').innerText()).replace(/\D/g, ''))).toBeGreaterThan(0);
    await expect(availability.locator('tr[data-source="bank_statements"]')).toBeVisible();

    // API calls are counted (in memory, written every few seconds).
    await expect
      .poll(
        async () => {
          const usage = await (await page.request.get('/v1/resource-usage')).json();
          const calls = usage.measures.find((m: { id: string }) => m.id === 'api_calls');
          return calls.values[usage.months.at(-1)] as number;
        },
        { timeout: 30_000 },
      )
      .toBeGreaterThan(0);
    expect((await page.goto('/admin/data/data-resource-usage'))?.status()).toBe(200);
    const summary = page.getByTestId('usage-summary');
    const customers = summary.locator('tr[data-measure="rows.customers"]');
    await expect(customers.getByRole('rowheader')).toHaveText('Customers');
    expect(Number((await customers.locator('td').first().innerText()).replace(/\D/g, ''))).toBeGreaterThan(0);
    await expect(summary.locator('tr[data-measure="exports"]')).toContainText('Growth');
    await expect(page.getByRole('img', { name: 'Customers by month' })).toBeVisible();

    expect((await page.goto('/data-flow'))?.status()).toBe(200);
    await expect(page.getByRole('heading', { level: 1, name: 'Data flow' })).toBeVisible();
    await expect(page.getByRole('img', { name: 'Diagram of the data flow' })).toBeVisible();
    const table = page.getByTestId('flow-table');
    const staff = table.locator('tr[data-link="staff.commands"]');
    await expect(staff.getByRole('rowheader')).toContainText('Staff commands');
    await expect(staff.locator('.flow-status')).toHaveText(/OK|Idle|Warning|Error/);
    await expect(page.getByTestId('flow-diagram').locator('g[data-link="staff.commands"] text')).toContainText(
      '/ 24 h',
    );
    await expect(
      table.locator('tr[data-link="product.downloads"]').getByRole('link', { name: /Manage/ }),
    ).toHaveAttribute('href', '/admin/platform/download');
    const flow = await (await page.request.get('/v1/data-flow')).json();
    expect(flow.links.map((l: { id: string }) => l.id)).toEqual(
      expect.arrayContaining(['forms.submissions', 'staff.commands', 'product.messages']),
    );
  });

  test('[DATA PAGES]: in French at 1024 px, without horizontal scrolling', async ({ page }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 1024, height: 800 });
    await signIn(page, 'admin@demo.test');
    await setLanguage(page, 'fr-FR');
    try {
      const titles: Record<string, string> = {
        '/admin/data/data-quality-check': 'Contrôle qualité des données',
        '/admin/data/data-availability': 'Disponibilité des données',
        '/admin/data/data-resource-usage': 'Utilisation des ressources',
        '/data-flow': 'Flux de données',
      };
      for (const path of PAGES) {
        expect((await page.goto(path))?.status(), path).toBe(200);
        await expect(page.getByRole('heading', { level: 1, name: titles[path] })).toBeVisible();
        await noHorizontalScroll(page);
      }
      await page.goto('/data-flow');
      await expect(page.getByRole('columnheader', { name: 'Dernières 24 h' })).toBeVisible();
      await expect(page.getByTestId('flow-table').getByText('Commandes de l’équipe')).toBeVisible();
      await page.goto('/admin/data/data-quality-check');
      await expect(page.getByRole('button', { name: 'Lancer le contrôle maintenant' })).toBeVisible();
    } finally {
      await setLanguage(page, 'en-US');
    }
  });

  for (const email of ['analyst@demo.test', 'officer@demo.test']) {
    test(`[DATA PAGES]: ${email} gets 403 on each page and on the API`, async ({ page }) => {
      await signIn(page, email);
      for (const path of PAGES) expect((await page.goto(path))?.status(), path).toBe(403);
      const run = await page.request.post('/v1/data-quality/runs', { data: {}, headers: { origin: appOrigin() } });
      expect(run.status()).toBe(403);
      for (const api of ['/v1/data-quality/runs', '/v1/data-availability', '/v1/resource-usage', '/v1/data-flow'])
        expect((await page.request.get(api)).status(), api).toBe(403);
    });
  }
});
