/**
 * Permissions are data. Three things live here:
 *  1. the permission check;
 *  2. the table of every permission key the route guards name, and the demo role map built from it;
 *  3. the plan feature flags and usage limits.
 * Nothing here knows about Astro or the database; the route manifest and the guard read this file.
 */

/** The six permission areas. */
export const AREAS = ['admin', 'loans', 'analytics', 'strategies', 'customer', 'collection'] as const;
export type Area = (typeof AREAS)[number];

/**
 * Every resource of every area with the actions the route guards name. A key is
 * `area.resource.action` (see permissionKey). Names are snake_case spellings of the spec's words.
 */
export const PERMISSION_TABLE = {
  admin: {
    // `edit` on data upload, scheduled exports, days off and events (issue 16): the spec's guards name
    // only `view`, which opens the pages; changing what they configure takes `edit`.
    data_upload: ['view', 'edit'],
    contracts: ['view', 'update', 'edit'],
    webhooks: ['view', 'edit'],
    scheduled_exports: ['view', 'edit'],
    data_quality_check: ['view'],
    resource_usage: ['view'],
    data_availability: ['view'],
    days_off: ['view', 'edit'],
    users: ['view', 'edit'],
    roles: ['view', 'edit'],
    basic_settings: ['view', 'edit'],
    password_policy: ['view', 'edit'],
    events: ['view', 'edit'],
    downloads: ['view', 'delete'],
    translations: ['view', 'edit'],
    ip_restriction: ['view', 'edit'],
    plan: ['view', 'request'],
    decision_models: ['view', 'edit'],
    collection_workflow: ['view', 'edit', 'delete'],
  },
  analytics: {
    overview: ['view'],
    product_risk: ['view'],
    branch_risk: ['view'],
    delinquency_risk: ['view'],
    vintage_analysis: ['view'],
    bullet_loans_collection: ['view'],
    list_export: ['view', 'edit', 'run_query', 'export_query'],
    custom_metrics: ['view'],
    reports: ['view', 'edit'],
    monthly_revenue: ['view'],
    portfolio_analysis: ['view'],
  },
  loans: {
    custom_views: ['view', 'edit'],
    overview: ['view'],
    customers: ['view', 'opt_in', 'opt_out', 'view_details'],
    loans: ['view', 'transfer_funds', 'repay', 'performance'],
    loan_applications: ['view'],
    payments: ['view'],
    collaterals: ['view', 'add', 'edit', 'delete'],
    offers: [
      'view',
      'notify',
      'reject',
      'print',
      'request_loan',
      'approve_loan',
      'reject_loan',
      'copy_code',
      'simulate_repayment',
    ],
    collection: ['view'],
    tasks: ['view', 'create', 'edit', 'delete', 'manage'],
  },
  strategies: {
    strategies: [
      'view',
      'request',
      'encode_draft',
      'generate_simulation',
      'validate_draft_provider',
      'validate_draft_client',
      'implement',
      'validate_live',
      'deactivate_live',
      'reactivate_inactive',
    ],
  },
  customer: {
    profile: ['view'],
    bureau_pdf: ['view'],
    files: ['view', 'upload', 'download', 'delete'],
    eligibility: ['force'],
    bank_statements: ['view'],
    credit_analysis: ['view'],
  },
  collection: {
    buckets: ['view'],
  },
} as const satisfies Record<Area, Record<string, readonly string[]>>;

type Table = typeof PERMISSION_TABLE;
/** Every full key of the table, e.g. 'loans.offers.notify'. */
export type PermissionKey = {
  [A in keyof Table]: {
    [R in keyof Table[A] & string]: `${A}.${R}.${Table[A][R] extends readonly (infer X extends string)[] ? X : never}`;
  }[keyof Table[A] & string];
}[keyof Table];

/** All keys of the table, in table order. */
export const PERMISSION_KEYS: readonly PermissionKey[] = Object.entries(PERMISSION_TABLE).flatMap(([area, resources]) =>
  Object.entries(resources).flatMap(([resource, actions]) =>
    (actions as readonly string[]).map((action) => `${area}.${resource}.${action}` as PermissionKey),
  ),
);

