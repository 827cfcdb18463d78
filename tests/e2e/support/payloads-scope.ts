/**
 * The one-branch officer probe (tests/e2e/security-scope.spec.ts): which routes change data, and for
 * each one the requests officer@demo.test (data permission branch PAR-01) sends with another
 * branch's ids. The route list is GENERATED from the route manifest (src/lib/auth/route-manifest.ts)
 * and from the files under src/pages that export POST/PUT/PATCH/DELETE or handle a form POST, so a
 * new mutating route without a case here (or a reason in SCOPE_FREE) fails
 * tests/unit/security-scope-coverage.test.ts and the spec's first test.
 */
import fs from 'node:fs';
import path from 'node:path';
import { API_ROUTES, LAYOUT_SECTIONS, matchApiRoute, matchRoute, ROUTES } from '#lib/auth/route-manifest.ts';
import { LISTS } from '#lib/lists/registry.ts';

export type MutatingMethod = 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const METHODS: readonly MutatingMethod[] = ['POST', 'PUT', 'PATCH', 'DELETE'];
const PAGES = path.resolve('src/pages');

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    // Astro does not route names starting with '_' (page helpers).
    if (d.name.startsWith('_')) return [];
    const full = path.join(dir, d.name);
    if (d.isDirectory()) return walk(full);
    return /\.(astro|ts)$/.test(d.name) && !/\.test\.ts$/.test(d.name) ? [full] : [];
  });
}

/** '/v1/customers/[id]/opt-out.ts' → '/v1/customers/:id/opt-out'; a catch-all '[...sub]' → '/**'. */
function fileRoute(file: string): string {
  const rel = path
    .relative(PAGES, file)
    .replace(/\\/g, '/')
    .replace(/\.(astro|ts)$/, '')
    .replace(/(^|\/)index$/, '');
  return (
    ('/' + rel)
      .replace(/\[\.\.\.\w+\]/g, '**')
      .replace(/\[(\w+)\]/g, ':$1')
      .replace(/\/$/, '') || '/'
  );
}

const sample = (pattern: string) => pattern.replace(/:(\w+)/g, 'x-$1');

/**
 * A page file's routes: `:section` is each section with a layout (one file serves them all) and
 * `:list` each list of the registry the manifest has that page for (the page answers 404 for others).
 */
function expandRoute(route: string): string[] {
  const sections = route.includes(':section') ? LAYOUT_SECTIONS.map((s) => route.replace(':section', s)) : [route];
  if (!route.includes(':list')) return sections;
  const lists = Object.values(LISTS).map((entry) => entry.path.split('/').pop()!);
  return sections.flatMap((r) => lists.map((l) => r.replace(':list', l))).filter((r) => Boolean(matchRoute(sample(r))));
}
const normalise = (pattern: string) => pattern.replace(/:\w+/g, ':');

/** Whether a page file, or a module it imports (relative imports, followed), handles a POST. */
function handlesPost(file: string, seen = new Set<string>()): boolean {
  if (seen.has(file) || !fs.existsSync(file)) return false;
  seen.add(file);
  const source = fs.readFileSync(file, 'utf8');
  if (/request\.method\s*(===|!==)\s*'POST'/.test(source)) return true;
  return [...source.matchAll(/(?:import|from)\s+['"](\.{1,2}\/[^'"]+)['"]/g)].some((m) =>
    handlesPost(path.resolve(path.dirname(file), m[1]!), seen),
  );
}

/** Every mutating /v1 route ('POST /v1/customers/:id/opt-out') and every page taking a form post ('POST /loans/customers/add'). */
export function mutatingRoutes(): { api: string[]; pages: string[]; problems: string[] } {
  const problems: string[] = [];
  const api = new Set<string>();
  for (const file of walk(path.join(PAGES, 'v1'))) {
    const source = fs.readFileSync(file, 'utf8');
    const route = fileRoute(file);
    for (const method of METHODS) {
      if (!new RegExp(`export\\s+(const|async function|function)\\s+${method}\\b`).test(source)) continue;
      const match = matchApiRoute(sample(route));
      if (!match?.entry.methods[method]) problems.push(`${method} ${route} is not in the API manifest`);
      api.add(`${method} ${route}`);
    }
  }
  // The manifest's own mutating entries (it has no subtrees: every entry is one route, tests/unit/permission-coverage.test.ts).
  const byShape = new Set([...api].map(normalise));
  for (const entry of API_ROUTES) {
    if (entry.pattern.endsWith('/**')) continue;
    for (const method of METHODS) {
      if (entry.methods[method] && !byShape.has(normalise(`${method} ${entry.pattern}`)))
        problems.push(`${method} ${entry.pattern} is in the manifest but no file serves it`);
    }
  }
  const pages = new Set<string>();
  const pageFiles = walk(PAGES).filter((f) => !f.startsWith(path.join(PAGES, 'v1') + path.sep));
  // A manifest route under a catch-all that has its own file is served by that file, not the catch-all.
  const ownFile = new Set(
    pageFiles
      .flatMap((f) => expandRoute(fileRoute(f)))
      .filter((r) => !r.endsWith('/**'))
      .map(normalise),
  );
  for (const file of pageFiles) {
    if (!handlesPost(file)) continue;
    for (const route of expandRoute(fileRoute(file))) {
      if (route.endsWith('/**')) {
        const prefix = normalise(route.slice(0, -3));
        const under = ROUTES.filter(
          (r) =>
            (normalise(r.pattern) === prefix || normalise(r.pattern).startsWith(prefix + '/')) &&
            !ownFile.has(normalise(r.pattern)),
        );
        if (under.length === 0) problems.push(`${route} has no manifest route`);
        for (const r of under) pages.add(`POST ${r.pattern}`);
      } else {
        const match = matchRoute(sample(route));
        if (!match) problems.push(`${route} has no manifest route`);
        else pages.add(`POST ${match.entry.pattern}`);
      }
    }
  }
  return { api: [...api].sort(), pages: [...pages].sort(), problems };
}

/**
 * Mutating routes that act on no branch data, each with the reason. Everything else needs a case.
 */
