import { apiSession, expect, signIn, test } from './support/fixtures.ts';
import { DEMO_ROLES, type DemoRole } from '#lib/auth/permissions.ts';
import { ROUTES, canOpen } from '#lib/auth/route-manifest.ts';

/**
 * Issue 14 (acceptance): every route of the issue opens with real content (200, its page title, no
 * result page) for each demo role its rule allows, and 403 with the section's page for the others.
 * Path ids are real demo records (a task, a conversation, a template, a workflow), read as the
 * administrator, so the page shows data rather than a 404.
 */

const ISSUE_14 = [
  '/conversations',
  '/loans/overview',
  '/loans/collection',
  '/loans/performance',
  '/loans/tasks',
  '/loans/tasks/new',
  '/loans/tasks/edit/:id',
  '/loans/conversations',
  '/loans/conversations/new',
  '/loans/conversations/:conversationId',
  '/loans/conversations/templates',
  '/loans/conversations/templates/:templateId',
  '/admin/business/collection-workflow',
  '/admin/business/collection-workflow/new',
  '/admin/business/collection-workflow/:id',
];

const ACCOUNTS: Record<DemoRole, string> = {
  administrator: 'admin@demo.test',
  loan_officer: 'officer@demo.test',
  analyst: 'analyst@demo.test',
  collector: 'collector@demo.test',
  strategist: 'strategist@demo.test',
  strategy_provider: 'provider@demo.test',
};

test('[TEAM-ROUTES]: every route of issue 14 opens with content for the roles allowed and 403 for the others', async ({
  browser,
  baseURL,
  request,
}) => {
  test.setTimeout(240_000);
  const entries = ISSUE_14.map((pattern) => {
    const entry = ROUTES.find((r) => r.pattern === pattern);
    expect(entry, pattern).toBeDefined();
    return entry!;
  });

  // Real ids of the demo tenant, read as the administrator.
  const admin = await apiSession(browser, 'admin@demo.test', baseURL!);
  const first = async (url: string) => {
    const response = await admin.get(url);
    expect(response.status(), url).toBe(200);
    const body = (await response.json()) as { items: { id: string }[] };
    expect(body.items.length, url).toBeGreaterThan(0);
    return body.items[0].id;
  };
  const ids: Record<string, string> = {
    '/loans/tasks/edit/:id': await first('/v1/tasks?tab=team'),
    '/loans/conversations/:conversationId': await first('/v1/conversations'),
    '/loans/conversations/templates/:templateId': await first('/v1/message-templates'),
    '/admin/business/collection-workflow/:id': await first('/v1/collection-workflows'),
  };
  const concrete = (pattern: string) => pattern.replace(/:\w+$/, ids[pattern] ?? '');

  const failures: string[] = [];
  for (const [role, email] of Object.entries(ACCOUNTS) as [DemoRole, string][]) {
    await signIn(request, email);
    for (const entry of entries) {
      const allowed = canOpen(DEMO_ROLES[role], entry);
      const path = concrete(entry.pattern);
      const response = await request.get(path, { maxRedirects: 0 });
      const html = await response.text();
      if (!allowed) {
        if (response.status() !== 403) failures.push(`${role} ${path}: ${response.status()} (expected 403)`);
        continue;
      }
      // An allowed path id that the role cannot see through its scope may answer 404 (ids are the admin's).
      if (response.status() === 404 && entry.pattern.includes('/:')) continue;
      if (response.status() !== 200) failures.push(`${role} ${path}: ${response.status()}`);
      else if (!/<h1[^>]*>[^<]+/.test(html) || html.includes('id="result-title"'))
        failures.push(`${role} ${path}: no page title or a result page`);
    }
  }
  expect(failures).toEqual([]);
});