const KEY_SET: ReadonlySet<string> = new Set(PERMISSION_KEYS);
export function isPermissionKey(value: string): value is PermissionKey {
  return KEY_SET.has(value);
}

/**
 * Builds a permission key: `area.resource.action`, the action defaulting to 'view'. With no
 * resource the key is the bare area. Throws on a key that the table does not know, so a typo in a
 * route guard fails loudly at start-up instead of silently denying.
 */
export function permissionKey(area: Area, resource?: string, action = 'view'): string {
  if (!resource) return area;
  const key = `${area}.${resource}.${action}`;
  if (!KEY_SET.has(key)) throw new Error(`Unknown permission key ${key}`);
  return key;
}

/**
 * The keys an authority grants for `key`: the key itself, then its fallbacks `area.resource` and
 * `area`. So a role holding 'loans' may do everything in loans; one holding 'loans.offers' may
 * do every action on offers.
 */
export function keyFallbacks(key: string): string[] {
  const parts = key.split('.');
  const out: string[] = [];
  for (let n = parts.length; n >= 1; n--) out.push(parts.slice(0, n).join('.'));
  return out;
}

/**
 * Permissions no role is granted directly: a user holds one when they hold any (`anyOf`) or all
 * (`allOf`) of the keys that imply it. Where the product lets several permissions open the same thing
 * (the product catalogue is read by whoever sees loans or offers), or needs two at once (importing a
 * bank statement uploads a file into the statements), the implication lives here, so every route
 * still names exactly one key.
 */
export const IMPLIED_PERMISSIONS = {
  'loans.products.view': { anyOf: ['loans.loans.view', 'loans.offers.view'] },
  'loans.schedules.preview': { anyOf: ['loans.offers.simulate_repayment', 'loans.loans.view'] },
  'customer.bank_statements.import': { allOf: ['customer.files.upload', 'customer.bank_statements.view'] },
  // /data-flow (issue 16): the spec names no key; whoever sees any of the integrations or data pages
  // sees where the tenant's data comes from and goes to.
  'admin.data_flow.view': {
    anyOf: [
      'admin.webhooks.view',
      'admin.events.view',
      'admin.scheduled_exports.view',
      'admin.data_upload.view',
      'admin.data_availability.view',
    ],
  },
} as const satisfies Record<string, { anyOf: readonly PermissionKey[] } | { allOf: readonly PermissionKey[] }>;
export type ImpliedPermissionKey = keyof typeof IMPLIED_PERMISSIONS;
/** A key a rule may name: one of the table, or an implied one. */
export type RuleKey = PermissionKey | ImpliedPermissionKey;

export function isRuleKey(value: string): value is RuleKey {
  return KEY_SET.has(value) || Object.hasOwn(IMPLIED_PERMISSIONS, value);
}

/** What the check needs of a user: the admin flag and the authorities. */
export type PermissionSubject = { isAdmin: boolean; authorities: readonly string[] };

function holds(authorities: ReadonlySet<string>, key: string): boolean {
  const implied = (IMPLIED_PERMISSIONS as Record<string, { anyOf?: readonly string[]; allOf?: readonly string[] }>)[
    key
  ];
  if (implied?.anyOf) return implied.anyOf.some((k) => holds(authorities, k));
  if (implied?.allOf) return implied.allOf.every((k) => holds(authorities, k));
  return keyFallbacks(key).some((k) => authorities.has(k));
}

/**
 * The permission check. No user fails; an administrator (the Administrator role: all permissions)
 * passes everything; otherwise the key must be held, directly, through one of its fallbacks
 * (`area.resource`, `area`), or through a key that implies it.
 */
export function hasPermission(user: PermissionSubject | null | undefined, key: RuleKey): boolean {
  if (!user) return false;
  if (user.isAdmin) return true;
  return holds(new Set(user.authorities), key);
}

