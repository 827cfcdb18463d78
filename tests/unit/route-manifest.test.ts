import { describe, expect, it } from 'vitest';
import { isRuleKey } from '#lib/auth/permissions.ts';
import {
  API_ROUTES,
  ROUTES,
  canonicalRouteCase,
  matchApiRoute,
  matchRoute,
  notFoundPagePath,
  forbiddenPagePath,
} from '#lib/auth/route-manifest.ts';

// Every page route of the product, written out by hand (one line per route; '+' expansions written
// out), so a route the manifest gains or loses shows up here.
const SECTIONS = ['admin', 'analytics', 'strategies', 'loans'];
const PROFILE_SUBPAGES = [
  '',
  '/resume',
  '/transaction-metrics',
  '/files',
  '/collaterals',
  '/offers',
  '/offers/:offerId',
  '/offers/:offerId/request',
  '/processing-loans/:loanId',
  '/repayment-behavior',
  '/class',
  '/loans',
  '/loans/:loanId',
  '/loans/:loanId/transfer',
  '/loans/:loanId/repay',
  '/transactions',
  '/closed-loans/:loanId',
  '/upload-bureau-pdf',
  '/bank-statements',
  '/credit-analysis',
];
const SPEC_ROUTES = [
  // Layouts: root area, standalone 403, result pages
  '/',
  '/conversations',
  '/data-flow',
  '/403',
  '/404',
  '/500',
  ...SECTIONS.flatMap((s) => [`/${s}/user/profile`, `/${s}/user/downloads-list`, `/${s}/403`, `/${s}/404`]),
  // Auth, public
  '/user/login',
  '/user/reset-password',
  '/user/mfa',
  '/application/:id',
  // Analytics
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
  // Strategies
  '/strategies/list',
  '/strategies/:id',
  // Loans
  '/loans/customers',
  '/loans/customers/add',
  ...['customers', 'offers', 'loans', 'collaterals', 'payments'].flatMap((l) => [
    `/loans/${l}/add-custom-view`,
    `/loans/${l}/update-custom-view/:id`,
  ]),
  '/loans/offers',
  '/loans/loans',
  '/loans/overview',
  '/loans/collection',
  '/loans/performance',
  '/loans/loan-applications',
  '/loans/loan-applications/new/:customerId',
  '/loans/loan-applications/edit/:customerId/:loanId',
  '/loans/collaterals',
  '/loans/collaterals/new/:customerId',
  '/loans/collaterals/:id',
  '/loans/payments',
  '/loans/tasks',
  '/loans/tasks/new',
  '/loans/tasks/edit/:id',
  '/loans/conversations',
  '/loans/conversations/new',
  '/loans/conversations/:conversationId',
  // Customer profile, under each section, and the bare resume path
  ...SECTIONS.flatMap((s) => PROFILE_SUBPAGES.map((p) => `/${s}/customer/profile/:customerId${p}`)),
  '/customer/profile/resume',
  // Admin
  '/admin/notifications/webhooks',
  '/admin/notifications/webhooks/add',
  '/admin/notifications/webhooks/update/:id',
  '/admin/notifications/events',
  '/admin/notifications/events/:database_type',
  '/admin/notifications/events/:database_type/add',
  '/admin/notifications/events/:database_type/:id',
  '/admin/notifications/scheduled-exports',
  '/admin/notifications/scheduled-exports/add',
  '/admin/notifications/scheduled-exports/update/:id',
  '/admin/data/data-quality-check',
  '/admin/data/data-upload',
  '/admin/data/data-availability',
  '/admin/data/days-off',
  '/admin/data/data-resource-usage',
  '/admin/data/import-buckets',
  '/admin/data/import-buckets/add',
  '/admin/data/import-buckets/edit/:id',
  '/admin/user/users',
  '/admin/user/users/add',
  '/admin/user/users/edit/:id',
  '/admin/user/roles',
  '/admin/user/roles/add',
  '/admin/user/roles/:id',
  '/admin/user/permissions',
  '/admin/user/ip-restriction',
  '/admin/user/ip-restriction/add',
  '/admin/user/ip-restriction/edit/:id',
  '/admin/platform/general-settings',
  '/admin/platform/download',
  '/admin/platform/download/:id',
  '/admin/platform/translations',
  '/admin/platform/password-policy',
  '/admin/plan-contracts/contracts',
  '/admin/plan-contracts/plan',
  '/admin/processes/strategy-editing',
  '/admin/business/application-form',
  '/admin/business/application-form/:id',
  '/admin/business/application-form/:id/submissions',
  '/admin/business/decision-engine',
  '/admin/business/decision-engine/:id',
  '/admin/application/decision-engine',
  '/admin/business/collection-workflow',
  '/admin/business/collection-workflow/new',
  '/admin/business/collection-workflow/:id',
  '/admin/business/loan-products',
  '/admin/business/loan-products/add',
  '/admin/business/collateral',
  '/admin/business/decision-models',
  '/admin/business/decision-models/:id',
  '/admin/business/customized-form',
  '/admin/business/customized-form/:id',
];
// Routes the product has besides the ones above (each with its reason).
const ADDED_ROUTES = [
  '/admin/platform/error-reports', // error reports listed for administrators
  '/plan-required', // "not in your plan", shown by the guard with 403 for a feature the plan lacks
  '/400', // the page a client mistake (bad query parameter, unsupported method) answers with
  '/admin/business/loan-products/:id', // a loan product's page: terms, versions, edit form, activation (issue 12)
  '/admin/business/application-form/:id/submissions/:submissionId', // one submission of a form (issue 13)
  '/loans/conversations/templates', // message templates, reached from the conversations list (issue 14)
  '/loans/conversations/templates/:templateId', // one message template's edit form (issue 14)
  // Issue 16, days off: a holiday's add and edit forms, the import with its preview, the apply preview.
  '/admin/data/days-off/holidays/add',
  '/admin/data/days-off/holidays/edit/:id',
  '/admin/data/days-off/import',
  '/admin/data/days-off/apply',
];

