import { apiSession, expect, signIn, test } from './support/fixtures.ts';
import { DEMO_ROLES, type DemoRole } from '#lib/auth/permissions.ts';
import { ROUTES, canOpen } from '#lib/auth/route-manifest.ts';

/**
 * Issue 15 (acceptance): every route of the Analytics section opens with real figures (200, its page
 * title, no result page, at least one number) for each demo role its rule allows, and 403 for the
 * others. Path ids are records the analyst creates through the API first (a saved query, a custom
 * metric, a report), so the pages show data rather than a 404.
 */

const ISSUE_15 = [
  '/analytics/overview',
  '/analytics/risk/product',
  '/analytics/risk/product/cards',
  '/analytics/risk/product/view',
  '/analytics/risk/branch',
  '/analytics/risk/branch/cards',
  '/analytics/risk/branch/view',
  '/analytics/risk/delinquency',
  '/analytics/risk/vintage-analysis',
  '/analytics/risk/bullet-loans-collection',
  '/analytics/queries',
  '/analytics/queries/new',
  '/analytics/queries/:id',
  '/analytics/queries/new/results',
  '/analytics/queries/:id/results',
  '/analytics/metrics-config',
  '/analytics/metrics-config/add/:metric_type',
  '/analytics/metrics-config/:metric_type/:metric_name',
  '/analytics/reports',
  '/analytics/reports/add',
  '/analytics/reports/:reportId',
  '/analytics/performance/monthly-revenue',
  '/analytics/performance/portfolio-analysis',
];

const ACCOUNTS: Record<DemoRole, string> = {
  administrator: 'admin@demo.test',
  loan_officer: 'officer@demo.test',
  analyst: 'analyst@demo.test',
  collector: 'collector@demo.test',
  strategist: 'strategist@demo.test',
  strategy_provider: 'provider@demo.test',
};

/** Pages that only show figures: each must show at least one number in a table cell, tile or chart. */
const BOARDS = new Set(ISSUE_15.filter((p) => !/\/(new|add)(\/|$)|:metric_type$|:metric_name$|queries\/:id$/.test(p)));

test('[ANALYTICS-ROUTES]: every route of issue 15 opens with figures for the roles allowed and 403 for the others', async ({
  browser,
  baseURL,
  request,
}) => {
  test.setTimeout(300_000);
  const entries = ISSUE_15.map((pattern) => {
    const entry = ROUTES.find((r) => r.pattern === pattern);
    expect(entry, pattern).toBeDefined();
    return entry!;
  });

  // Records behind the path ids, created by the analyst through the API (unique names per run).
  const analyst = await apiSession(browser, 'analyst@demo.test', baseURL!);
  const stamp = Date.now().toString(36);
  const created = async (url: string, data: unknown) => {
    const response = await analyst.post(url, { data });
    expect(response.status(), `${url}: ${await response.text()}`).toBe(201);
    return (await response.json()) as Record<string, string>;
  };
  const query = await created('/v1/analytics/queries', {
    name: `Walk ${stamp}`,
    definition: { dataset: 'loans', tab: 'overdue', columns: ['customer', 'outstanding', 'days_past_due'] },
  });
  const metric = await created('/v1/analytics/metrics', {
    type: 'count',
    name: `walk-${stamp}`,
    labelEn: `Walk loans ${stamp}`,
    labelFr: `Prêts parcours ${stamp}`,
    dataset: 'loans',
    filters: {},
    format: 'number',
    showOnBoard: true,
  });
  const report = await created('/v1/analytics/reports', {
    name: `Walk by product ${stamp}`,
    dataset: 'loans',
    filters: {},
    rows: 'product',
    measures: [{ fn: 'count' }, { metric: `count/${metric.name}` }],
  });
  const ids: Record<string, string> = {
    '/analytics/queries/:id': `/analytics/queries/${query.id}`,
    '/analytics/queries/:id/results': `/analytics/queries/${query.id}/results`,
    '/analytics/queries/new/results': '/analytics/queries/new/results?dataset=loans&tab=overdue',
    '/analytics/metrics-config/add/:metric_type': '/analytics/metrics-config/add/ratio',
    '/analytics/metrics-config/:metric_type/:metric_name': `/analytics/metrics-config/count/${metric.name}`,
    '/analytics/reports/:reportId': `/analytics/reports/${report.id}`,
  };

  const failures: string[] = [];
  for (const [role, email] of Object.entries(ACCOUNTS) as [DemoRole, string][]) {
    await signIn(request, email);
    for (const entry of entries) {
      const allowed = canOpen(DEMO_ROLES[role], entry);
      const path = ids[entry.pattern] ?? entry.pattern;
      const response = await request.get(path, { maxRedirects: 0 });
      const html = await response.text();
      if (!allowed) {
        if (response.status() !== 403) failures.push(`${role} ${path}: ${response.status()} (expected 403)`);
        continue;
      }
      if (response.status() !== 200) {
        failures.push(`${role} ${path}: ${response.status()}`);
        continue;
      }
      if (!/<h1[^>]*>[^<]+/.test(html) || html.includes('id="result-title"'))
        failures.push(`${role} ${path}: no page title or a result page`);
      const main = html.slice(html.indexOf('<main'));
      if (BOARDS.has(entry.pattern) && !/<(td|dd|strong|span)[^>]*>[^<]*\d/.test(main))
        failures.push(`${role} ${path}: no figure`);
      // Pages that only show data ship no island.
      if (BOARDS.has(entry.pattern) && main.includes('<astro-island')) failures.push(`${role} ${path}: an island`);
    }
  }
  expect(failures).toEqual([]);

  // A custom metric shown on boards appears on the overview, over the viewer's scope.
  await signIn(request, 'analyst@demo.test');
  const overview = await (await request.get('/analytics/overview')).text();
  expect(overview).toContain(`Walk loans ${stamp}`);
  await analyst.delete(`/v1/analytics/reports/${report.id}`);
  await analyst.delete(`/v1/analytics/metrics/count/${metric.name}`);
  await analyst.delete(`/v1/analytics/queries/${query.id}`);
});
