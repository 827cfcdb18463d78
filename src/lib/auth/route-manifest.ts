/**
 * The one manifest of every page route (and of every /v1 route and method), read by the guard step
 * (src/server/middleware/guard.ts), the navigation and the action sets pages show
 * (src/lib/auth/allowed-actions.ts). Deny by default: a path that no entry matches is a 404. Every
 * page and every (API route, method) has exactly one Rule (src/lib/auth/permissions.ts): public,
 * signed-in, one permission key, or ADMIN. There are no subtree entries and no lists of alternatives;
 * tests/unit/permission-coverage.test.ts walks the page and endpoint files to keep it so.
 */
import {
  ADMIN,
  PUBLIC,
  SIGNED_IN,
  allows,
  need,
  type Area,
  type PermissionSubject,
  type Rule,
  type RuleKey,
} from './permissions.ts';

export const SECTIONS = ['root', 'admin', 'analytics', 'strategies', 'loans', 'auth', 'public'] as const;
export type Section = (typeof SECTIONS)[number];
/** The four sections with their own layout, 403 and 404 pages. */
export const LAYOUT_SECTIONS = ['admin', 'analytics', 'strategies', 'loans'] as const;
export type LayoutSection = (typeof LAYOUT_SECTIONS)[number];

export type RouteEntry = {
  /** Path pattern: static segments and `:param` segments, no trailing slash ('/' for home). */
  pattern: string;
  section: Section;
  /** Who may open it: public (auth pages, the public application form), any signed-in user, one key, or ADMIN. */
  rule: Rule;
  /** First-party page-view event name (analytics_events.name). */
  event: string;
};

/** A page: its pattern and rule (default: any signed-in user). A bare key is shorthand for need(key). */
type Def = [pattern: string, rule?: Rule | RuleKey];

function sectionOf(pattern: string): Section {
  const first = pattern.split('/')[1] ?? '';
  if (first === 'user') return 'auth';
  if (first === 'application') return 'public';
  return (LAYOUT_SECTIONS as readonly string[]).includes(first) ? (first as Section) : 'root';
}

/** 'page_view:' + the pattern with params named, e.g. 'page_view:/loans/tasks/edit/:id'. Stable and unique per route. */
function eventName(pattern: string): string {
  return `page_view:${pattern}`;
}

function entry([pattern, rule = SIGNED_IN]: Def): RouteEntry {
  return {
    pattern,
    section: sectionOf(pattern),
    rule: typeof rule === 'string' ? need(rule) : rule,
    event: eventName(pattern),
  };
}

/** The customer profile subpages with the permission each needs ('' = the profile itself). */
const CUSTOMER_PROFILE_SUBPAGES: [subpath: string, permission: RuleKey][] = [
  ['', 'customer.profile.view'],
  ['/resume', 'customer.profile.view'],
  ['/transaction-metrics', 'customer.profile.view'],
  ['/files', 'customer.files.view'],
  ['/collaterals', 'loans.collaterals.view'],
  ['/offers', 'loans.offers.view'],
  ['/offers/:offerId', 'loans.offers.view'],
  ['/offers/:offerId/request', 'loans.offers.request_loan'],
  ['/processing-loans/:loanId', 'loans.loans.view'],
  ['/repayment-behavior', 'customer.profile.view'],
  ['/class', 'customer.profile.view'],
  ['/loans', 'loans.loans.view'],
  ['/loans/:loanId', 'loans.loans.view'],
  ['/loans/:loanId/transfer', 'loans.loans.transfer_funds'],
  ['/loans/:loanId/repay', 'loans.loans.repay'],
  ['/transactions', 'customer.profile.view'],
  ['/closed-loans/:loanId', 'loans.loans.view'],
  ['/upload-bureau-pdf', 'customer.bureau_pdf.view'],
  ['/bank-statements', 'customer.bank_statements.view'],
  ['/credit-analysis', 'customer.credit_analysis.view'],
];

function sectionCommon(section: LayoutSection): Def[] {
  return [
    [`/${section}/user/profile`],
    [`/${section}/user/downloads-list`],
    [`/${section}/403`],
    [`/${section}/404`],
    ...CUSTOMER_PROFILE_SUBPAGES.map(([sub, perm]): Def => [`/${section}/customer/profile/:customerId${sub}`, perm]),
  ];
}

const CUSTOM_VIEW_LISTS = ['customers', 'offers', 'loans', 'collaterals', 'payments'] as const;