export const SCOPE_FREE: Record<string, string> = {
  'POST /v1/auth/sign-in': 'public sign-in: acts on the caller’s own credentials',
  'POST /v1/auth/sign-out': 'ends the caller’s own session',
  'POST /v1/auth/sign-out-everywhere': 'ends the caller’s own sessions',
  'DELETE /v1/auth/sessions/:id': 'the caller’s own session (another user’s id is not found)',
  'POST /v1/auth/mfa': 'the caller’s own second factor at sign-in',
  'POST /v1/auth/mfa/enrolment': 'the caller’s own MFA enrolment',
  'PUT /v1/auth/mfa/enrolment': 'the caller’s own MFA enrolment',
  'POST /v1/auth/password': 'the caller’s own password',
  'POST /v1/auth/password-reset': 'public: asks for a reset mail for an address',
  'POST /v1/auth/password-reset/complete': 'public: completes a reset with its token',
  // Issue 13, public application page.
  'POST /application/:id':
    'public: an applicant’s own draft and submission; customers and applications are made by the system, never by a branch user',
  'POST /v1/auth/api-tokens': 'administrators only (guard): tokens of the tenant, no branch data',
  // Issue 14, conversations.
  'POST /v1/conversations/inbound':
    'public, authenticated by its Standard Webhooks signature (an officer’s session gives nothing): the reply token or the customer’s phone places the message',
  'POST /v1/message-templates': 'administrators only (guard): the tenant’s message templates, no branch data',
  'PATCH /v1/message-templates/:id': 'administrators only (guard): the tenant’s message templates, no branch data',
  'DELETE /v1/message-templates/:id': 'administrators only (guard): the tenant’s message templates, no branch data',
  'POST /loans/conversations/templates': 'administrators only (guard): the tenant’s message templates, no branch data',
  'POST /loans/conversations/templates/:templateId':
    'administrators only (guard): the tenant’s message templates, no branch data',
  'DELETE /v1/auth/api-tokens/:id': 'administrators only (guard): tokens of the tenant, no branch data',
  'POST /v1/auth/users/:id/end-sessions': 'administrators only: user management, no branch data',
  'POST /v1/error-reports': 'the caller’s own error report, no branch data',
  'POST /v1/translations/:lng/:ns': 'reports missing translation keys, no branch data',
  'POST /v1/products': 'administrators only: the tenant’s product catalogue is not placed in a branch',
  'PATCH /v1/products/:id': 'administrators only: the tenant’s product catalogue is not placed in a branch',
  'POST /v1/collateral-types': 'administrators only: the tenant’s collateral types are not placed in a branch',
  'PATCH /v1/collateral-types/:code': 'administrators only: the tenant’s collateral types are not placed in a branch',
  'POST /admin/business/collateral': 'administrators only: the tenant’s collateral types are not placed in a branch',
  'POST /admin/business/loan-products/:id':
    'administrators only: activates or deactivates a product of the tenant’s catalogue, not placed in a branch',
  // Administration, security (issue 11): tenant-wide settings, guarded by the admin.* keys, no branch data.
  'POST /v1/ip-restrictions': 'admin.ip_restriction.edit: the tenant’s IP rules, no branch data',
  'PATCH /v1/ip-restrictions/:id': 'admin.ip_restriction.edit: the tenant’s IP rules, no branch data',
  'DELETE /v1/ip-restrictions/:id': 'admin.ip_restriction.edit: the tenant’s IP rules, no branch data',
  'PUT /v1/password-policy': 'admin.password_policy.edit: the tenant’s password policy, no branch data',
  'POST /admin/user/ip-restriction': 'deletes an IP rule (admin.ip_restriction.edit), no branch data',
  'POST /admin/user/ip-restriction/add': 'admin.ip_restriction.edit: the tenant’s IP rules, no branch data',
  'POST /admin/user/ip-restriction/edit/:id': 'admin.ip_restriction.edit: the tenant’s IP rules, no branch data',
  'POST /admin/platform/password-policy': 'admin.password_policy.edit: the tenant’s password policy, no branch data',
  'POST /v1/schedules/preview': 'computes a schedule, stores nothing',
  'POST /v1/custom-views/:list': 'the caller’s own saved list view; its rows are read through the scope when shown',
  'PATCH /v1/custom-views/:list/:id': 'the caller’s own saved list view (another user’s is not found / 403)',
  'DELETE /v1/custom-views/:list/:id': 'the caller’s own saved list view (another user’s is not found / 403)',
  // Administration: roles (issue 11). Roles are the tenant's, placed in no branch.
  'POST /v1/roles': 'roles.edit: the tenant’s roles, no branch data',
  'POST /v1/strategies/:id/originations':
    'strategies.strategies.implement: a tenant-wide run of a live strategy over every customer, not one branch’s object',
  'PATCH /v1/roles/:id': 'roles.edit: the tenant’s roles, no branch data',
  'DELETE /v1/roles/:id': 'roles.edit: the tenant’s roles, no branch data',
  'POST /v1/strategies': 'strategies: the tenant’s lending strategies, placed in no branch',
  'PUT /v1/strategies/:id/draft': 'strategies: the tenant’s lending strategies, placed in no branch',
  'POST /v1/strategies/:id/simulations': 'strategies: the tenant’s lending strategies, placed in no branch',
  'POST /v1/strategies/:id/provider-validation': 'strategies: the tenant’s lending strategies, placed in no branch',
  'POST /v1/strategies/:id/client-validation': 'strategies: the tenant’s lending strategies, placed in no branch',
  'POST /v1/strategies/:id/implementation': 'strategies: the tenant’s lending strategies, placed in no branch',
  'POST /v1/strategies/:id/live-validation': 'strategies: the tenant’s lending strategies, placed in no branch',
  'POST /v1/strategies/:id/deactivation': 'strategies: the tenant’s lending strategies, placed in no branch',
  'POST /v1/strategies/:id/reactivation': 'strategies: the tenant’s lending strategies, placed in no branch',
  'POST /strategies/list': 'strategies: the tenant’s lending strategies, placed in no branch',
  'POST /strategies/:id': 'strategies: the tenant’s lending strategies, placed in no branch',
  'POST /admin/user/roles/add': 'roles.edit: the tenant’s roles, no branch data',
  'POST /admin/user/roles/:id': 'roles.edit: the tenant’s roles, no branch data',
  // Administration › business: decision models (issue 12) are the tenant's policy, placed in no branch.
  'POST /v1/decision-models': 'decision_models.edit: the tenant’s models, no branch data',
  'PUT /v1/decision-models/:id': 'decision_models.edit: the tenant’s models, no branch data',
  'POST /v1/decision-models/:id/versions': 'decision_models.edit: the tenant’s models, no branch data',
  'PATCH /v1/decision-models/:id/versions/:version': 'decision_models.edit: the tenant’s models, no branch data',
  'POST /v1/decision-models/:id/evaluate': 'decision_models.view: a test run of the tenant’s model, no branch data',
  'POST /admin/business/decision-models': 'decision_models.edit: the tenant’s models, no branch data',
  // Application form builder and customized forms (issue 13, builder part).
  'POST /v1/application-forms': 'administrators only: the tenant’s application forms, no branch data',
  'PUT /v1/application-forms/:id': 'administrators only: the tenant’s application forms, no branch data',
  'DELETE /v1/application-forms/:id': 'administrators only: the tenant’s application forms, no branch data',
  'POST /v1/application-forms/:id/publish': 'administrators only: the tenant’s application forms, no branch data',
  'POST /v1/application-forms/:id/unpublish': 'administrators only: the tenant’s application forms, no branch data',
  // Issue 13, intake fixes: retry of a failed submission (the API and the submission page's button).
  'POST /v1/application-forms/:id/submissions/:submissionId/retry':
    'administrators only: the tenant’s form submissions, no branch data',
  'POST /admin/business/application-form/:id/submissions/:submissionId':
    'administrators only: the tenant’s form submissions, no branch data',
  // Issue 14, tasks and notifications.
  'POST /v1/notifications/read-all': 'marks the caller’s own notifications read, no branch data',
  'PUT /v1/customized-forms/:entity': 'administrators only: the tenant’s customized fields, no branch data',
  'POST /admin/business/application-form': 'administrators only: the tenant’s application forms, no branch data',
  // Decision engine (issue 12): administrators only; a binding is the tenant's, placed in no branch.
  'POST /v1/decision-bindings': 'administrators only: the tenant’s decision-engine configuration, no branch data',
  'PATCH /v1/decision-bindings/:id': 'administrators only: the tenant’s decision-engine configuration, no branch data',
  'POST /v1/decision-bindings/:id/test':
    'administrators only (unrestricted scope); stores nothing, the customer is still loaded through the scope',
  'POST /admin/business/decision-engine/:id': 'administrators only: the tenant’s decision-engine configuration',
  // Admin platform (issue 11): tenant-wide administration, no branch data.
  'PUT /v1/translation-overrides/:lng/:ns/:key': 'admin.translations.edit: the tenant’s UI texts, no branch data',
  'DELETE /v1/translation-overrides/:lng/:ns/:key': 'admin.translations.edit: the tenant’s UI texts, no branch data',
  'POST /v1/translation-overrides/import': 'admin.translations.edit: the tenant’s UI texts, no branch data',
  'POST /admin/platform/translations': 'admin.translations.edit: the tenant’s UI texts, no branch data',
  'DELETE /v1/downloads/:id': 'admin.downloads.delete: generated files of the tenant, not placed in a branch',
  'POST /admin/platform/download/:id': 'admin.downloads.delete: generated files of the tenant, not placed in a branch',
  'POST /v1/plan-change-requests': 'administrators only: the tenant’s plan, no branch data',
  'POST /admin/plan-contracts/plan': 'administrators only: the tenant’s plan, no branch data',
  'POST /v1/contracts': 'admin.contracts.edit: the tenant’s service agreements, no branch data',
  'PATCH /v1/contracts/:id': 'admin.contracts.edit: the tenant’s service agreements, no branch data',
  'POST /v1/contracts/:id/status': 'admin.contracts.update: the tenant’s service agreements, no branch data',
  'PUT /v1/contracts/:id/document': 'admin.contracts.update: the tenant’s service agreements, no branch data',
  'POST /admin/plan-contracts/contracts':
    'admin.contracts.edit/update: the tenant’s service agreements, no branch data',
  // Admin › general settings (issue 11).
  'PATCH /v1/tenant-settings': 'the tenant’s own settings (admin.basic_settings.edit), no branch data',
  'POST /v1/tenant-settings/logo': 'the tenant’s logo (admin.basic_settings.edit), no branch data',
  'DELETE /v1/tenant-settings/logo': 'the tenant’s logo (admin.basic_settings.edit), no branch data',
  'POST /admin/platform/general-settings': 'the tenant’s own settings (admin.basic_settings.edit), no branch data',
  'POST /user/login': 'public sign-in form',
  'POST /user/mfa': 'the caller’s own second factor',
  'POST /user/reset-password': 'the caller’s own password',
  // Admin › users (issue 11): staff accounts, not branch data; a restricted granter may only give
  // data scopes inside their own (src/lib/users/rules.ts assertMayGrant).
  ...Object.fromEntries(
    [
      'POST /v1/users',
      'PATCH /v1/users/:id',
      'POST /v1/users/:id/invitation',
      'DELETE /v1/users/:id/mfa',
      'DELETE /v1/users/:id/sessions',
      'POST /admin/user/users/add',
      'POST /admin/user/users/edit/:id',
    ].map((route) => [route, 'user management (admin.users.edit): staff accounts, no branch data']),
  ),
  ...Object.fromEntries(
    ['loans', 'admin', 'analytics', 'strategies'].map((s) => [
      `POST /${s}/user/profile`,
      'the caller’s own profile (name, language)',
    ]),
  ),
  ...Object.fromEntries(
    ['customers', 'offers', 'loans', 'collaterals', 'payments'].flatMap((list) => [
      [`POST /loans/${list}/add-custom-view`, 'the caller’s own saved list view'],
      [`POST /loans/${list}/update-custom-view/:id`, 'the caller’s own saved list view'],
    ]),
  ),
};

