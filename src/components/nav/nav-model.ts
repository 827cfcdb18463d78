import { canOpen, matchRoute, type LayoutSection } from '#lib/auth/route-manifest.ts';
import type { PermissionSubject } from '#lib/auth/permissions.ts';

/**
 * What the navigation links to. Whether a user sees a link is NOT decided here: each path is looked
 * up in the route manifest (src/lib/auth/route-manifest.ts) and shown only when the guard would let
 * the user open it, so the menu and the guard can never disagree.
 */
export type NavSection = 'root' | LayoutSection;
export type NavItem = { path: string; labelKey: string; group?: string };

export const SECTION_HOME: Record<NavSection, string> = {
  root: '/',
  loans: '/loans/overview',
  analytics: '/analytics/overview',
  strategies: '/strategies/list',
  admin: '/admin/user/users',
};

export const NAV: Record<NavSection, NavItem[]> = {
  root: [
    { path: '/', labelKey: 'nav:root.home' },
    { path: '/conversations', labelKey: 'nav:root.conversations' },
    { path: '/data-flow', labelKey: 'nav:root.dataFlow' },
  ],
  loans: [
    { path: '/loans/overview', labelKey: 'nav:loans.overview' },
    { path: '/loans/customers', labelKey: 'nav:loans.customers' },
    { path: '/loans/offers', labelKey: 'nav:loans.offers' },
    { path: '/loans/loans', labelKey: 'nav:loans.loans' },
    { path: '/loans/loan-applications', labelKey: 'nav:loans.loanApplications' },
    { path: '/loans/payments', labelKey: 'nav:loans.payments' },
    { path: '/loans/collaterals', labelKey: 'nav:loans.collaterals' },
    { path: '/loans/collection', labelKey: 'nav:loans.collection' },
    { path: '/loans/performance', labelKey: 'nav:loans.performance' },
    { path: '/loans/tasks', labelKey: 'nav:loans.tasks' },
    { path: '/loans/conversations', labelKey: 'nav:loans.conversations' },
  ],
  analytics: [
    { path: '/analytics/overview', labelKey: 'nav:analytics.overview' },
    { path: '/analytics/risk/product', labelKey: 'nav:analytics.riskProduct' },
    { path: '/analytics/risk/branch', labelKey: 'nav:analytics.riskBranch' },
    { path: '/analytics/risk/delinquency', labelKey: 'nav:analytics.delinquency' },
    { path: '/analytics/risk/vintage-analysis', labelKey: 'nav:analytics.vintage' },
    { path: '/analytics/risk/bullet-loans-collection', labelKey: 'nav:analytics.bullet' },
    { path: '/analytics/queries', labelKey: 'nav:analytics.queries' },
    { path: '/analytics/metrics-config', labelKey: 'nav:analytics.metricsConfig' },
    { path: '/analytics/reports', labelKey: 'nav:analytics.reports' },
    { path: '/analytics/performance/monthly-revenue', labelKey: 'nav:analytics.monthlyRevenue' },
    { path: '/analytics/performance/portfolio-analysis', labelKey: 'nav:analytics.portfolio' },
  ],
  strategies: [{ path: '/strategies/list', labelKey: 'nav:strategies.list' }],
  admin: [
    { path: '/admin/user/users', labelKey: 'nav:admin.users', group: 'user' },
    { path: '/admin/user/roles', labelKey: 'nav:admin.roles', group: 'user' },
    { path: '/admin/user/permissions', labelKey: 'nav:admin.permissions', group: 'user' },
    { path: '/admin/user/ip-restriction', labelKey: 'nav:admin.ipRestriction', group: 'user' },
    { path: '/admin/notifications/webhooks', labelKey: 'nav:admin.webhooks', group: 'notifications' },
    { path: '/admin/notifications/events', labelKey: 'nav:admin.events', group: 'notifications' },
    { path: '/admin/notifications/scheduled-exports', labelKey: 'nav:admin.scheduledExports', group: 'notifications' },
    { path: '/admin/data/data-quality-check', labelKey: 'nav:admin.dataQuality', group: 'data' },
    { path: '/admin/data/data-upload', labelKey: 'nav:admin.dataUpload', group: 'data' },
    { path: '/admin/data/data-availability', labelKey: 'nav:admin.dataAvailability', group: 'data' },
    { path: '/admin/data/days-off', labelKey: 'nav:admin.daysOff', group: 'data' },
    { path: '/admin/data/data-resource-usage', labelKey: 'nav:admin.resourceUsage', group: 'data' },
    { path: '/admin/data/import-buckets', labelKey: 'nav:admin.importBuckets', group: 'data' },
    { path: '/admin/platform/general-settings', labelKey: 'nav:admin.generalSettings', group: 'platform' },
    { path: '/admin/platform/download', labelKey: 'nav:admin.download', group: 'platform' },
    { path: '/admin/platform/translations', labelKey: 'nav:admin.translations', group: 'platform' },
    { path: '/admin/platform/password-policy', labelKey: 'nav:admin.passwordPolicy', group: 'platform' },
    { path: '/admin/platform/error-reports', labelKey: 'nav:admin.errorReports', group: 'platform' },
    { path: '/admin/plan-contracts/contracts', labelKey: 'nav:admin.contracts', group: 'planContracts' },
    { path: '/admin/plan-contracts/plan', labelKey: 'nav:admin.plan', group: 'planContracts' },
    { path: '/admin/processes/strategy-editing', labelKey: 'nav:admin.strategyEditing', group: 'business' },
    { path: '/admin/business/application-form', labelKey: 'nav:admin.applicationForm', group: 'business' },
    { path: '/admin/business/decision-engine', labelKey: 'nav:admin.decisionEngine', group: 'business' },
    { path: '/admin/business/collection-workflow', labelKey: 'nav:admin.collectionWorkflow', group: 'business' },
    { path: '/admin/business/loan-products', labelKey: 'nav:admin.loanProducts', group: 'business' },
    { path: '/admin/business/collateral', labelKey: 'nav:admin.collateral', group: 'business' },
    { path: '/admin/business/decision-models', labelKey: 'nav:admin.decisionModels', group: 'business' },
    { path: '/admin/business/customized-form', labelKey: 'nav:admin.customizedForm', group: 'business' },
  ],
};

/** May this user open this path? False for a path the manifest does not know (deny by default). */
export function canOpenPath(user: PermissionSubject | null | undefined, path: string): boolean {
  const match = matchRoute(path);
  return match ? canOpen(user, match.entry) : false;
}

export function visibleItems(user: PermissionSubject | null | undefined, section: NavSection): NavItem[] {
  return NAV[section].filter((item) => canOpenPath(user, item.path));
}

/**
 * The sections shown in the top bar: those with at least one page the user may open, each linking
 * to its first openable page (so an analyst without 'overview' still lands somewhere allowed).
 */
export function visibleSections(user: PermissionSubject | null | undefined): { section: NavSection; href: string }[] {
  const order: NavSection[] = ['root', 'loans', 'analytics', 'strategies', 'admin'];
  return order.flatMap((section) => {
    const first = visibleItems(user, section)[0];
    return first ? [{ section, href: first.path }] : [];
  });
}

/** The nav item a path belongs to (longest matching prefix), for aria-current. */
export function activeItem(section: NavSection, pathname: string): string | undefined {
  const candidates = NAV[section].filter((item) =>
    item.path === '/' ? pathname === '/' : pathname === item.path || pathname.startsWith(`${item.path}/`),
  );
  return candidates.sort((a, b) => b.path.length - a.path.length)[0]?.path;
}