const PAGE_DEFS: Def[] = [
  // Root area: home, conversations, data-flow; standalone 403 and result pages.
  ['/'],
  ['/conversations'],
  // Any holder of an integrations or data view permission (an implied key, src/lib/auth/permissions.ts).
  ['/data-flow', 'admin.data_flow.view'],
  ['/400'],
  ['/403'],
  ['/404'],
  ['/500'],
  // "Not in your plan": what the guard shows, with 403, for a page of a feature the plan lacks.
  ['/plan-required'],
  ['/customer/profile/resume', 'customer.profile.view'],

  // Analytics
  ['/analytics/overview', 'analytics.overview.view'],
  ['/analytics/risk/product', 'analytics.product_risk.view'],
  ['/analytics/risk/product/cards', 'analytics.product_risk.view'],
  ['/analytics/risk/product/view', 'analytics.product_risk.view'],
  ['/analytics/risk/branch', 'analytics.branch_risk.view'],
  ['/analytics/risk/branch/cards', 'analytics.branch_risk.view'],
  ['/analytics/risk/branch/view', 'analytics.branch_risk.view'],
  ['/analytics/risk/delinquency', 'analytics.delinquency_risk.view'],
  ['/analytics/risk/vintage-analysis', 'analytics.vintage_analysis.view'],
  ['/analytics/risk/bullet-loans-collection', 'analytics.bullet_loans_collection.view'],
  ['/analytics/queries', 'analytics.list_export.view'],
  ['/analytics/queries/new', 'analytics.list_export.edit'],
  ['/analytics/queries/:id', 'analytics.list_export.view'],
  ['/analytics/queries/new/results', 'analytics.list_export.run_query'],
  ['/analytics/queries/:id/results', 'analytics.list_export.run_query'],
  ['/analytics/metrics-config', 'analytics.custom_metrics.view'],
  ['/analytics/metrics-config/add/:metric_type', 'analytics.custom_metrics.view'],
  ['/analytics/metrics-config/:metric_type/:metric_name', 'analytics.custom_metrics.view'],
  ['/analytics/reports', 'analytics.reports.view'],
  ['/analytics/reports/add', 'analytics.reports.edit'],
  ['/analytics/reports/:reportId', 'analytics.reports.view'],
  ['/analytics/performance/monthly-revenue', 'analytics.monthly_revenue.view'],
  ['/analytics/performance/portfolio-analysis', 'analytics.portfolio_analysis.view'],
  ...sectionCommon('analytics'),

  // Strategies
  ['/strategies/list', 'strategies.strategies.view'],
  ['/strategies/:id', 'strategies.strategies.view'],
  ...sectionCommon('strategies'),

  // Loans
  ['/loans/customers', 'loans.customers.view'],
  ['/loans/customers/add', 'loans.customers.view'],
  ...CUSTOM_VIEW_LISTS.flatMap((list): Def[] => [
    [`/loans/${list}/add-custom-view`, 'loans.custom_views.edit'],
    [`/loans/${list}/update-custom-view/:id`, 'loans.custom_views.edit'],
  ]),
  ['/loans/offers', 'loans.offers.view'],
  ['/loans/loans', 'loans.loans.view'],
  ['/loans/overview', 'loans.overview.view'],
  ['/loans/collection', 'loans.collection.view'],
  ['/loans/performance', 'loans.loans.performance'],
  ['/loans/loan-applications', 'loans.loan_applications.view'],
  ['/loans/loan-applications/new/:customerId', 'loans.offers.request_loan'],
  ['/loans/loan-applications/edit/:customerId/:loanId', 'loans.offers.request_loan'],
  ['/loans/collaterals', 'loans.collaterals.view'],
  ['/loans/collaterals/new/:customerId', 'loans.collaterals.add'],
  // A collateral by its id.
  ['/loans/collaterals/:id', 'loans.collaterals.view'],
  ['/loans/payments', 'loans.payments.view'],
  ['/loans/tasks', 'loans.tasks.view'],
  ['/loans/tasks/new', 'loans.tasks.create'],
  ['/loans/tasks/edit/:id', 'loans.tasks.edit'],
  // Conversations are with customers: whoever may see customers may see them.
  ['/loans/conversations', 'loans.customers.view'],
  ['/loans/conversations/new', 'loans.customers.view'],
  ['/loans/conversations/:conversationId', 'loans.customers.view'],
  ['/loans/conversations/templates', ADMIN],
  ['/loans/conversations/templates/:templateId', ADMIN],
  ...sectionCommon('loans'),

  // Admin
  ['/admin/notifications/webhooks', 'admin.webhooks.view'],
  ['/admin/notifications/webhooks/add', 'admin.webhooks.edit'],
  ['/admin/notifications/webhooks/update/:id', 'admin.webhooks.edit'],
  ['/admin/notifications/events', 'admin.events.view'],
  ['/admin/notifications/events/:database_type', 'admin.events.view'],
  ['/admin/notifications/events/:database_type/add', 'admin.events.edit'],
  ['/admin/notifications/events/:database_type/:id', 'admin.events.view'],
  ['/admin/notifications/scheduled-exports', 'admin.scheduled_exports.view'],
  ['/admin/notifications/scheduled-exports/add', 'admin.scheduled_exports.edit'],
  ['/admin/notifications/scheduled-exports/update/:id', 'admin.scheduled_exports.edit'],
  ['/admin/data/data-quality-check', 'admin.data_quality_check.view'],
  ['/admin/data/data-upload', 'admin.data_upload.view'],
  ['/admin/data/data-availability', 'admin.data_availability.view'],
  ['/admin/data/days-off', 'admin.days_off.view'],
  ['/admin/data/days-off/holidays/add', 'admin.days_off.edit'],
  ['/admin/data/days-off/holidays/edit/:id', 'admin.days_off.edit'],
  ['/admin/data/days-off/import', 'admin.days_off.edit'],
  ['/admin/data/days-off/apply', 'admin.days_off.edit'],
  ['/admin/data/data-resource-usage', 'admin.resource_usage.view'],
  ['/admin/data/import-buckets', ADMIN],
  ['/admin/data/import-buckets/add', ADMIN],
  ['/admin/data/import-buckets/edit/:id', ADMIN],
  ['/admin/user/users', 'admin.users.view'],
  ['/admin/user/users/add', 'admin.users.edit'],
  ['/admin/user/users/edit/:id', 'admin.users.edit'],
  ['/admin/user/roles', 'admin.roles.view'],
  ['/admin/user/roles/add', 'admin.roles.edit'],
  ['/admin/user/roles/:id', 'admin.roles.edit'],
  // The permissions page lists what roles grant, so it needs roles.view.
  ['/admin/user/permissions', 'admin.roles.view'],
  ['/admin/user/ip-restriction', 'admin.ip_restriction.view'],
  ['/admin/user/ip-restriction/add', 'admin.ip_restriction.edit'],
  ['/admin/user/ip-restriction/edit/:id', 'admin.ip_restriction.edit'],
  ['/admin/platform/general-settings', 'admin.basic_settings.view'],
  ['/admin/platform/download', 'admin.downloads.view'],
  ['/admin/platform/download/:id', 'admin.downloads.view'],
  ['/admin/platform/translations', 'admin.translations.view'],
  ['/admin/platform/password-policy', 'admin.password_policy.view'],
  // Error reports sent from the error pages and alerts, listed for administrators.
  ['/admin/platform/error-reports', ADMIN],
  ['/admin/plan-contracts/contracts', 'admin.contracts.view'],
  ['/admin/plan-contracts/plan', ADMIN],
  ['/admin/processes/strategy-editing', ADMIN],
  ['/admin/business/application-form', ADMIN],
  ['/admin/business/application-form/:id', ADMIN],
  ['/admin/business/application-form/:id/submissions', ADMIN],
  // Issue 13, submissions: one submission of a form (answers, files, customer, application, decision).
  ['/admin/business/application-form/:id/submissions/:submissionId', ADMIN],
  ['/admin/business/decision-engine', ADMIN],
  ['/admin/business/decision-engine/:id', ADMIN],
  ['/admin/application/decision-engine', ADMIN],
  ['/admin/business/collection-workflow', 'admin.collection_workflow.view'],
  ['/admin/business/collection-workflow/new', 'admin.collection_workflow.edit'],
  ['/admin/business/collection-workflow/:id', 'admin.collection_workflow.view'],
  ['/admin/business/loan-products', ADMIN],
  ['/admin/business/loan-products/add', ADMIN],
  ['/admin/business/loan-products/:id', ADMIN],
  ['/admin/business/collateral', ADMIN],
  ['/admin/business/decision-models', ADMIN],
  ['/admin/business/decision-models/:id', ADMIN],
  ['/admin/business/customized-form', ADMIN],
  ['/admin/business/customized-form/:id', ADMIN],
  ...sectionCommon('admin'),
];

const PUBLIC_PAGE_DEFS: Def[] = [
  ['/user/login', PUBLIC],
  ['/user/reset-password', PUBLIC],
  ['/user/mfa', PUBLIC],
  ['/application/:id', PUBLIC],
];

export const ROUTES: readonly RouteEntry[] = [...PAGE_DEFS, ...PUBLIC_PAGE_DEFS].map(entry);

// ---------------------------------------------------------------------------------------------
// Matching

export type RouteMatch<T> = { entry: T; params: Record<string, string> };

type Compiled<T> = { entry: T; segments: string[]; score: number[] };

function compile<T extends { pattern: string }>(entries: readonly T[]): Compiled<T>[] {
  return entries.map((e) => {
    const segments = e.pattern.split('/').filter(Boolean);
    // Static segments beat params at the same position: '/analytics/queries/new' wins over '/:id'.
    return { entry: e, segments, score: segments.map((s) => (s.startsWith(':') ? 1 : 2)) };
  });
}

function matchCompiled<T>(table: Compiled<T>[], pathname: string): RouteMatch<T> | null {
  const parts = pathname.split('/').filter(Boolean);
  let best: { c: Compiled<T>; params: Record<string, string> } | null = null;
  for (const c of table) {
    if (parts.length !== c.segments.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < c.segments.length; i++) {
      const seg = c.segments[i];
      if (seg.startsWith(':')) params[seg.slice(1)] = parts[i];
      else if (seg !== parts[i]) {
        ok = false;
        break;
      }
    }
    if (!ok) continue;
    if (!best || better(c, best.c)) best = { c, params };
  }
  return best ? { entry: best.c.entry, params: best.params } : null;
}

function better<T>(a: Compiled<T>, b: Compiled<T>): boolean {
  for (let i = 0; i < Math.max(a.score.length, b.score.length); i++) {
    const d = (a.score[i] ?? 0) - (b.score[i] ?? 0);
    if (d !== 0) return d > 0;
  }
  return false;
}

