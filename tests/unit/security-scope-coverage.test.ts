import { describe, expect, it } from 'vitest';
import { CASES, caseFor, mutatingRoutes, SCOPE_FREE } from '../e2e/support/payloads-scope.ts';

// The one-branch officer probe (tests/e2e/security-scope.spec.ts) must cover every route that
// changes data. The list comes from the route manifest and the page files; a new mutating /v1 route
// or form post fails here until it has a case in tests/e2e/support/payloads-scope.ts CASES, or a
// reason in SCOPE_FREE for acting on no branch data.

describe('the branch-scope probe covers every mutating route', () => {
  const routes = mutatingRoutes();
  const all = [...routes.api, ...routes.pages];

  it('the manifest and the files agree', () => expect(routes.problems).toEqual([]));
  it('finds the mutating routes', () => {
    expect(routes.api).toContain('POST /v1/customers/:id/opt-out');
    expect(routes.pages).toContain('POST /loans/customers/add');
    expect(routes.pages).toContain('POST /loans/customer/profile/:customerId/resume');
  });
  it.each(all)('%s has a case or a reason', (route) => {
    expect(
      Boolean(caseFor(route)) || Boolean(SCOPE_FREE[route]),
      `${route}: add a case to CASES or a reason to SCOPE_FREE`,
    ).toBe(true);
    expect(Boolean(caseFor(route)) && Boolean(SCOPE_FREE[route]), `${route} is both probed and scope-free`).toBe(false);
  });
  it('lists no route that does not exist', () => {
    const known = new Set(all);
    expect([...Object.keys(CASES), ...Object.keys(SCOPE_FREE)].filter((k) => !known.has(k))).toEqual([]);
  });
});