/** The all_permissions routes: administrators only. */
const ADMIN_ONLY = [
  '/admin/processes/strategy-editing',
  '/admin/business/application-form',
  '/admin/business/application-form/:id',
  '/admin/business/application-form/:id/submissions',
  '/admin/business/decision-engine',
  '/admin/business/decision-engine/:id',
  '/admin/application/decision-engine',
  '/admin/plan-contracts/plan',
  '/admin/data/import-buckets',
  '/admin/data/import-buckets/add',
  '/admin/data/import-buckets/edit/:id',
  '/admin/business/loan-products',
  '/admin/business/loan-products/add',
  '/admin/business/loan-products/:id',
  '/admin/business/collateral',
  '/admin/business/decision-models',
  '/admin/business/decision-models/:id',
  '/admin/business/customized-form',
  '/admin/business/customized-form/:id',
  '/admin/platform/error-reports',
  '/admin/business/application-form/:id/submissions/:submissionId',
  '/loans/conversations/templates',
  '/loans/conversations/templates/:templateId',
];

describe('route manifest', () => {
  it('lists exactly the routes (plus the documented additions), each once', () => {
    const patterns = ROUTES.map((r) => r.pattern);
    expect(new Set(patterns).size).toBe(patterns.length);
    expect([...patterns].sort()).toEqual([...new Set([...SPEC_ROUTES, ...ADDED_ROUTES])].sort());
  });

  it('marks exactly the all_permissions routes admin-only', () => {
    expect(
      ROUTES.filter((r) => r.rule.kind === 'admin')
        .map((r) => r.pattern)
        .sort(),
    ).toEqual([...ADMIN_ONLY].sort());
  });

  it('gives every entry a section, a known permission, and a unique page-view event name', () => {
    for (const r of ROUTES) {
      if (r.rule.kind === 'permission') expect(isRuleKey(r.rule.key), `${r.pattern}: ${r.rule.key}`).toBe(true);
      expect(r.event).toMatch(/^page_view:\//);
      const first = r.pattern.split('/')[1];
      const expected =
        first === 'user'
          ? 'auth'
          : first === 'application'
            ? 'public'
            : ['admin', 'analytics', 'strategies', 'loans'].includes(first)
              ? first
              : 'root';
      expect(r.section, r.pattern).toBe(expected);
      expect(r.rule.kind === 'public', r.pattern).toBe(expected === 'auth' || expected === 'public');
    }
    expect(new Set(ROUTES.map((r) => r.event)).size).toBe(ROUTES.length);
  });

  it('matches paths with params, static segments winning over params', () => {
    expect(matchRoute('/analytics/queries/new')?.entry.pattern).toBe('/analytics/queries/new');
    expect(matchRoute('/analytics/queries/42')).toEqual({
      entry: expect.objectContaining({ pattern: '/analytics/queries/:id' }),
      params: { id: '42' },
    });
    expect(matchRoute('/analytics/queries/new/results')?.entry.pattern).toBe('/analytics/queries/new/results');
    expect(matchRoute('/admin/notifications/events/bigquery/add')?.entry.pattern).toBe(
      '/admin/notifications/events/:database_type/add',
    );
    expect(matchRoute('/admin/notifications/events/bigquery/7')?.params).toEqual({
      database_type: 'bigquery',
      id: '7',
    });
    expect(matchRoute('/loans/customer/profile/c-1/loans/l-9/repay')).toEqual({
      entry: expect.objectContaining({
        pattern: '/loans/customer/profile/:customerId/loans/:loanId/repay',
        rule: { kind: 'permission', key: 'loans.loans.repay' },
      }),
      params: { customerId: 'c-1', loanId: 'l-9' },
    });
    expect(matchRoute('/')?.entry.pattern).toBe('/');
  });

  it('does not match unknown paths, including unknown customer-profile subpages (any other subpath is a 404)', () => {
    for (const p of [
      '/nope',
      '/loans',
      '/loans/customer/profile/c-1/secret',
      '/admin/user/users/edit',
      '/analytics/risk/product/cards/x',
    ]) {
      expect(matchRoute(p), p).toBeNull();
    }
  });

  it('picks the section 403 and 404 pages from the first segment', () => {
    expect(forbiddenPagePath('/loans/offers')).toBe('/loans/403');
    expect(notFoundPagePath('/admin/nope')).toBe('/admin/404');
    expect(notFoundPagePath('/nope/deeper')).toBe('/404');
    expect(forbiddenPagePath('/conversations')).toBe('/403');
  });

  it('fixes the case of fixed segments only', () => {
    expect(canonicalRouteCase('/Admin/User/Users')).toBe('/admin/user/users');
    expect(canonicalRouteCase('/LOANS/tasks/edit/AbC')).toBe('/loans/tasks/edit/AbC');
    expect(canonicalRouteCase('/loans/tasks/edit/AbC')).toBe('/loans/tasks/edit/AbC');
    expect(canonicalRouteCase('/nowhere')).toBeNull();
  });

  it('has an API manifest with no duplicate patterns and known permissions', () => {
    const patterns = API_ROUTES.map((r) => r.pattern);
    expect(new Set(patterns).size).toBe(patterns.length);
    for (const r of API_ROUTES) {
      for (const rule of Object.values(r.methods)) {
        if (rule.kind === 'permission') expect(isRuleKey(rule.key), `${r.pattern}: ${rule.key}`).toBe(true);
      }
    }
    expect(matchApiRoute('/v1/users/me')?.entry.pattern).toBe('/v1/users/me');
    expect(matchApiRoute('/v1/loans/abc/repayments')?.entry.pattern).toBe('/v1/loans/:id/repayments');
    expect(matchApiRoute('/v1/loans')?.entry.pattern).toBe('/v1/loans');
    expect(matchApiRoute('/v1/unknown')).toBeNull();
  });
});