const COMPILED_PAGES = compile(ROUTES);

/** The page route for a canonical pathname (see canonical-path.ts), or null when none matches. */
export function matchRoute(pathname: string): RouteMatch<RouteEntry> | null {
  return matchCompiled(COMPILED_PAGES, pathname);
}

/** The layout section a path belongs to, for picking its 403/404 page: its first segment, else root. */
export function sectionForPath(pathname: string): LayoutSection | 'root' {
  const first = pathname.split('/')[1] ?? '';
  return (LAYOUT_SECTIONS as readonly string[]).includes(first) ? (first as LayoutSection) : 'root';
}

export function forbiddenPagePath(pathname: string): string {
  const s = sectionForPath(pathname);
  return s === 'root' ? '/403' : `/${s}/403`;
}

export function notFoundPagePath(pathname: string): string {
  const s = sectionForPath(pathname);
  return s === 'root' ? '/404' : `/${s}/404`;
}

/** May this user (or nobody) open this route? Its one rule decides. */
export function canOpen(user: PermissionSubject | null | undefined, entry: Pick<RouteEntry, 'rule'>): boolean {
  return allows(user, entry.rule);
}

/** Page routes of one section a user may open, e.g. for navigation (params left as patterns). */
export function openableRoutes(user: PermissionSubject | null | undefined, section?: Section): RouteEntry[] {
  return ROUTES.filter((r) => (!section || r.section === section) && canOpen(user, r));
}

// ---------------------------------------------------------------------------------------------
// The /v1 API manifest: every endpoint file's route with each method it exports and that method's one
// rule. Deny by default: an API path no entry matches answers 404, a method the entry does not list
// answers 405. The guard's decision is final: endpoints check only what depends on the object (its
// scope, through src/lib/auth/data-permissions.ts, and its lifecycle). Endpoints still take the tenant
// from locals.principal; this table only decides whether the call may reach them.

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type ApiRouteEntry = {
  pattern: string;
  methods: Partial<Record<HttpMethod, Rule>>;
  /**
   * Commands whose refusal is written to the audit log, as the object type the path's `:id` names and
   * the audit action of each method (e.g. POST → 'loan.repay').
   */
  audit?: { objectType: string; actions: Partial<Record<HttpMethod, string>> };
};

type ApiAudit = ApiRouteEntry['audit'];
const audited = (objectType: string, actions: NonNullable<ApiAudit>['actions']): ApiAudit => ({ objectType, actions });