// ---------------------------------------------------------------------------------------------
// Access rules: what every page route, /v1 route and method, and every action shown on a page
// requires. Exactly one of four; administrators are spelled only as ADMIN.

export type Rule =
  /** Needs no signed-in user (sign-in itself, the public application form). */
  | { readonly kind: 'public' }
  /** Any signed-in user (or API token). */
  | { readonly kind: 'signed-in' }
  /** A signed-in user holding this one key. */
  | { readonly kind: 'permission'; readonly key: RuleKey }
  /** Administrators only: what the permission table has no key for. */
  | { readonly kind: 'admin' };

export const PUBLIC: Rule = Object.freeze({ kind: 'public' });
export const SIGNED_IN: Rule = Object.freeze({ kind: 'signed-in' });
export const ADMIN: Rule = Object.freeze({ kind: 'admin' });
export function need(key: RuleKey): Rule {
  return { kind: 'permission', key };
}

/** Whether this user (or nobody) satisfies the rule: the one evaluation the guard and the pages share. */
export function allows(user: PermissionSubject | null | undefined, rule: Rule): boolean {
  if (rule.kind === 'public') return true;
  if (!user) return false;
  if (rule.kind === 'signed-in') return true;
  if (rule.kind === 'admin') return user.isAdmin;
  return hasPermission(user, rule.key);
}

// ---------------------------------------------------------------------------------------------
// Demo roles (the demo seed creates them from here; admin screens may offer them as templates).

export type RoleTemplate = {
  name: string;
  description: string;
  isAdmin: boolean;
  authorities: readonly PermissionKey[];
};

const loanOfficer = [
  'loans.overview.view',
  'loans.customers.view',
  'loans.customers.opt_in',
  'loans.customers.opt_out',
  'loans.customers.view_details',
  'loans.custom_views.view',
  'loans.custom_views.edit',
  'loans.offers.view',
  'loans.offers.notify',
  'loans.offers.reject',
  'loans.offers.print',
  'loans.offers.request_loan',
  'loans.offers.copy_code',
  'loans.offers.simulate_repayment',
  // The officer transfers the funds of an approved loan; approving stays with another user.
  'loans.loans.view',
  'loans.loans.repay',
  'loans.loans.transfer_funds',
  'loans.loan_applications.view',
  'loans.payments.view',
  'loans.collaterals.view',
  'loans.collaterals.add',
  'loans.collaterals.edit',
  'loans.tasks.view',
  'loans.tasks.create',
  'loans.tasks.edit',
  // Officers hand follow-ups to colleagues (manage = assign to others, spec §6); collectors do not.
  'loans.tasks.manage',
  'customer.profile.view',
  'customer.files.view',
  'customer.files.upload',
  'customer.files.download',
  'customer.bureau_pdf.view',
  'customer.bank_statements.view',
] as const satisfies readonly PermissionKey[];

const analyst = [
  'analytics.overview.view',
  'analytics.product_risk.view',
  'analytics.branch_risk.view',
  'analytics.delinquency_risk.view',
  'analytics.vintage_analysis.view',
  'analytics.bullet_loans_collection.view',
  'analytics.list_export.view',
  'analytics.list_export.edit',
  'analytics.list_export.run_query',
  'analytics.list_export.export_query',
  'analytics.custom_metrics.view',
  'analytics.reports.view',
  'analytics.reports.edit',
  'analytics.monthly_revenue.view',
  'analytics.portfolio_analysis.view',
  'loans.overview.view',
  'loans.loans.view',
  'loans.loans.performance',
  'loans.customers.view',
  // The lists an analyst's queries, metrics and reports read (a dataset needs its list's permission).
  'loans.payments.view',
  'loans.loan_applications.view',
  'loans.collaterals.view',
  'customer.profile.view',
  'customer.credit_analysis.view',
] as const satisfies readonly PermissionKey[];