/** Another branch's objects and nodes (LYO-01 in the demo tenant), found or made by the administrator. */
export type ForeignIds = {
  customerId: string;
  loanId: string;
  transactionId: string;
  offerId: string;
  applicationId: string;
  applicationLoanId: string;
  collateralId: string;
  fileId: string;
  branchId: string;
  officerId: string;
  regionId: string;
  ownCollateralId: string;
  ownCustomerId: string;
};

/** One hostile request. `expect`: the refusals accepted (404 = not found through the scope, 403 = placement or permission). */
export type Probe = {
  method: MutatingMethod;
  path: string;
  json?: unknown;
  form?: Record<string, string>;
  raw?: { body: string; contentType: string };
  headers?: Record<string, string>;
  expect: readonly number[];
};

/**
 * Spellings of another branch's uuid that Postgres would still read as that uuid: they must be
 * refused like the plain one, never reach the object.
 */
export function idSpellings(id: string): string[] {
  return [id, id.toUpperCase(), `{${id}}`, id.replace(/-/g, ''), encodeURIComponent(` ${id}`)];
}

/** Placement values another branch's officer could try: nodes outside PAR-01, another tenant's, unknown, codes. */
export function placementValues(ids: ForeignIds): string[] {
  return [
    ids.branchId,
    ids.officerId,
    ids.regionId,
    ids.branchId.toUpperCase(),
    '00000000-0000-4000-8000-000000000000',
    'LYO-01',
    "' or '1'='1",
  ];
}

const key = (n: number) => `scope-${Date.now()}-${n}-${Math.random().toString(36).slice(2, 8)}`;
const money = (path: string, json: unknown, expect: readonly number[]): Probe => ({
  method: 'POST',
  path,
  json,
  headers: { 'Idempotency-Key': key(0) },
  expect,
});