export const API_ROUTES: readonly ApiRouteEntry[] = [
  // Identity: sign-in, MFA, reset, OIDC work signed out; each endpoint checks its own state (credentials, tokens).
  { pattern: '/v1/auth/sign-in', methods: { POST: PUBLIC } },
  { pattern: '/v1/auth/sign-out', methods: { POST: PUBLIC } },
  { pattern: '/v1/auth/session', methods: { GET: PUBLIC } },
  { pattern: '/v1/auth/mfa', methods: { POST: PUBLIC } },
  { pattern: '/v1/auth/mfa/enrolment', methods: { GET: PUBLIC, POST: PUBLIC, PUT: PUBLIC } },
  { pattern: '/v1/auth/oidc/start', methods: { GET: PUBLIC } },
  { pattern: '/v1/auth/oidc/callback', methods: { GET: PUBLIC } },
  { pattern: '/v1/auth/password', methods: { POST: PUBLIC } },
  { pattern: '/v1/auth/password-reset', methods: { POST: PUBLIC } },
  { pattern: '/v1/auth/password-reset/complete', methods: { POST: PUBLIC } },
  // What only makes sense signed in: API tokens and ending others' sessions are administrators' business.
  { pattern: '/v1/auth/api-tokens', methods: { GET: ADMIN, POST: ADMIN } },
  { pattern: '/v1/auth/api-tokens/:id', methods: { DELETE: ADMIN } },
  { pattern: '/v1/auth/users/:id/end-sessions', methods: { POST: ADMIN } },
  { pattern: '/v1/auth/sessions', methods: { GET: SIGNED_IN } },
  { pattern: '/v1/auth/sessions/:id', methods: { DELETE: SIGNED_IN } },
  { pattern: '/v1/auth/sign-out-everywhere', methods: { POST: SIGNED_IN } },
  // Platform.
  { pattern: '/v1/users/me', methods: { GET: SIGNED_IN } },
  { pattern: '/v1/users/admin', methods: { GET: SIGNED_IN } },
  // Admin › users (issue 11): the staff list, invitations, edits and the account actions. The static
  // /v1/users/me and /v1/users/admin above win over /v1/users/:id.
  {
    pattern: '/v1/users',
    methods: { GET: need('admin.users.view'), POST: need('admin.users.edit') },
    audit: audited('user', { POST: 'user.invite' }),
  },
  {
    pattern: '/v1/users/:id',
    methods: { GET: need('admin.users.view'), PATCH: need('admin.users.edit') },
    audit: audited('user', { PATCH: 'user.update' }),
  },
  {
    pattern: '/v1/users/:id/invitation',
    methods: { POST: need('admin.users.edit') },
    audit: audited('user', { POST: 'user.resend_invitation' }),
  },
  {
    pattern: '/v1/users/:id/mfa',
    methods: { DELETE: need('admin.users.edit') },
    audit: audited('user', { DELETE: 'user.reset_mfa' }),
  },
  {
    pattern: '/v1/users/:id/sessions',
    methods: { DELETE: need('admin.users.edit') },
    audit: audited('user', { DELETE: 'user.end_sessions' }),
  },
  { pattern: '/v1/hierarchies', methods: { GET: SIGNED_IN } },
  { pattern: '/v1/pricing-plans/current', methods: { GET: SIGNED_IN } },
  { pattern: '/v1/tenant-config', methods: { GET: SIGNED_IN } },
  { pattern: '/v1/error-reports', methods: { GET: ADMIN, POST: SIGNED_IN } },
  { pattern: '/v1/translations/:lng/:ns', methods: { GET: SIGNED_IN, POST: SIGNED_IN } },
  { pattern: '/v1/downloads', methods: { GET: SIGNED_IN } },
  { pattern: '/v1/downloads/:id/file', methods: { GET: SIGNED_IN } },
  // Issue 16, days off (admin › data › days off).
  { pattern: '/v1/days-off', methods: { GET: need('admin.days_off.view') } },
  {
    pattern: '/v1/days-off/holidays',
    methods: { POST: need('admin.days_off.edit') },
    audit: audited('days_off', { POST: 'days_off.add_holiday' }),
  },
  {
    pattern: '/v1/days-off/holidays/:id',
    methods: { PATCH: need('admin.days_off.edit'), DELETE: need('admin.days_off.edit') },
    audit: audited('days_off', { PATCH: 'days_off.update_holiday', DELETE: 'days_off.delete_holiday' }),
  },
  {
    pattern: '/v1/days-off/weekdays',
    methods: { PUT: need('admin.days_off.edit') },
    audit: audited('days_off', { PUT: 'days_off.set_weekdays' }),
  },
  {
    pattern: '/v1/days-off/rule',
    methods: { PUT: need('admin.days_off.edit') },
    audit: audited('days_off', { PUT: 'days_off.set_rule' }),
  },
  {
    pattern: '/v1/days-off/import',
    methods: { POST: need('admin.days_off.edit') },
    audit: audited('days_off', { POST: 'days_off.import' }),
  },
  {
    pattern: '/v1/days-off/apply',
    methods: { POST: need('admin.days_off.edit') },
    audit: audited('days_off', { POST: 'days_off.apply' }),
  },
  // Administration, security (issue 11): the IP allowlist and the password policy.
  {
    pattern: '/v1/ip-restrictions',
    methods: { GET: need('admin.ip_restriction.view'), POST: need('admin.ip_restriction.edit') },
    audit: audited('ip_restriction', { POST: 'ip_restriction.create' }),
  },
  {
    pattern: '/v1/ip-restrictions/:id',
    methods: {
      GET: need('admin.ip_restriction.view'),
      PATCH: need('admin.ip_restriction.edit'),
      DELETE: need('admin.ip_restriction.edit'),
    },
    audit: audited('ip_restriction', { PATCH: 'ip_restriction.update', DELETE: 'ip_restriction.delete' }),
  },
  // Admin › notifications › events (issue 16): event sinks.
  {
    pattern: '/v1/event-sinks',
    methods: { GET: need('admin.events.view'), POST: need('admin.events.edit') },
    audit: audited('event_sink', { POST: 'event_sink.create' }),
  },
  {
    pattern: '/v1/event-sinks/:id',
    methods: { GET: need('admin.events.view'), PATCH: need('admin.events.edit'), DELETE: need('admin.events.edit') },
    audit: audited('event_sink', { PATCH: 'event_sink.update', DELETE: 'event_sink.delete' }),
  },
  ...(['pause', 'resume', 'replay', 'test'] as const).map((verb) => ({
    pattern: `/v1/event-sinks/:id/${verb}`,
    methods: { POST: need('admin.events.edit') },
    audit: audited('event_sink', { POST: `event_sink.${verb}` }),
  })),
  {
    pattern: '/v1/password-policy',
    methods: { GET: need('admin.password_policy.view'), PUT: need('admin.password_policy.edit') },
    audit: audited('password_policy', { PUT: 'password_policy.update' }),
  },
  // Admin platform (issue 11): translations, downloads, plan, contracts. admin.contracts.edit changes a
  // contract's fields and signatories; admin.contracts.update uploads a new document version and moves its status.
  { pattern: '/v1/translation-overrides', methods: { GET: need('admin.translations.view') } },
  { pattern: '/v1/translation-overrides/export', methods: { GET: need('admin.translations.view') } },
  {
    pattern: '/v1/translation-overrides/import',
    methods: { POST: need('admin.translations.edit') },
    audit: audited('translation_override', { POST: 'translation_override.import' }),
  },
  {
    pattern: '/v1/translation-overrides/:lng/:ns/:key',
    methods: { PUT: need('admin.translations.edit'), DELETE: need('admin.translations.edit') },
    audit: audited('translation_override', {
      PUT: 'translation_override.set',
      DELETE: 'translation_override.remove',
    }),
  },
  { pattern: '/v1/admin/downloads', methods: { GET: need('admin.downloads.view') } },
  { pattern: '/v1/admin/downloads/:id/file', methods: { GET: need('admin.downloads.view') } },
  {
    pattern: '/v1/downloads/:id',
    methods: { DELETE: need('admin.downloads.delete') },
    audit: audited('download', { DELETE: 'download.delete' }),
  },
  {
    pattern: '/v1/plan-change-requests',
    methods: { GET: ADMIN, POST: ADMIN },
    audit: audited('plan_change_request', { POST: 'plan_change.request' }),
  },
  {
    pattern: '/v1/contracts',
    methods: { GET: need('admin.contracts.view'), POST: need('admin.contracts.edit') },
    audit: audited('contract', { POST: 'contract.create' }),
  },
  {
    pattern: '/v1/contracts/:id',
    methods: { GET: need('admin.contracts.view'), PATCH: need('admin.contracts.edit') },
    audit: audited('contract', { PATCH: 'contract.edit' }),
  },
  {
    pattern: '/v1/contracts/:id/document',
    methods: { GET: need('admin.contracts.view'), PUT: need('admin.contracts.update') },
    audit: audited('contract', { PUT: 'contract.document' }),
  },
  {
    pattern: '/v1/contracts/:id/status',
    methods: { POST: need('admin.contracts.update') },
    audit: audited('contract', { POST: 'contract.status' }),
  },
  // Admin › general settings (issue 11): the tenant's settings, its logo (shown in every signed-in
  // header, so reading it only needs a session) and the single sign-on "test sign-in".
  {
    pattern: '/v1/tenant-settings',
    methods: { GET: need('admin.basic_settings.view'), PATCH: need('admin.basic_settings.edit') },
    audit: audited('tenant', { PATCH: 'tenant.settings.update' }),
  },
  {
    pattern: '/v1/tenant-settings/logo',
    methods: { GET: SIGNED_IN, POST: need('admin.basic_settings.edit'), DELETE: need('admin.basic_settings.edit') },
    audit: audited('tenant', { POST: 'tenant.logo.update', DELETE: 'tenant.logo.remove' }),
  },
  { pattern: '/v1/tenant-settings/sso-test', methods: { GET: need('admin.basic_settings.edit') } },
  // Lending. Reads need the view keys; each command its own action key. Waivers, charges, credit
  // refunds, write-offs and reversals have no key in the permission table: administrators only.
  { pattern: '/v1/schedules/preview', methods: { POST: need('loans.schedules.preview') } },
  { pattern: '/v1/loans', methods: { GET: need('loans.loans.view') } },
  { pattern: '/v1/loans/:id', methods: { GET: need('loans.loans.view') } },
  {
    pattern: '/v1/loans/:id/disbursements',
    methods: { POST: need('loans.loans.transfer_funds') },
    audit: audited('loan', { POST: 'loan.disburse' }),
  },
  {
    pattern: '/v1/loans/:id/tranches',
    methods: { GET: need('loans.loans.view'), POST: need('loans.loans.transfer_funds') },
    audit: audited('loan', { POST: 'loan.tranches.set' }),
  },
  {
    pattern: '/v1/loans/:id/tranche-disbursements',
    methods: { POST: need('loans.loans.transfer_funds') },
    audit: audited('loan', { POST: 'loan.tranche.disburse' }),
  },
  {
    pattern: '/v1/loans/:id/repayments',
    methods: { POST: need('loans.loans.repay') },
    audit: audited('loan', { POST: 'loan.repay' }),
  },
  { pattern: '/v1/loans/:id/waivers', methods: { POST: ADMIN }, audit: audited('loan', { POST: 'loan.waive' }) },
  { pattern: '/v1/loans/:id/charges', methods: { POST: ADMIN }, audit: audited('loan', { POST: 'loan.apply_charge' }) },
  {
    pattern: '/v1/loans/:id/credit-refunds',
    methods: { POST: ADMIN },
    audit: audited('loan', { POST: 'loan.refund_credit' }),
  },
  { pattern: '/v1/loans/:id/write-offs', methods: { POST: ADMIN }, audit: audited('loan', { POST: 'loan.write_off' }) },
  {
    pattern: '/v1/loans/:id/transactions/:transactionId/reversals',
    methods: { POST: ADMIN },
    audit: audited('loan', { POST: 'loan.reverse_transaction' }),
  },
  // Re-age / re-amortisation (issue 17) and their undo: administrators only, like write-offs.
  { pattern: '/v1/loans/:id/re-ages', methods: { POST: ADMIN }, audit: audited('loan', { POST: 'loan.reage' }) },
  {
    pattern: '/v1/loans/:id/re-ages/undo',
    methods: { POST: ADMIN },
    audit: audited('loan', { POST: 'loan.undo_reage' }),
  },
  {
    pattern: '/v1/loans/:id/re-amortizations',
    methods: { POST: ADMIN },
    audit: audited('loan', { POST: 'loan.reamortize' }),
  },
  {
    pattern: '/v1/loans/:id/re-amortizations/undo',
    methods: { POST: ADMIN },
    audit: audited('loan', { POST: 'loan.undo_reamortize' }),
  },
  // Reschedule requests (issue 17), maker-checker: a servicing key submits, the loan approver decides
  // (the command refuses the submitter's own approval).
  {
    pattern: '/v1/loans/:id/reschedule-requests',
    methods: { GET: need('loans.loans.view'), POST: need('loans.loans.repay') },
    audit: audited('loan', { POST: 'loan.reschedule.submit' }),
  },
  { pattern: '/v1/loans/:id/reschedule-requests/preview', methods: { GET: need('loans.loans.repay') } },
  {
    pattern: '/v1/loans/:id/reschedule-requests/:requestId/approve',
    methods: { POST: need('loans.offers.approve_loan') },
    audit: audited('loan', { POST: 'loan.reschedule.approve' }),
  },
  {
    pattern: '/v1/loans/:id/reschedule-requests/:requestId/reject',
    methods: { POST: need('loans.offers.reject_loan') },
    audit: audited('loan', { POST: 'loan.reschedule.reject' }),
  },
  {
    pattern: '/v1/loans/:id/installment-variations',
    methods: { POST: need('loans.loans.transfer_funds') },
    audit: audited('loan', { POST: 'loan.vary_installments' }),
  },
  {
    pattern: '/v1/applications',
    methods: { GET: need('loans.loan_applications.view'), POST: need('loans.offers.request_loan') },
    audit: audited('loan_application', { POST: 'application.submit' }),
  },
  {
    pattern: '/v1/applications/:id',
    methods: { GET: need('loans.loan_applications.view'), PATCH: need('loans.offers.request_loan') },
    audit: audited('loan_application', { PATCH: 'application.edit' }),
  },
  {
    pattern: '/v1/applications/:id/withdraw',
    methods: { POST: need('loans.offers.request_loan') },
    audit: audited('loan_application', { POST: 'application.withdraw' }),
  },
  {
    pattern: '/v1/applications/:id/approve',
    methods: { POST: need('loans.offers.approve_loan') },
    audit: audited('loan_application', { POST: 'application.approve' }),
  },
  {
    pattern: '/v1/applications/:id/reject',
    methods: { POST: need('loans.offers.reject_loan') },
    audit: audited('loan_application', { POST: 'application.reject' }),
  },
  // Decisions about an application (issue 12): read with the application (scoped), the checker's
  // review decision with the approve permission.
  { pattern: '/v1/applications/:id/decisions', methods: { GET: need('loans.loan_applications.view') } },
  {
    pattern: '/v1/applications/:id/review-decision',
    methods: { POST: need('loans.offers.approve_loan') },
    audit: audited('loan_application', { POST: 'application.review_decision' }),
  },
  { pattern: '/v1/customers/:id/decisions', methods: { GET: need('loans.customers.view') } },
  // The decision engine's bindings (issue 12): administrators only.
  {
    pattern: '/v1/decision-bindings',
    methods: { GET: ADMIN, POST: ADMIN },
    audit: audited('decision_binding', { POST: 'decision_binding.create' }),
  },
  {
    pattern: '/v1/decision-bindings/:id',
    methods: { GET: ADMIN, PATCH: ADMIN },
    audit: audited('decision_binding', { PATCH: 'decision_binding.update' }),
  },
  {
    pattern: '/v1/decision-bindings/:id/test',
    methods: { POST: ADMIN },
    audit: audited('decision_binding', { POST: 'decision_binding.test' }),
  },
  { pattern: '/v1/offers', methods: { GET: need('loans.offers.view') } },
  { pattern: '/v1/offers/:id', methods: { GET: need('loans.offers.view') } },
  { pattern: '/v1/offers/:id/letter', methods: { GET: need('loans.offers.print') } },
  {
    pattern: '/v1/offers/:id/notify',
    methods: { POST: need('loans.offers.notify') },
    audit: audited('offer', { POST: 'offer.notify' }),
  },
  {
    pattern: '/v1/offers/:id/reject',
    methods: { POST: need('loans.offers.reject') },
    audit: audited('offer', { POST: 'offer.reject' }),
  },
  {
    pattern: '/v1/offers/:id/request',
    methods: { POST: need('loans.offers.request_loan') },
    audit: audited('offer', { POST: 'offer.request_loan' }),
  },
  {
    pattern: '/v1/products',
    methods: { GET: need('loans.products.view'), POST: ADMIN },
    audit: audited('loan_product', { POST: 'product.create' }),
  },
  {
    pattern: '/v1/products/:id',
    methods: { GET: need('loans.products.view'), PATCH: ADMIN },
    audit: audited('loan_product', { PATCH: 'product.update' }),
  },
  {
    pattern: '/v1/collateral-types',
    methods: { GET: need('loans.collaterals.view'), POST: ADMIN },
    audit: audited('collateral_type', { POST: 'collateral_type.create' }),
  },
  {
    pattern: '/v1/collateral-types/:code',
    methods: { PATCH: ADMIN },
    audit: audited('collateral_type', { PATCH: 'collateral_type.update' }),
  },
  {
    pattern: '/v1/customers',
    methods: { GET: need('loans.customers.view'), POST: need('loans.customers.view') },
    audit: audited('customer', { POST: 'customer.create' }),
  },
  // Issue 13 (customized fields): PATCH edits a customer's customized fields.
  {
    pattern: '/v1/customers/:id',
    methods: { GET: need('loans.customers.view'), PATCH: need('loans.customers.view') },
    audit: audited('customer', { PATCH: 'customer.update_custom_fields' }),
  },
  {
    pattern: '/v1/customers/:id/opt-in',
    methods: { POST: need('loans.customers.opt_in') },
    audit: audited('customer', { POST: 'customer.opt_in' }),
  },
  {
    pattern: '/v1/customers/:id/opt-out',
    methods: { POST: need('loans.customers.opt_out') },
    audit: audited('customer', { POST: 'customer.opt_out' }),
  },
  { pattern: '/v1/customers/:id/analytics', methods: { GET: need('customer.profile.view') } },
  {
    pattern: '/v1/customers/:id/files',
    methods: { GET: need('customer.files.view'), POST: need('customer.files.upload') },
  },
  { pattern: '/v1/customers/:id/files/:fileId', methods: { GET: need('customer.files.download') } },
  { pattern: '/v1/customers/:id/bank-statements', methods: { POST: need('customer.bank_statements.import') } },
  // Origination (issue 12): forcing a customer's eligibility; a live strategy generating its offers now.
  {
    pattern: '/v1/customers/:id/eligibility-overrides',
    methods: { GET: need('customer.profile.view'), POST: need('customer.eligibility.force') },
    audit: audited('customer', { POST: 'customer.eligibility.force' }),
  },
  {
    pattern: '/v1/strategies/:id/originations',
    methods: { POST: need('strategies.strategies.implement') },
    audit: audited('strategy', { POST: 'strategy.originate' }),
  },
  // Loans workspace lists and exports: which list is named in the path or body, so the list's own
  // permission is an object question answered by allowedActions(…, 'list', name).
  { pattern: '/v1/lists/:name', methods: { GET: SIGNED_IN } },
  { pattern: '/v1/exports', methods: { POST: SIGNED_IN } },
  {
    pattern: '/v1/custom-views/:list',
    methods: { GET: need('loans.custom_views.view'), POST: need('loans.custom_views.edit') },
  },
  {
    pattern: '/v1/custom-views/:list/:id',
    methods: {
      GET: need('loans.custom_views.view'),
      PATCH: need('loans.custom_views.edit'),
      DELETE: need('loans.custom_views.edit'),
    },
  },
  // Administration: roles and permissions (issue 11). Reads need roles.view, writes roles.edit; what a
  // writer may grant is checked by the role commands (src/lib/roles/commands.ts).
  {
    pattern: '/v1/roles',
    methods: { GET: need('admin.roles.view'), POST: need('admin.roles.edit') },
    audit: audited('role', { POST: 'role.create' }),
  },
  {
    pattern: '/v1/roles/:id',
    methods: { GET: need('admin.roles.view'), PATCH: need('admin.roles.edit'), DELETE: need('admin.roles.edit') },
    audit: audited('role', { PATCH: 'role.update', DELETE: 'role.delete' }),
  },
  { pattern: '/v1/permissions', methods: { GET: need('admin.roles.view') } },
  // Issue 13, submissions of application forms (administrators): the list (and its CSV/XLSX export
  // with ?format=), one submission, and its uploaded files (each download audited). Reads only.
  { pattern: '/v1/application-forms/:id/submissions', methods: { GET: ADMIN } },
  { pattern: '/v1/application-forms/:id/submissions/:submissionId', methods: { GET: ADMIN } },
  { pattern: '/v1/application-forms/:id/submissions/:submissionId/files/:fileId', methods: { GET: ADMIN } },
  // Issue 13, intake fixes: retry of a failed submission (src/lib/intake/submit.ts).
  {
    pattern: '/v1/application-forms/:id/submissions/:submissionId/retry',
    methods: { POST: ADMIN },
    audit: audited('form_submission', { POST: 'form_submission.retry' }),
  },
  // Administration › business: decision models (issue 12). Reads and test runs (evaluate) need
  // decision_models.view, saves decision_models.edit (src/lib/decisioning/commands.ts).
  {
    pattern: '/v1/decision-models',
    methods: { GET: need('admin.decision_models.view'), POST: need('admin.decision_models.edit') },
    audit: audited('decision_model', { POST: 'decision_model.create' }),
  },
  {
    pattern: '/v1/decision-models/:id',
    methods: { GET: need('admin.decision_models.view'), PUT: need('admin.decision_models.edit') },
    audit: audited('decision_model', { PUT: 'decision_model.save' }),
  },
  {
    pattern: '/v1/decision-models/:id/versions',
    methods: { POST: need('admin.decision_models.edit') },
    audit: audited('decision_model', { POST: 'decision_model.version_create' }),
  },
  {
    pattern: '/v1/decision-models/:id/versions/:version',
    methods: { PATCH: need('admin.decision_models.edit') },
    audit: audited('decision_model', { PATCH: 'decision_model.version_update' }),
  },
  { pattern: '/v1/decision-models/:id/evaluate', methods: { POST: need('admin.decision_models.view') } },
  // Administration › business: the application form builder and customized forms (issue 13, builder part).
  {
    pattern: '/v1/application-forms',
    methods: { GET: ADMIN, POST: ADMIN },
    audit: audited('application_form', { POST: 'application_form.create' }),
  },
  {
    pattern: '/v1/application-forms/:id',
    methods: { GET: ADMIN, PUT: ADMIN, DELETE: ADMIN },
    audit: audited('application_form', { PUT: 'application_form.update', DELETE: 'application_form.delete' }),
  },
  {
    pattern: '/v1/application-forms/:id/publish',
    methods: { POST: ADMIN },
    audit: audited('application_form', { POST: 'application_form.publish' }),
  },
  {
    pattern: '/v1/application-forms/:id/unpublish',
    methods: { POST: ADMIN },
    audit: audited('application_form', { POST: 'application_form.unpublish' }),
  },
  { pattern: '/v1/application-forms/:id/versions', methods: { GET: ADMIN } },
  { pattern: '/v1/application-forms/:id/versions/:version', methods: { GET: ADMIN } },
  {
    pattern: '/v1/customized-forms/:entity',
    methods: { GET: ADMIN, PUT: ADMIN },
    audit: audited('customized_form', { PUT: 'customized_form.update' }),
  },
  // Lending strategies (issue 12): one endpoint per lifecycle step, each with its own permission.
  {
    pattern: '/v1/strategies',
    methods: { GET: need('strategies.strategies.view'), POST: need('strategies.strategies.request') },
    audit: audited('strategy', { POST: 'strategy.request' }),
  },
  { pattern: '/v1/strategies/:id', methods: { GET: need('strategies.strategies.view') } },
  {
    pattern: '/v1/strategies/:id/draft',
    methods: { PUT: need('strategies.strategies.encode_draft') },
    audit: audited('strategy', { PUT: 'strategy.encode' }),
  },
  {
    pattern: '/v1/strategies/:id/simulations',
    methods: { POST: need('strategies.strategies.generate_simulation') },
    audit: audited('strategy', { POST: 'strategy.simulate' }),
  },
  { pattern: '/v1/strategies/:id/simulations/:simulationId', methods: { GET: need('strategies.strategies.view') } },
  {
    pattern: '/v1/strategies/:id/provider-validation',
    methods: { POST: need('strategies.strategies.validate_draft_provider') },
    audit: audited('strategy', { POST: 'strategy.validate_provider' }),
  },
  {
    pattern: '/v1/strategies/:id/client-validation',
    methods: { POST: need('strategies.strategies.validate_draft_client') },
    audit: audited('strategy', { POST: 'strategy.validate_client' }),
  },
  {
    pattern: '/v1/strategies/:id/implementation',
    methods: { POST: need('strategies.strategies.implement') },
    audit: audited('strategy', { POST: 'strategy.implement' }),
  },
  {
    pattern: '/v1/strategies/:id/live-validation',
    methods: { POST: need('strategies.strategies.validate_live') },
    audit: audited('strategy', { POST: 'strategy.validate_live' }),
  },
  {
    pattern: '/v1/strategies/:id/deactivation',
    methods: { POST: need('strategies.strategies.deactivate_live') },
    audit: audited('strategy', { POST: 'strategy.deactivate' }),
  },
  {
    pattern: '/v1/strategies/:id/reactivation',
    methods: { POST: need('strategies.strategies.reactivate_inactive') },
    audit: audited('strategy', { POST: 'strategy.reactivate' }),
  },
  // ── Issue 14, collection (worklist, collection actions, buckets, priority, workflows) ──
  { pattern: '/v1/collection/cases', methods: { GET: need('loans.collection.view') } },
  { pattern: '/v1/collection/cases/:loanId', methods: { GET: need('loans.collection.view') } },
  {
    pattern: '/v1/collection/cases/:loanId/contacts',
    methods: { POST: need('loans.collection.view') },
    audit: audited('loan', { POST: 'collection.contact' }),
  },
  {
    pattern: '/v1/collection/cases/:loanId/promises',
    methods: { POST: need('loans.collection.view') },
    audit: audited('loan', { POST: 'collection.promise' }),
  },
  {
    pattern: '/v1/collection/cases/:loanId/callbacks',
    methods: { POST: need('loans.collection.view') },
    audit: audited('loan', { POST: 'collection.callback' }),
  },
  {
    pattern: '/v1/collection/cases/:loanId/messages',
    methods: { POST: need('loans.collection.view') },
    audit: audited('loan', { POST: 'collection.message' }),
  },
  {
    pattern: '/v1/collection/cases/:loanId/assignment',
    methods: { POST: need('loans.tasks.manage') },
    audit: audited('loan', { POST: 'collection.assign' }),
  },
  {
    pattern: '/v1/collection/cases/:loanId/take',
    methods: { POST: need('loans.collection.view') },
    audit: audited('loan', { POST: 'collection.assign' }),
  },
  // closewf
  {
    pattern: '/v1/close-of-business',
    methods: { POST: ADMIN },
    audit: audited('tenant', { POST: 'close.run' }),
  },
  {
    pattern: '/v1/collection-workflows',
    methods: { GET: need('admin.collection_workflow.view'), POST: need('admin.collection_workflow.edit') },
    audit: audited('collection_workflow', { POST: 'collection_workflow.create' }),
  },
  {
    pattern: '/v1/collection-workflows/:id',
    methods: {
      GET: need('admin.collection_workflow.view'),
      PATCH: need('admin.collection_workflow.edit'),
      DELETE: need('admin.collection_workflow.delete'),
    },
    audit: audited('collection_workflow', {
      PATCH: 'collection_workflow.update',
      DELETE: 'collection_workflow.delete',
    }),
  },
  {
    pattern: '/v1/collection/buckets',
    methods: { GET: need('collection.buckets.view'), PUT: need('admin.collection_workflow.edit') },
    audit: audited('collection_buckets', { PUT: 'collection_buckets.update' }),
  },
  {
    pattern: '/v1/collection/priority',
    methods: { GET: need('admin.collection_workflow.view'), PUT: need('admin.collection_workflow.edit') },
    audit: audited('collection_priority', { PUT: 'collection_priority.update' }),
  },

  // ── Issue 14, tasks and notifications ──
  {
    pattern: '/v1/tasks',
    methods: { GET: need('loans.tasks.view'), POST: need('loans.tasks.create') },
    audit: audited('task', { POST: 'task.create' }),
  },
  {
    pattern: '/v1/tasks/:id',
    methods: { GET: need('loans.tasks.view'), PATCH: need('loans.tasks.edit'), DELETE: need('loans.tasks.delete') },
    audit: audited('task', { PATCH: 'task.update', DELETE: 'task.delete' }),
  },
  {
    pattern: '/v1/tasks/:id/assignment',
    methods: { POST: need('loans.tasks.manage') },
    audit: audited('task', { POST: 'task.assign' }),
  },
  {
    pattern: '/v1/tasks/:id/completion',
    methods: { POST: need('loans.tasks.edit') },
    audit: audited('task', { POST: 'task.complete' }),
  },
  { pattern: '/v1/notifications', methods: { GET: SIGNED_IN } },
  { pattern: '/v1/notifications/read-all', methods: { POST: SIGNED_IN } },
  { pattern: '/v1/notifications/:id/read', methods: { POST: SIGNED_IN } },

  // ── Issue 14, conversations, templates, inbound webhook ──
  {
    pattern: '/v1/conversations',
    methods: { GET: need('loans.customers.view'), POST: need('loans.customers.view') },
    audit: audited('conversation', { POST: 'conversation.create' }),
  },
  // The provider's inbound SMS and e-mail replies: authenticated by their Standard Webhooks signature.
  { pattern: '/v1/conversations/inbound', methods: { POST: PUBLIC } },
  { pattern: '/v1/conversations/:id', methods: { GET: need('loans.customers.view') } },
  {
    pattern: '/v1/conversations/:id/messages',
    methods: { GET: need('loans.customers.view'), POST: need('loans.customers.view') },
    audit: audited('conversation', { POST: 'conversation.message' }),
  },
  {
    pattern: '/v1/conversations/:id/read',
    methods: { POST: need('loans.customers.view') },
    audit: audited('conversation', { POST: 'conversation.read' }),
  },
  { pattern: '/v1/conversations/:id/attachments/:attachmentId', methods: { GET: need('loans.customers.view') } },
  {
    pattern: '/v1/message-templates',
    methods: { GET: need('loans.customers.view'), POST: ADMIN },
    audit: audited('message_template', { POST: 'message_template.create' }),
  },
  {
    pattern: '/v1/message-templates/:id',
    methods: { GET: need('loans.customers.view'), PATCH: ADMIN, DELETE: ADMIN },
    audit: audited('message_template', { PATCH: 'message_template.update', DELETE: 'message_template.delete' }),
  },

  // ── Issue 14, boards (overview, performance) ──

  // ── Issue 15, analytics: portfolio, overview, risk by product and branch ──
  { pattern: '/v1/analytics/portfolio', methods: { GET: need('analytics.overview.view') } },
  { pattern: '/v1/analytics/overview', methods: { GET: need('analytics.overview.view') } },
  { pattern: '/v1/analytics/risk/product', methods: { GET: need('analytics.product_risk.view') } },
  { pattern: '/v1/analytics/risk/branch', methods: { GET: need('analytics.branch_risk.view') } },

  // ── Issue 15, analytics: monthly revenue, portfolio analysis, bullet loans ──
  { pattern: '/v1/analytics/performance/monthly-revenue', methods: { GET: need('analytics.monthly_revenue.view') } },
  {
    pattern: '/v1/analytics/performance/portfolio-analysis',
    methods: { GET: need('analytics.portfolio_analysis.view') },
  },
  {
    pattern: '/v1/analytics/risk/bullet-loans-collection',
    methods: { GET: need('analytics.bullet_loans_collection.view') },
  },

  // ── Issue 15, analytics: delinquency transitions, vintages ──
  { pattern: '/v1/analytics/risk/delinquency', methods: { GET: need('analytics.delinquency_risk.view') } },
  { pattern: '/v1/analytics/risk/delinquency/loans', methods: { GET: need('analytics.delinquency_risk.view') } },
  { pattern: '/v1/analytics/risk/vintage-analysis', methods: { GET: need('analytics.vintage_analysis.view') } },

  // ── Issue 16, data pages: data quality runs, availability, resource usage, data flow ──
  {
    pattern: '/v1/data-quality/runs',
    methods: { GET: need('admin.data_quality_check.view'), POST: need('admin.data_quality_check.view') },
    audit: audited('data_quality_run', { POST: 'data_quality.run' }),
  },
  { pattern: '/v1/data-quality/runs/:id', methods: { GET: need('admin.data_quality_check.view') } },
  { pattern: '/v1/data-quality/runs/:id/failures', methods: { GET: need('admin.data_quality_check.view') } },
  { pattern: '/v1/data-availability', methods: { GET: need('admin.data_availability.view') } },
  { pattern: '/v1/resource-usage', methods: { GET: need('admin.resource_usage.view') } },
  { pattern: '/v1/data-flow', methods: { GET: need('admin.data_flow.view') } },

  // ── Issue 15, analytics: list-export queries and datasets ──
  // Saved queries are shared by the tenant's analysts (src/lib/analytics/queries.ts); results and
  // exports go through the caller's data permissions like the lists.
  {
    pattern: '/v1/analytics/queries',
    methods: { GET: need('analytics.list_export.view'), POST: need('analytics.list_export.edit') },
    audit: audited('saved_query', { POST: 'saved_query.save' }),
  },
  { pattern: '/v1/analytics/queries/results', methods: { POST: need('analytics.list_export.run_query') } },
  {
    pattern: '/v1/analytics/queries/:id',
    methods: {
      GET: need('analytics.list_export.view'),
      PUT: need('analytics.list_export.edit'),
      DELETE: need('analytics.list_export.edit'),
    },
    audit: audited('saved_query', { PUT: 'saved_query.save', DELETE: 'saved_query.delete' }),
  },
  { pattern: '/v1/analytics/queries/:id/results', methods: { GET: need('analytics.list_export.run_query') } },
  {
    pattern: '/v1/analytics/queries/:id/export',
    methods: { POST: need('analytics.list_export.export_query') },
    audit: audited('saved_query', { POST: 'saved_query.export' }),
  },

  // ── Issue 15, analytics: custom metrics and reports ──
  // Custom metrics: the spec's one key for the area (analytics.custom_metrics.view) also saves them
  // (src/lib/analytics/metrics.ts says why); the preview computes without saving.
  {
    pattern: '/v1/analytics/metrics',
    methods: { GET: need('analytics.custom_metrics.view'), POST: need('analytics.custom_metrics.view') },
    audit: audited('custom_metric', { POST: 'custom_metric.create' }),
  },
  { pattern: '/v1/analytics/metrics/preview', methods: { POST: need('analytics.custom_metrics.view') } },
  {
    pattern: '/v1/analytics/metrics/:type/:name',
    methods: {
      GET: need('analytics.custom_metrics.view'),
      PUT: need('analytics.custom_metrics.view'),
      DELETE: need('analytics.custom_metrics.view'),
    },
    audit: audited('custom_metric', { PUT: 'custom_metric.update', DELETE: 'custom_metric.delete' }),
  },
  // Reports (also behind the plan feature analytics_reports, src/lib/plans/feature-routes.ts).
  {
    pattern: '/v1/analytics/reports',
    methods: { GET: need('analytics.reports.view'), POST: need('analytics.reports.edit') },
    audit: audited('report', { POST: 'report.create' }),
  },
  {
    pattern: '/v1/analytics/reports/:id',
    methods: {
      GET: need('analytics.reports.view'),
      PUT: need('analytics.reports.edit'),
      DELETE: need('analytics.reports.edit'),
    },
    audit: audited('report', { PUT: 'report.update', DELETE: 'report.delete' }),
  },

  // ── Issue 16, webhooks (src/lib/webhooks) ──
  {
    pattern: '/v1/webhooks',
    methods: { GET: need('admin.webhooks.view'), POST: need('admin.webhooks.edit') },
    audit: audited('webhook', { POST: 'webhook.create' }),
  },
  {
    pattern: '/v1/webhooks/:id',
    methods: {
      GET: need('admin.webhooks.view'),
      PATCH: need('admin.webhooks.edit'),
      DELETE: need('admin.webhooks.edit'),
    },
    audit: audited('webhook', { PATCH: 'webhook.update', DELETE: 'webhook.delete' }),
  },
  { pattern: '/v1/webhooks/:id/deliveries', methods: { GET: need('admin.webhooks.view') } },
  {
    pattern: '/v1/webhooks/:id/rotate-secret',
    methods: { POST: need('admin.webhooks.edit') },
    audit: audited('webhook', { POST: 'webhook.rotate_secret' }),
  },
  {
    pattern: '/v1/webhooks/:id/test',
    methods: { POST: need('admin.webhooks.edit') },
    audit: audited('webhook', { POST: 'webhook.send_test' }),
  },
  {
    pattern: '/v1/webhooks/:id/deliveries/:deliveryId/resend',
    methods: { POST: need('admin.webhooks.edit') },
    audit: audited('webhook', { POST: 'webhook.resend' }),
  },
  // ── Issue 16, scheduled exports (src/lib/scheduled-exports) ──
  {
    pattern: '/v1/scheduled-exports',
    methods: { GET: need('admin.scheduled_exports.view'), POST: need('admin.scheduled_exports.edit') },
    audit: audited('scheduled_export', { POST: 'scheduled_export.create' }),
  },
  {
    pattern: '/v1/scheduled-exports/:id',
    methods: {
      GET: need('admin.scheduled_exports.view'),
      PATCH: need('admin.scheduled_exports.edit'),
      DELETE: need('admin.scheduled_exports.edit'),
    },
    audit: audited('scheduled_export', { PATCH: 'scheduled_export.update', DELETE: 'scheduled_export.delete' }),
  },
  {
    pattern: '/v1/scheduled-exports/:id/run',
    methods: { POST: need('admin.scheduled_exports.edit') },
    audit: audited('scheduled_export', { POST: 'scheduled_export.run' }),
  },
  { pattern: '/v1/scheduled-exports/:id/runs', methods: { GET: need('admin.scheduled_exports.view') } },
  // Issue 16, data upload (src/lib/data-import): history and state need data_upload.view; uploading,
  // dry runs and commits need data_upload.edit. Import buckets are administrators' only.
  {
    pattern: '/v1/data-imports',
    methods: { GET: need('admin.data_upload.view'), POST: need('admin.data_upload.edit') },
    audit: audited('data_import', { POST: 'data_import.upload' }),
  },
  { pattern: '/v1/data-imports/:id', methods: { GET: need('admin.data_upload.view') } },
  {
    pattern: '/v1/data-imports/:id/dry-run',
    methods: { POST: need('admin.data_upload.edit') },
    audit: audited('data_import', { POST: 'data_import.run' }),
  },
  {
    pattern: '/v1/data-imports/:id/commit',
    methods: { POST: need('admin.data_upload.edit') },
    audit: audited('data_import', { POST: 'data_import.run' }),
  },
  {
    pattern: '/v1/import-buckets',
    methods: { GET: ADMIN, POST: ADMIN },
    audit: audited('import_bucket', { POST: 'import_bucket.create' }),
  },
  {
    pattern: '/v1/import-buckets/:id',
    methods: { GET: ADMIN, PATCH: ADMIN, DELETE: ADMIN },
    audit: audited('import_bucket', { PATCH: 'import_bucket.update', DELETE: 'import_bucket.delete' }),
  },
  {
    pattern: '/v1/import-buckets/:id/check',
    methods: { POST: ADMIN },
    audit: audited('import_bucket', { POST: 'import_bucket.check' }),
  },
  { pattern: '/v1/import-buckets/:id/test', methods: { POST: ADMIN } },
  {
    pattern: '/v1/import-buckets/:id/host-key',
    methods: { DELETE: ADMIN },
    audit: audited('import_bucket', { DELETE: 'import_bucket.forget_host_key' }),
  },
  { pattern: '/v1/import-buckets/:id/runs', methods: { GET: ADMIN } },
  // Interest recalculation (issue 17): the amount that closes a loan on a date.
  { pattern: '/v1/loans/:id/pre-closure', methods: { GET: need('loans.loans.view') } },
];

