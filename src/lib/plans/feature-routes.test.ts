import { describe, expect, it } from 'vitest';
import { API_ROUTES, ROUTES } from '../auth/route-manifest.ts';
import { DEMO_PLANS } from './plans.ts';
import { FEATURE_APIS, FEATURE_PAGES, featureForRoute } from './feature-routes.ts';

describe('plan feature → routes', () => {
  it('names only routes of the manifest, with methods they have', () => {
    for (const patterns of Object.values(FEATURE_PAGES)) {
      for (const pattern of patterns)
        expect(
          ROUTES.map((r) => r.pattern),
          pattern,
        ).toContain(pattern);
    }
    for (const routes of Object.values(FEATURE_APIS)) {
      for (const { pattern, methods } of routes) {
        const entry = API_ROUTES.find((r) => r.pattern === pattern);
        expect(entry, pattern).toBeDefined();
        for (const method of methods) expect(Object.keys(entry!.methods)).toContain(method);
      }
    }
  });

  it('gates every flag-only feature the plans define (sso is gated in the sign-in flow itself)', () => {
    const flags = DEMO_PLANS.growth
      .filter((f) => !f.supportsUsageLimit)
      .map((f) => f.feature)
      .filter((f) => f !== 'sso');
    for (const feature of flags) expect(Object.keys(FEATURE_PAGES), feature).toContain(feature);
  });

  it('maps routes to their feature by pattern and method', () => {
    expect(featureForRoute('/analytics/reports/:reportId', 'GET')).toBe('analytics_reports');
    expect(featureForRoute('/admin/business/decision-engine', 'GET')).toBe('decision_engine');
    expect(featureForRoute('/strategies/list', 'GET')).toBe('strategies');
    expect(featureForRoute('/v1/auth/api-tokens', 'POST')).toBe('api_tokens');
    expect(featureForRoute('/v1/auth/api-tokens', 'GET')).toBeNull();
    expect(featureForRoute('/v1/exports', 'post')).toBe('exports');
    expect(featureForRoute('/loans/loans', 'GET')).toBeNull();
  });
});