/** The requests per route. Path ids use every spelling; bodies put foreign ids in every placement field. */
export const CASES: Record<string, (ids: ForeignIds) => Probe[]> = {
  'POST /v1/customers': (ids) => [
    ...placementValues(ids).flatMap((value): Probe[] => [
      {
        method: 'POST',
        path: '/v1/customers',
        json: { firstName: 'Probe', lastName: 'Scope', branchId: value },
        expect: [400, 403],
      },
      {
        method: 'POST',
        path: '/v1/customers',
        json: { firstName: 'Probe', lastName: 'Scope', officerId: value },
        expect: [400, 403],
      },
    ]),
    // A real foreign node, alone and next to the officer's own: always 403 naming the field.
    {
      method: 'POST',
      path: '/v1/customers',
      json: { firstName: 'Probe', lastName: 'Scope', branchId: ids.branchId, officerId: ids.officerId },
      expect: [403],
    },
  ],
  'POST /v1/customers/:id/opt-out': (ids) =>
    idSpellings(ids.customerId).map((id) => ({
      method: 'POST',
      path: `/v1/customers/${id}/opt-out`,
      json: { reason: 'probe' },
      expect: [404],
    })),
  // Customized fields (issue 13): another branch's customer is not found.
  'PATCH /v1/customers/:id': (ids) =>
    idSpellings(ids.customerId).map((id) => ({
      method: 'PATCH',
      path: `/v1/customers/${id}`,
      json: { customFields: {} },
      expect: [404],
    })),
  'POST /v1/customers/:id/opt-in': (ids) =>
    idSpellings(ids.customerId).map((id) => ({
      method: 'POST',
      path: `/v1/customers/${id}/opt-in`,
      json: { reason: 'probe' },
      expect: [404],
    })),
  // Forcing eligibility (issue 12): another branch's customer is not found (403 for a prober without the key).
  'POST /v1/customers/:id/eligibility-overrides': (ids) =>
    idSpellings(ids.customerId).map((id) => ({
      method: 'POST',
      path: `/v1/customers/${id}/eligibility-overrides`,
      json: { reason: 'probe reason' },
      expect: [403, 404],
    })),
  'POST /v1/customers/:id/files': (ids) =>
    idSpellings(ids.customerId).map((id) => ({
      method: 'POST',
      path: `/v1/customers/${id}/files?kind=document&name=probe.txt`,
      raw: { body: 'probe', contentType: 'multipart/form-data; boundary=x' },
      expect: [404],
    })),
  'POST /v1/customers/:id/bank-statements': (ids) =>
    idSpellings(ids.customerId).map((id) => ({
      method: 'POST',
      path: `/v1/customers/${id}/bank-statements?name=probe.csv`,
      raw: { body: 'date,amount\n2020-01-02,10.00\n', contentType: 'multipart/form-data; boundary=x' },
      expect: [404],
    })),
  'POST /v1/applications': (ids) =>
    [ids.customerId, ids.customerId.toUpperCase(), '00000000-0000-4000-8000-000000000000'].flatMap(
      (customerId): Probe[] => [
        {
          method: 'POST',
          path: '/v1/applications',
          json: {
            customerId,
            productId: '{{productId}}',
            principal: '{{principal}}',
            numberOfRepayments: '{{repayments}}',
          },
          expect: [403, 404],
        },
        // Another branch's offer, with the officer's own customer.
        {
          method: 'POST',
          path: '/v1/applications',
          json: {
            customerId: ids.ownCustomerId,
            offerId: ids.offerId,
            productId: '{{productId}}',
            principal: '{{principal}}',
            numberOfRepayments: '{{repayments}}',
          },
          expect: [404],
        },
      ],
    ),
  'PATCH /v1/applications/:id': (ids) =>
    idSpellings(ids.applicationId).map((id) => ({
      method: 'PATCH',
      path: `/v1/applications/${id}`,
      json: { principal: '{{principal}}', numberOfRepayments: '{{repayments}}' },
      expect: [404],
    })),
  'POST /v1/applications/:id/approve': (ids) =>
    idSpellings(ids.applicationId).map((id) => money(`/v1/applications/${id}/approve`, {}, [403, 404])),
  'POST /v1/applications/:id/reject': (ids) =>
    idSpellings(ids.applicationId).map((id) => money(`/v1/applications/${id}/reject`, {}, [403, 404])),
  'POST /v1/applications/:id/review-decision': (ids) =>
    idSpellings(ids.applicationId).map((id) => ({
      method: 'POST',
      path: `/v1/applications/${id}/review-decision`,
      json: {},
      expect: [403, 404],
    })),
  'POST /v1/applications/:id/withdraw': (ids) =>
    idSpellings(ids.applicationId).map((id) => money(`/v1/applications/${id}/withdraw`, {}, [404])),
  'POST /v1/offers/:id/notify': (ids) =>
    idSpellings(ids.offerId).map((id) => ({
      method: 'POST',
      path: `/v1/offers/${id}/notify`,
      json: { Channel: 'Message' },
      expect: [404],
    })),
  'POST /v1/offers/:id/reject': (ids) =>
    idSpellings(ids.offerId).map((id) => ({
      method: 'POST',
      path: `/v1/offers/${id}/reject`,
      json: { reason: 'probe' },
      expect: [404],
    })),
  'POST /v1/offers/:id/request': (ids) =>
    idSpellings(ids.offerId).map((id) => money(`/v1/offers/${id}/request`, {}, [404])),
  'POST /v1/loans/:id/repayments': (ids) =>
    idSpellings(ids.loanId).map((id) => money(`/v1/loans/${id}/repayments`, { amount: '1.00' }, [404])),
  'POST /v1/loans/:id/disbursements': (ids) =>
    idSpellings(ids.applicationLoanId).map((id) => money(`/v1/loans/${id}/disbursements`, {}, [404])),
  'POST /v1/loans/:id/tranches': (ids) =>
    idSpellings(ids.applicationLoanId).map((id) =>
      money(`/v1/loans/${id}/tranches`, { tranches: [{ date: '2026-01-15', amount: '1.00' }] }, [404]),
    ),
  'POST /v1/loans/:id/tranche-disbursements': (ids) =>
    idSpellings(ids.loanId).map((id) => money(`/v1/loans/${id}/tranche-disbursements`, {}, [404])),
  'POST /v1/loans/:id/charges': (ids) => [
    money(`/v1/loans/${ids.loanId}/charges`, { kind: 'fee', amount: '1.00', installmentNumber: 1 }, [403, 404]),
  ],
  'POST /v1/loans/:id/credit-refunds': (ids) => [
    money(`/v1/loans/${ids.loanId}/credit-refunds`, { amount: '1.00' }, [403, 404]),
  ],
  'POST /v1/loans/:id/waivers': (ids) => [money(`/v1/loans/${ids.loanId}/waivers`, { interest: '1.00' }, [403, 404])],
  'POST /v1/loans/:id/write-offs': (ids) => [money(`/v1/loans/${ids.loanId}/write-offs`, {}, [403, 404])],
  'POST /v1/loans/:id/transactions/:transactionId/reversals': (ids) => [
    money(`/v1/loans/${ids.loanId}/transactions/${ids.transactionId}/reversals`, {}, [403, 404]),
  ],
  'POST /v1/loans/:id/re-ages': (ids) => [
    money(
      `/v1/loans/${ids.loanId}/re-ages`,
      { startDate: '2030-01-01', frequencyType: 'MONTHS', frequencyNumber: 1, numberOfInstallments: 2 },
      [403, 404],
    ),
  ],
  'POST /v1/loans/:id/re-ages/undo': (ids) => [money(`/v1/loans/${ids.loanId}/re-ages/undo`, {}, [403, 404])],
  'POST /v1/loans/:id/re-amortizations': (ids) => [money(`/v1/loans/${ids.loanId}/re-amortizations`, {}, [403, 404])],
  'POST /v1/loans/:id/re-amortizations/undo': (ids) => [
    money(`/v1/loans/${ids.loanId}/re-amortizations/undo`, {}, [403, 404]),
  ],
  'POST /v1/loans/:id/reschedule-requests': (ids) =>
    idSpellings(ids.loanId).map((id) =>
      money(`/v1/loans/${id}/reschedule-requests`, { rescheduleFromDate: '2030-01-01', extraTerms: 1 }, [403, 404]),
    ),
  // No request of another branch's loan is at hand: an unknown one on that loan must still be refused
  // through the loan's scope (404), never reach the command.
  'POST /v1/loans/:id/reschedule-requests/:requestId/approve': (ids) => [
    money(`/v1/loans/${ids.loanId}/reschedule-requests/00000000-0000-4000-8000-000000000017/approve`, {}, [403, 404]),
  ],
  'POST /v1/loans/:id/reschedule-requests/:requestId/reject': (ids) => [
    money(`/v1/loans/${ids.loanId}/reschedule-requests/00000000-0000-4000-8000-000000000017/reject`, {}, [403, 404]),
  ],
  'POST /v1/loans/:id/installment-variations': (ids) =>
    idSpellings(ids.applicationLoanId).map((id) => ({
      method: 'POST',
      path: `/v1/loans/${id}/installment-variations`,
      json: { variations: [], preview: true },
      expect: [404],
    })),
  'POST /v1/exports': (ids) =>
    [ids.branchId, 'LYO-01', ids.regionId, ids.officerId].flatMap((node): Probe[] =>
      ['customers', 'loans', 'offers', 'collaterals', 'payments', 'loan-applications'].map((list) => ({
        method: 'POST',
        path: '/v1/exports',
        json: {
          list,
          query: `scope=${node === ids.regionId ? 'region' : node === ids.officerId ? 'officer' : 'branch'}:${node}`,
          format: 'csv',
        },
        expect: [403, 404],
      })),
    ),
  'POST /loans/customers/add': (ids) =>
    placementValues(ids).map((value, i) => ({
      // The form has no placement field: extra ones are ignored and the customer lands in the officer's own branch (checked by the spec).
      method: 'POST',
      path: '/loans/customers/add',
      form: {
        firstName: 'Probe',
        lastName: `Extra${'ABCDEFGHIJ'[i]}`,
        nationalId: `SCOPE${Date.now()}${i}`,
        branchId: value,
        officerId: value,
        regionId: value,
        tenantId: 'acme',
        opt_in_status: 'opted_out',
      },
      expect: [303],
    })),
  'POST /loans/collaterals/new/:customerId': (ids) =>
    idSpellings(ids.customerId).map((id) => ({
      method: 'POST',
      path: `/loans/collaterals/new/${id}`,
      form: { type: 'vehicle', description: 'probe', value: '1.00', valuationDate: '2020-01-01' },
      expect: [404],
    })),
  'POST /loans/collaterals/:id': (ids) => [
    ...idSpellings(ids.collateralId).flatMap((id): Probe[] => [
      {
        method: 'POST',
        path: `/loans/collaterals/${id}`,
        form: { type: 'vehicle', description: 'probe', value: '1.00', valuationDate: '2020-01-01' },
        expect: [404],
      },
      { method: 'POST', path: `/loans/collaterals/${id}`, form: { _action: 'delete' }, expect: [404] },
      {
        method: 'POST',
        path: `/loans/collaterals/${id}`,
        form: { _action: 'link', loanId: ids.loanId },
        expect: [404],
      },
    ]),
    // The officer's own collateral pledged to another branch's loan.
    {
      method: 'POST',
      path: `/loans/collaterals/${ids.ownCollateralId}`,
      form: { _action: 'link', loanId: ids.loanId },
      expect: [400, 404],
    },
  ],
  'POST /loans/loan-applications/edit/:customerId/:loanId': (ids) => [
    ...idSpellings(ids.applicationLoanId).map((id): Probe => ({
      method: 'POST',
      path: `/loans/loan-applications/edit/${ids.customerId}/${id}`,
      form: { principal: '{{principal}}', numberOfRepayments: '{{repayments}}', version: '1' },
      expect: [404],
    })),
    {
      method: 'POST',
      path: `/loans/loan-applications/edit/${ids.ownCustomerId}/${ids.applicationLoanId}`,
      form: { principal: '{{principal}}', numberOfRepayments: '{{repayments}}', version: '1' },
      expect: [404],
    },
  ],
  ...Object.fromEntries(
    ['customers', 'offers', 'loans', 'collaterals', 'payments', 'loan-applications'].map((list) => [
      `POST /loans/${list}`,
      (ids: ForeignIds): Probe[] =>
        [ids.branchId, 'LYO-01', ids.regionId].map((node) => ({
          method: 'POST',
          path: `/loans/${list}`,
          form: {
            _action: 'export',
            format: 'csv',
            query: `scope=${node === ids.regionId ? 'region' : 'branch'}:${node}`,
          },
          expect: [403],
        })),
    ]),
  ),
  // ── Issue 14, collection ──
  // officer@demo.test holds neither loans.collection.view nor loans.tasks.manage: 403 before the scope; the
  // scope itself (another branch's loan → 404) is proven by tests/integration/team-collection.test.ts.
  ...Object.fromEntries(
    (
      [
        ['contacts', { channel: 'phone', outcome: 'reached', note: 'probe' }],
        ['promises', { date: '2099-01-01', amount: '1.00' }],
        ['callbacks', { at: '2099-01-01T10:00' }],
        ['messages', { templateId: '00000000-0000-4000-8000-000000000000' }],
        ['assignment', { collectorId: '00000000-0000-4000-8000-000000000000' }],
        ['take', {}],
      ] as const
    ).map(([action, json]) => [
      `POST /v1/collection/cases/:loanId/${action}`,
      (ids: ForeignIds): Probe[] =>
        idSpellings(ids.loanId).map((id) => ({
          method: 'POST',
          path: `/v1/collection/cases/${id}/${action}`,
          json,
          expect: [403, 404],
        })),
    ]),
  ),
  'POST /loans/collection': (ids) =>
    (['contact', 'promise', 'callback', 'take'] as const).map((action) => ({
      method: 'POST',
      path: `/loans/collection?loan=${ids.loanId}`,
      form: { _action: action, channel: 'phone', outcome: 'reached', date: '2099-01-01', amount: '1.00' },
      expect: [403, 404],
    })),
  // closewf: tenant-wide collection settings (no branch data); the one-branch officer holds none of
  // admin.collection_workflow.* nor ADMIN (403), and an id that is not this tenant's is a 404.
  'POST /v1/close-of-business': () => [
    { method: 'POST', path: '/v1/close-of-business', json: { until: '2999-01-01' }, expect: [403] },
  ],
  'POST /v1/collection-workflows': () => [
    {
      method: 'POST',
      path: '/v1/collection-workflows',
      json: { name: 'Probe', bucketId: '00000000-0000-4000-8000-00000000c0fe', steps: [] },
      expect: [403],
    },
  ],
  'PATCH /v1/collection-workflows/:id': () =>
    idSpellings('00000000-0000-4000-8000-00000000c0fe').map((id): Probe => ({
      method: 'PATCH',
      path: `/v1/collection-workflows/${id}`,
      json: { enabled: false },
      expect: [403, 404],
    })),
  'DELETE /v1/collection-workflows/:id': () =>
    idSpellings('00000000-0000-4000-8000-00000000c0fe').map((id): Probe => ({
      method: 'DELETE',
      path: `/v1/collection-workflows/${id}`,
      expect: [403, 404],
    })),
  'PUT /v1/collection/buckets': () => [
    {
      method: 'PUT',
      path: '/v1/collection/buckets',
      json: { buckets: [{ name: 'All', minDays: 1, maxDays: null }] },
      expect: [403],
    },
  ],
  'PUT /v1/collection/priority': () => [
    {
      method: 'PUT',
      path: '/v1/collection/priority',
      json: { weightAmount: 0, weightDays: 0, weightBrokenPromises: 0 },
      expect: [403],
    },
  ],
  'POST /admin/business/collection-workflow': (): Probe[] => [
    {
      method: 'POST',
      path: '/admin/business/collection-workflow',
      form: { _action: 'buckets', 'buckets.0.name': 'All', 'buckets.0.minDays': '1' },
      expect: [403],
    },
    {
      method: 'POST',
      path: '/admin/business/collection-workflow',
      form: { _action: 'priority', weightAmount: '0', weightDays: '0', weightBrokenPromises: '0' },
      expect: [403],
    },
  ],
  'POST /admin/business/collection-workflow/new': () => [
    {
      method: 'POST',
      path: '/admin/business/collection-workflow/new',
      form: { name: 'Probe', bucketId: '00000000-0000-4000-8000-00000000c0fe' },
      expect: [403],
    },
  ],
  'POST /admin/business/collection-workflow/:id': () =>
    idSpellings('00000000-0000-4000-8000-00000000c0fe').flatMap((id): Probe[] => [
      {
        method: 'POST',
        path: `/admin/business/collection-workflow/${id}`,
        form: { name: 'Probe' },
        expect: [403, 404],
      },
      {
        method: 'POST',
        path: `/admin/business/collection-workflow/${id}`,
        form: { _action: 'delete' },
        expect: [403, 404],
      },
    ]),

  // ── Issue 14, tasks ──
  // A task is linked only to objects of the caller's scope (404 naming the field) and given only to a
  // team of the caller's scope (403); another branch's ids are no task of theirs (404).
  'POST /v1/tasks': (ids): Probe[] => [
    ...(
      [
        ['customerId', ids.customerId],
        ['loanId', ids.loanId],
        ['applicationId', ids.applicationId],
        ['offerId', ids.offerId],
      ] as const
    ).map(([field, id]): Probe => ({
      method: 'POST',
      path: '/v1/tasks',
      json: { title: 'probe', [field]: id },
      expect: [404],
    })),
    { method: 'POST', path: '/v1/tasks', json: { title: 'probe', assigneeNodeId: ids.branchId }, expect: [403] },
  ],
  'PATCH /v1/tasks/:id': (ids) =>
    idSpellings(ids.loanId).map((id) => ({
      method: 'PATCH',
      path: `/v1/tasks/${id}`,
      json: { expectedRevision: 1, title: 'probe' },
      expect: [404],
    })),
  'DELETE /v1/tasks/:id': (ids) =>
    idSpellings(ids.loanId).map((id) => ({ method: 'DELETE', path: `/v1/tasks/${id}`, expect: [403, 404] })),
  'POST /v1/tasks/:id/assignment': (ids) =>
    idSpellings(ids.loanId).map((id) => ({
      method: 'POST',
      path: `/v1/tasks/${id}/assignment`,
      json: { assigneeNodeId: ids.branchId },
      expect: [403, 404],
    })),
  'POST /v1/tasks/:id/completion': (ids) =>
    idSpellings(ids.loanId).map((id) => ({
      method: 'POST',
      path: `/v1/tasks/${id}/completion`,
      json: {},
      expect: [404],
    })),
  'POST /v1/notifications/:id/read': (ids) =>
    idSpellings(ids.customerId).map((id) => ({
      method: 'POST',
      path: `/v1/notifications/${id}/read`,
      json: {},
      expect: [404],
    })),
  'POST /loans/tasks': (ids): Probe[] => [
    { method: 'POST', path: '/loans/tasks', form: { _action: 'complete', id: ids.loanId }, expect: [404] },
    {
      method: 'POST',
      path: '/loans/tasks',
      form: { _action: 'start', id: ids.loanId, expectedRevision: '1' },
      expect: [404],
    },
  ],
  'POST /loans/tasks/new': (ids): Probe[] => [
    { method: 'POST', path: '/loans/tasks/new', form: { title: 'probe', loanId: ids.loanId }, expect: [404] },
    { method: 'POST', path: '/loans/tasks/new', form: { title: 'probe', customerId: ids.customerId }, expect: [404] },
    {
      method: 'POST',
      path: '/loans/tasks/new',
      form: { title: 'probe', assignee: `team:${ids.branchId}` },
      expect: [403],
    },
  ],
  'POST /loans/tasks/edit/:id': (ids) =>
    idSpellings(ids.loanId).map((id) => ({
      method: 'POST',
      path: `/loans/tasks/edit/${id}`,
      form: { _action: 'update', title: 'probe', expectedRevision: '1' },
      expect: [404],
    })),

  // ── Issue 14, conversations ──
  'POST /v1/conversations': (ids) =>
    idSpellings(ids.customerId).map((customerId): Probe => ({
      method: 'POST',
      path: '/v1/conversations',
      json: { customerId, channel: 'email', purpose: 'service', subject: 'Probe', body: 'Probe' },
      expect: [400, 404],
    })),
  'POST /v1/conversations/:id/messages': (ids) =>
    [ids.customerId, ids.loanId, '00000000-0000-4000-8000-000000000000'].map((id): Probe => ({
      method: 'POST',
      path: `/v1/conversations/${id}/messages`,
      json: { kind: 'note', body: 'Probe' },
      expect: [404],
    })),
  'POST /v1/conversations/:id/read': (ids) =>
    [ids.customerId, ids.loanId].map((id): Probe => ({
      method: 'POST',
      path: `/v1/conversations/${id}/read`,
      json: {},
      expect: [404],
    })),
  'POST /loans/conversations/new': (ids) => [
    {
      method: 'POST',
      path: '/loans/conversations/new',
      form: { customerId: ids.customerId, channel: 'email', purpose: 'service', subject: 'Probe', body: 'Probe' },
      expect: [404],
    },
  ],

  // ── Issue 15, analytics: list-export queries and datasets ──
  // The one-branch officer holds no analytics key: the guard refuses (403); a holder of the key who
  // names an id that is not a query of the tenant (another tenant's, a loan's) gets 404.
  'POST /v1/analytics/queries': (ids) => [
    {
      method: 'POST',
      path: '/v1/analytics/queries',
      json: { name: 'probe', definition: { dataset: 'loans', scope: `branch:${ids.branchId}` } },
      expect: [403],
    },
  ],
  'POST /v1/analytics/queries/results': (ids) => [
    {
      method: 'POST',
      path: '/v1/analytics/queries/results',
      json: { definition: { dataset: 'loans', scope: `branch:${ids.branchId}` } },
      expect: [403],
    },
  ],
  'PUT /v1/analytics/queries/:id': (ids) =>
    idSpellings(ids.loanId).map((id): Probe => ({
      method: 'PUT',
      path: `/v1/analytics/queries/${id}`,
      json: { name: 'probe', revision: 1, definition: { dataset: 'loans' } },
      expect: [403, 404],
    })),
  'DELETE /v1/analytics/queries/:id': (ids) =>
    idSpellings(ids.loanId).map((id): Probe => ({
      method: 'DELETE',
      path: `/v1/analytics/queries/${id}`,
      expect: [403, 404],
    })),
  'POST /v1/analytics/queries/:id/export': (ids) =>
    idSpellings(ids.loanId).map((id): Probe => ({
      method: 'POST',
      path: `/v1/analytics/queries/${id}/export`,
      json: { format: 'csv' },
      expect: [403, 404],
    })),
  'POST /analytics/queries/new': (ids) => [
    {
      method: 'POST',
      path: '/analytics/queries/new',
      form: { _action: 'save', name: 'probe', dataset: 'loans', scope: `branch:${ids.branchId}` },
      expect: [403],
    },
  ],
  'POST /analytics/queries/:id': (ids) =>
    idSpellings(ids.loanId).map((id): Probe => ({
      method: 'POST',
      path: `/analytics/queries/${id}`,
      form: { _action: 'delete', revision: '1' },
      expect: [403, 404],
    })),
  'POST /analytics/queries/new/results': (ids) => [
    {
      method: 'POST',
      path: '/analytics/queries/new/results',
      form: { _action: 'export', format: 'csv', dataset: 'loans', scope: `branch:${ids.branchId}` },
      expect: [403],
    },
  ],
  'POST /analytics/queries/:id/results': (ids) =>
    idSpellings(ids.loanId).map((id): Probe => ({
      method: 'POST',
      path: `/analytics/queries/${id}/results`,
      form: { _action: 'export', format: 'csv' },
      expect: [403, 404],
    })),

  // ── Issue 15, analytics: custom metrics and reports ──
  // The officer holds no analytics key: every write is refused by the guard (403) before any id is
  // read; with an analytics key the rows are still read through the viewer's scope (aggregate.ts).
  'POST /v1/analytics/metrics': () => [
    {
      method: 'POST',
      path: '/v1/analytics/metrics',
      json: {
        type: 'count',
        name: 'probe',
        labelEn: 'P',
        labelFr: 'P',
        dataset: 'loans',
        filters: {},
        format: 'number',
      },
      expect: [403],
    },
  ],
  'POST /v1/analytics/metrics/preview': (ids) => [
    {
      method: 'POST',
      path: `/v1/analytics/metrics/preview?scope=branch:${ids.branchId}`,
      json: { type: 'count', dataset: 'loans', filters: {}, format: 'number' },
      expect: [403],
    },
  ],
  'PUT /v1/analytics/metrics/:type/:name': () => [
    { method: 'PUT', path: '/v1/analytics/metrics/count/probe', json: { name: 'probe' }, expect: [403] },
  ],
  'DELETE /v1/analytics/metrics/:type/:name': () => [
    { method: 'DELETE', path: '/v1/analytics/metrics/count/probe', expect: [403] },
  ],
  'POST /v1/analytics/reports': () => [
    {
      method: 'POST',
      path: '/v1/analytics/reports',
      json: { name: 'probe', dataset: 'loans', filters: {}, rows: 'branch', measures: [{ fn: 'count' }] },
      expect: [403],
    },
  ],
  'PUT /v1/analytics/reports/:id': (ids) =>
    idSpellings(ids.loanId).map((id): Probe => ({
      method: 'PUT',
      path: `/v1/analytics/reports/${id}`,
      json: { name: 'probe' },
      expect: [403],
    })),
  'DELETE /v1/analytics/reports/:id': (ids) =>
    idSpellings(ids.loanId).map((id): Probe => ({
      method: 'DELETE',
      path: `/v1/analytics/reports/${id}`,
      expect: [403],
    })),
  'POST /analytics/metrics-config/add/:metric_type': () => [
    {
      method: 'POST',
      path: '/analytics/metrics-config/add/count',
      form: { _action: 'save', name: 'probe', labelEn: 'P', labelFr: 'P', dataset: 'loans', format: 'number' },
      expect: [403],
    },
  ],
  'POST /analytics/metrics-config/:metric_type/:metric_name': () => [
    { method: 'POST', path: '/analytics/metrics-config/count/probe', form: { _action: 'save' }, expect: [403] },
  ],
  'POST /analytics/reports/add': (ids) => [
    {
      method: 'POST',
      path: '/analytics/reports/add',
      form: { _action: 'save', name: 'probe', dataset: 'loans', 'f.branch': ids.branchId, rows: 'branch', m0: 'count' },
      expect: [403],
    },
  ],
  'POST /analytics/reports/:reportId': (ids) =>
    idSpellings(ids.loanId).map((id): Probe => ({
      method: 'POST',
      path: `/analytics/reports/${id}`,
      form: { _action: 'save', name: 'probe' },
      expect: [403],
    })),
  // Issue 16, days off: tenant settings that move loans of every branch; a branch officer has no
  // admin.days_off.* key, so each write is refused before its input is read.
  'POST /v1/days-off/holidays': (ids) => [
    {
      method: 'POST',
      path: '/v1/days-off/holidays',
      json: { name: 'probe', from: '2030-01-01', to: '2030-01-01', branchId: ids.branchId },
      expect: [403],
    },
  ],
  'PATCH /v1/days-off/holidays/:id': (ids) =>
    idSpellings(ids.loanId).map((id): Probe => ({
      method: 'PATCH',
      path: `/v1/days-off/holidays/${id}`,
      json: { name: 'probe' },
      expect: [403],
    })),
  'DELETE /v1/days-off/holidays/:id': (ids) =>
    idSpellings(ids.loanId).map((id): Probe => ({
      method: 'DELETE',
      path: `/v1/days-off/holidays/${id}`,
      expect: [403],
    })),
  'PUT /v1/days-off/weekdays': (ids) => [
    { method: 'PUT', path: '/v1/days-off/weekdays', json: { weekdays: [6], branchId: ids.branchId }, expect: [403] },
  ],
  'PUT /v1/days-off/rule': () => [
    { method: 'PUT', path: '/v1/days-off/rule', json: { rule: 'SAME_DAY' }, expect: [403] },
  ],
  'POST /v1/days-off/import': () => [
    {
      method: 'POST',
      path: '/v1/days-off/import',
      json: { format: 'csv', content: 'name,from,to\nprobe,2030-01-01,2030-01-01', dryRun: false },
      expect: [403],
    },
  ],
  'POST /v1/days-off/apply': () => [
    { method: 'POST', path: '/v1/days-off/apply', json: { dryRun: false }, expect: [403] },
  ],
  'POST /admin/data/days-off': () => [
    { method: 'POST', path: '/admin/data/days-off', form: { _action: 'rule', rule: 'SAME_DAY' }, expect: [403] },
  ],
  'POST /admin/data/days-off/holidays/add': (ids) => [
    {
      method: 'POST',
      path: '/admin/data/days-off/holidays/add',
      form: { name: 'probe', from: '2030-01-01', to: '2030-01-01', branchId: ids.branchId },
      expect: [403],
    },
  ],
  'POST /admin/data/days-off/holidays/edit/:id': (ids) =>
    idSpellings(ids.loanId).map((id): Probe => ({
      method: 'POST',
      path: `/admin/data/days-off/holidays/edit/${id}`,
      form: { name: 'probe' },
      expect: [403],
    })),
  'POST /admin/data/days-off/import': () => [
    {
      method: 'POST',
      path: '/admin/data/days-off/import',
      form: { _action: 'import', format: 'csv', content: 'name,from,to\nprobe,2030-01-01,2030-01-01' },
      expect: [403],
    },
  ],
  'POST /admin/data/days-off/apply': () => [
    { method: 'POST', path: '/admin/data/days-off/apply', form: { fingerprint: 'x' }, expect: [403] },
  ],
  // Issue 16, webhooks: tenant-wide settings behind admin.webhooks.edit, which the officer lacks (403).
  ...webhookCases(),
  // Event sinks (issue 16): tenant-wide settings behind admin.events.edit, which the officer lacks.
  'POST /v1/event-sinks': () => [
    {
      method: 'POST',
      path: '/v1/event-sinks',
      json: { type: 'postgres', name: 'probe', connectionString: 'postgres://u:p@203.0.113.9/db' },
      expect: [403],
    },
  ],
  'PATCH /v1/event-sinks/:id': (ids) =>
    idSpellings(ids.loanId).map((id): Probe => ({
      method: 'PATCH',
      path: `/v1/event-sinks/${id}`,
      json: { name: 'probe' },
      expect: [403],
    })),
  'DELETE /v1/event-sinks/:id': (ids) =>
    idSpellings(ids.loanId).map((id): Probe => ({ method: 'DELETE', path: `/v1/event-sinks/${id}`, expect: [403] })),
  ...Object.fromEntries(
    ['pause', 'resume', 'replay', 'test'].map((verb) => [
      `POST /v1/event-sinks/:id/${verb}`,
      (ids: ForeignIds) =>
        idSpellings(ids.loanId).map((id): Probe => ({
          method: 'POST',
          path: `/v1/event-sinks/${id}/${verb}`,
          json: verb === 'replay' ? { since: '2026-01-01T00:00:00Z' } : {},
          expect: [403],
        })),
    ]),
  ),
  'POST /admin/notifications/events/:database_type/add': () =>
    ['postgres', 'bigquery', 'fineract'].map((type): Probe => ({
      method: 'POST',
      path: `/admin/notifications/events/${type}/add`,
      form: { name: 'probe', events: '*' },
      expect: [403],
    })),
  'POST /admin/notifications/events/:database_type/:id': (ids) =>
    idSpellings(ids.loanId).map((id): Probe => ({
      method: 'POST',
      path: `/admin/notifications/events/postgres/${id}`,
      form: { _action: 'delete' },
      expect: [403],
    })),
  // Issue 16, scheduled exports: an export of the loans list filtered on another branch, and another
  // branch's ids as the export's id; the officer holds no admin.scheduled_exports key (403).
  'POST /v1/scheduled-exports': (ids) => [
    {
      method: 'POST',
      path: '/v1/scheduled-exports',
      json: {
        name: 'probe',
        source: { kind: 'list', list: 'loans', filters: { branch: ids.branchId } },
        format: 'csv',
        cron: '0 6 * * *',
        targets: { downloads: true },
      },
      expect: [403],
    },
  ],
  'PATCH /v1/scheduled-exports/:id': (ids) =>
    idSpellings(ids.loanId).map((id): Probe => ({
      method: 'PATCH',
      path: `/v1/scheduled-exports/${id}`,
      json: { source: { kind: 'list', list: 'loans', filters: { branch: ids.branchId } } },
      expect: [403],
    })),
  'DELETE /v1/scheduled-exports/:id': (ids) =>
    idSpellings(ids.loanId).map((id): Probe => ({
      method: 'DELETE',
      path: `/v1/scheduled-exports/${id}`,
      expect: [403],
    })),
  'POST /v1/scheduled-exports/:id/run': (ids) =>
    idSpellings(ids.loanId).map((id): Probe => ({
      method: 'POST',
      path: `/v1/scheduled-exports/${id}/run`,
      json: {},
      expect: [403],
    })),
  'POST /admin/notifications/scheduled-exports/add': (ids) => [
    {
      method: 'POST',
      path: '/admin/notifications/scheduled-exports/add',
      form: {
        _action: 'save',
        name: 'probe',
        source: 'list:loans',
        filters: `branch=${ids.branchId}`,
        cron: '0 6 * * *',
        format: 'csv',
        toDownloads: 'on',
      },
      expect: [403],
    },
  ],
  'POST /admin/notifications/scheduled-exports/update/:id': (ids) =>
    idSpellings(ids.loanId).map((id): Probe => ({
      method: 'POST',
      path: `/admin/notifications/scheduled-exports/update/${id}`,
      form: { _action: 'run' },
      expect: [403],
    })),
  // Issue 16, data pages: starting a data-quality run needs admin.data_quality_check.view, which the officer lacks.
  'POST /v1/data-quality/runs': () => [{ method: 'POST', path: '/v1/data-quality/runs', json: {}, expect: [403] }],
  'POST /admin/data/data-quality-check': () => [
    { method: 'POST', path: '/admin/data/data-quality-check', form: { _action: 'run' }, expect: [403] },
  ],
  // Issue 16, data upload and import buckets: the officer has no admin.data_upload.* and is no
  // administrator; an import file naming another branch is refused by the guard before it is read.
  'POST /v1/data-imports': (ids) => [
    {
      method: 'POST',
      path: '/v1/data-imports?kind=customers&name=probe.csv',
      raw: {
        body: `--x\r\nContent-Disposition: form-data; name="file"; filename="p.csv"\r\nContent-Type: text/csv\r\n\r\nexternal_id,first_name,last_name,branch\nP1,A,B,${ids.branchId}\n\r\n--x--\r\n`,
        contentType: 'multipart/form-data; boundary=x',
      },
      expect: [403],
    },
  ],
  'POST /v1/data-imports/:id/dry-run': (ids) =>
    idSpellings(ids.loanId).map((id): Probe => ({
      method: 'POST',
      path: `/v1/data-imports/${id}/dry-run`,
      json: {},
      expect: [403],
    })),
  'POST /v1/data-imports/:id/commit': (ids) =>
    idSpellings(ids.loanId).map((id): Probe => ({
      method: 'POST',
      path: `/v1/data-imports/${id}/commit`,
      json: {},
      expect: [403],
    })),
  'POST /admin/data/data-upload': (ids) => [
    { method: 'POST', path: '/admin/data/data-upload', form: { _action: 'commit', id: ids.loanId }, expect: [403] },
  ],
  'POST /v1/import-buckets': () => [
    {
      method: 'POST',
      path: '/v1/import-buckets',
      json: { name: 'probe', type: 'sftp', kind: 'customers', host: 'example.com', username: 'u', secret: 's' },
      expect: [403],
    },
  ],
  'PATCH /v1/import-buckets/:id': (ids) => [
    { method: 'PATCH', path: `/v1/import-buckets/${ids.loanId}`, json: { name: 'probe' }, expect: [403] },
  ],
  'DELETE /v1/import-buckets/:id': (ids) => [
    { method: 'DELETE', path: `/v1/import-buckets/${ids.loanId}`, expect: [403] },
  ],
  'POST /v1/import-buckets/:id/check': (ids) => [
    { method: 'POST', path: `/v1/import-buckets/${ids.loanId}/check`, json: {}, expect: [403] },
  ],
  'POST /v1/import-buckets/:id/test': (ids) => [
    { method: 'POST', path: `/v1/import-buckets/${ids.loanId}/test`, json: {}, expect: [403] },
  ],
  'DELETE /v1/import-buckets/:id/host-key': (ids) => [
    { method: 'DELETE', path: `/v1/import-buckets/${ids.loanId}/host-key`, expect: [403] },
  ],
  'POST /admin/data/import-buckets': (ids) => [
    { method: 'POST', path: '/admin/data/import-buckets', form: { _action: 'check', id: ids.loanId }, expect: [403] },
  ],
  'POST /admin/data/import-buckets/add': () => [
    {
      method: 'POST',
      path: '/admin/data/import-buckets/add',
      form: { name: 'probe', type: 'sftp', kind: 'customers', host: 'example.com', username: 'u', secret: 's' },
      expect: [403],
    },
  ],
  'POST /admin/data/import-buckets/edit/:id': (ids) => [
    { method: 'POST', path: `/admin/data/import-buckets/edit/${ids.loanId}`, form: { name: 'probe' }, expect: [403] },
  ],
};