const COMPILED_API = compile(API_ROUTES);

export function matchApiRoute(pathname: string): RouteMatch<ApiRouteEntry> | null {
  return matchCompiled(COMPILED_API, pathname);
}

export function canCall(user: PermissionSubject | null | undefined, rule: Rule): boolean {
  return allows(user, rule);
}

export type { Area };

/**
 * The canonical casing of a decoded path: the path itself when a page or API route matches it
 * exactly; otherwise, when a route matches ignoring the case of its fixed segments, the path with
 * those segments spelled as the route spells them (params keep their case); else null.
 */
export function canonicalRouteCase(path: string): string | null {
  if (matchRoute(path) || matchApiRoute(path)) return path;
  const parts = path.split('/').filter(Boolean);
  for (const c of [...COMPILED_PAGES, ...COMPILED_API] as Compiled<{ pattern: string }>[]) {
    if (parts.length !== c.segments.length) continue;
    const fixed = [...parts];
    let ok = true;
    for (let i = 0; i < c.segments.length; i++) {
      const seg = c.segments[i];
      if (seg.startsWith(':')) continue;
      if (seg.toLowerCase() !== parts[i].toLowerCase()) {
        ok = false;
        break;
      }
      fixed[i] = seg;
    }
    if (ok) return '/' + fixed.join('/');
  }
  return null;
}