const collector = [
  'loans.collection.view',
  'collection.buckets.view',
  'loans.payments.view',
  'loans.loans.view',
  'loans.loans.repay',
  'loans.customers.view',
  'loans.customers.view_details',
  'loans.tasks.view',
  'loans.tasks.create',
  'loans.tasks.edit',
  'customer.profile.view',
  'customer.files.view',
] as const satisfies readonly PermissionKey[];

const strategist = [
  'strategies.strategies.view',
  'strategies.strategies.request',
  'strategies.strategies.encode_draft',
  'strategies.strategies.generate_simulation',
  'strategies.strategies.validate_draft_client',
  'strategies.strategies.implement',
  'strategies.strategies.validate_live',
  'strategies.strategies.deactivate_live',
  'strategies.strategies.reactivate_inactive',
  'analytics.overview.view',
  'analytics.product_risk.view',
  'analytics.portfolio_analysis.view',
] as const satisfies readonly PermissionKey[];

/**
 * The provider's credit-risk team (the vendor's side of a strategy): encodes drafts with decision
 * models, simulates them, validates drafts as the provider and validates live strategies. The
 * lender's own strategist validates as the client, so a draft always has two signatures.
 */
const strategyProvider = [
  'strategies.strategies.view',
  'strategies.strategies.encode_draft',
  'strategies.strategies.generate_simulation',
  'strategies.strategies.validate_draft_provider',
  'strategies.strategies.validate_live',
  'analytics.overview.view',
] as const satisfies readonly PermissionKey[];

/** The demo role map of the platform issue, as data. `administrator` is the all_permissions role. */
export const DEMO_ROLES = {
  loan_officer: {
    name: 'Loan officer',
    description: 'Customers, offers, loans and tasks of their branch',
    isAdmin: false,
    authorities: loanOfficer,
  },
  analyst: { name: 'Analyst', description: 'Risk and performance analytics', isAdmin: false, authorities: analyst },
  collector: {
    name: 'Collector',
    description: 'Collection, payments and follow-up tasks',
    isAdmin: false,
    authorities: collector,
  },
  strategist: { name: 'Strategist', description: 'Lending strategies', isAdmin: false, authorities: strategist },
  strategy_provider: {
    name: 'Strategy provider',
    description: 'Encodes, simulates and validates strategies for the lender',
    isAdmin: false,
    authorities: strategyProvider,
  },
  administrator: { name: 'Administrator', description: 'All permissions', isAdmin: true, authorities: [] },
} as const satisfies Record<string, RoleTemplate>;
export type DemoRole = keyof typeof DEMO_ROLES;

// ---------------------------------------------------------------------------------------------
// Plan feature flags and usage limits.

export type FeaturePlan = { enabled: boolean; unlimited: boolean; usage_limit?: number | null };
export type PricingFeature = {
  name: string;
  supports_usage_limit: boolean;
  usage_unit: string | null;
  plans: readonly FeaturePlan[];
  /** What the tenant has used so far (in usage_unit); 0 when not counted. */
  usage?: number;
};

function findFeature(features: readonly PricingFeature[], name: string): PricingFeature | undefined {
  return features.find((f) => f.name === name);
}

/** A feature is enabled when its FIRST plan is enabled; an unknown feature or one without plans is not. */
export function isFeatureEnabled(features: readonly PricingFeature[], name: string): boolean {
  return findFeature(features, name)?.plans[0]?.enabled === true;
}

/**
 * The limit is reached when the feature supports limits, its first plan is not unlimited, and
 * usage ≥ usage_limit (a missing limit counts as 0). Unknown features are never limited.
 */
export function isUsageLimitReached(features: readonly PricingFeature[], name: string, usage?: number): boolean {
  const feature = findFeature(features, name);
  if (!feature || !feature.supports_usage_limit) return false;
  // A feature with no plan is "not unlimited" with a limit of 0: reached (fail closed).
  const plan = feature.plans[0];
  if (plan?.unlimited) return false;
  return (usage ?? feature.usage ?? 0) >= (plan?.usage_limit ?? 0);
}