/** The webhook routes: the officer may neither add, change, rotate, test nor resend (403 before any lookup). */
function webhookCases(): Record<string, (ids: ForeignIds) => Probe[]> {
  const hook = '00000000-0000-4000-8000-00000000beef';
  const probe =
    (method: MutatingMethod, path: string, json?: unknown, form?: Record<string, string>) => (): Probe[] => [
      { method, path, ...(form ? { form } : { json: json ?? {} }), expect: [403] },
    ];
  const body = { url: 'https://example.com/hook', events: ['loan.repayment.created'] };
  return {
    'POST /v1/webhooks': probe('POST', '/v1/webhooks', body),
    'PATCH /v1/webhooks/:id': probe('PATCH', `/v1/webhooks/${hook}`, { enabled: false }),
    'DELETE /v1/webhooks/:id': probe('DELETE', `/v1/webhooks/${hook}`),
    'POST /v1/webhooks/:id/rotate-secret': probe('POST', `/v1/webhooks/${hook}/rotate-secret`),
    'POST /v1/webhooks/:id/test': probe('POST', `/v1/webhooks/${hook}/test`),
    'POST /v1/webhooks/:id/deliveries/:deliveryId/resend': probe(
      'POST',
      `/v1/webhooks/${hook}/deliveries/${hook}/resend`,
    ),
    'POST /admin/notifications/webhooks/add': probe('POST', '/admin/notifications/webhooks/add', undefined, {
      url: 'https://example.com/hook',
      events: 'loan.repayment.created',
    }),
    'POST /admin/notifications/webhooks/update/:id': probe(
      'POST',
      `/admin/notifications/webhooks/update/${hook}`,
      undefined,
      { _action: 'delete' },
    ),
  };
}

/** The customer profile's form posts, in every section: the dispatcher loads the customer through the scope first. */
const PROFILE = /^POST \/(loans|admin|analytics|strategies)\/customer\/profile\/:customerId(\/[a-z-]+)?(\/:loanId)?$/;

function profileCase(route: string): (ids: ForeignIds) => Probe[] {
  const pattern = route.slice('POST '.length);
  return (ids) => {
    const forms: Record<string, string>[] = [
      { status: 'opted_out', reason: 'probe' },
      { status: 'opted_in', reason: 'probe' },
      { _action: 'delete', fileId: ids.fileId },
    ];
    // 403 where the officer may not open the tab at all (the guard answers before the page).
    return idSpellings(ids.customerId)
      .slice(0, 3)
      .flatMap((id) =>
        forms.map((form): Probe => ({
          method: 'POST',
          path: pattern.replace(':customerId', id).replace(':loanId', ids.loanId),
          form,
          expect: [403, 404],
        })),
      );
  };
}

/** The probe of a mutating route, or undefined when it has none. */
export function caseFor(route: string): ((ids: ForeignIds) => Probe[]) | undefined {
  return CASES[route] ?? (PROFILE.test(route) ? profileCase(route) : undefined);
}
