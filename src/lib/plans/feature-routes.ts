/**
 * Which plan feature each route belongs to (plan feature flags): the guard
 * step (src/server/middleware/guard.ts) refuses a route whose feature is not in the tenant's plan —
 * pages with the "not in your plan" page (403), /v1 calls with a 403 naming the feature and plan.
 * Keys are route-manifest patterns (src/lib/auth/route-manifest.ts), so a route is gated exactly as
 * the manifest spells it; a test checks every pattern here exists there.
 *
 * Metered features are also limited where they are consumed (consumeUsage in src/lib/plans/plans.ts):
 * API tokens at creation, exports when queued.
 */
export const FEATURE_PAGES: Readonly<Record<string, readonly string[]>> = {
  strategies: ['/strategies/list', '/strategies/:id', '/admin/processes/strategy-editing'],
  decision_engine: [
    '/admin/business/decision-engine',
    '/admin/business/decision-engine/:id',
    '/admin/application/decision-engine',
    '/admin/business/decision-models',
    '/admin/business/decision-models/:id',
  ],
  analytics_reports: ['/analytics/reports', '/analytics/reports/add', '/analytics/reports/:reportId'],
};

/** /v1 routes (manifest pattern → methods gated; GET lists stay readable so an admin can see and revoke). */
export const FEATURE_APIS: Readonly<Record<string, readonly { pattern: string; methods: readonly string[] }[]>> = {
  api_tokens: [{ pattern: '/v1/auth/api-tokens', methods: ['POST'] }],
  exports: [{ pattern: '/v1/exports', methods: ['POST'] }],
  // The report API is the reports pages' data: gated like them, reads included.
  analytics_reports: [
    { pattern: '/v1/analytics/reports', methods: ['GET', 'POST'] },
    { pattern: '/v1/analytics/reports/:id', methods: ['GET', 'PUT', 'DELETE'] },
  ],
};

const PAGE_FEATURE = new Map(
  Object.entries(FEATURE_PAGES).flatMap(([feature, patterns]) => patterns.map((p) => [p, feature] as const)),
);

/** The plan feature a matched route needs, or null. `pattern` is the manifest entry's pattern. */
export function featureForRoute(pattern: string, method: string): string | null {
  if (!pattern.startsWith('/v1')) return PAGE_FEATURE.get(pattern) ?? null;
  const upper = method.toUpperCase();
  for (const [feature, routes] of Object.entries(FEATURE_APIS)) {
    if (routes.some((r) => r.pattern === pattern && r.methods.includes(upper))) return feature;
  }
  return null;
}
