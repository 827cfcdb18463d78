import { describe, expect, it } from 'vitest';
import {
  ADMIN,
  DEMO_ROLES,
  PERMISSION_KEYS,
  PERMISSION_TABLE,
  PUBLIC,
  SIGNED_IN,
  allows,
  hasPermission,
  isFeatureEnabled,
  isPermissionKey,
  isRuleKey,
  isUsageLimitReached,
  keyFallbacks,
  need,
  permissionKey,
  type PricingFeature,
} from '#lib/auth/permissions.ts';

const user = (authorities: string[], isAdmin = false) => ({ isAdmin, authorities });

describe('permission check', () => {
  it.each([
    ['admin passes a key it does not hold', user([], true), 'loans.offers.notify', true],
    ['string held passes', user(['loans.offers.notify']), 'loans.offers.notify', true],
    ['string not held fails', user(['loans.offers.view']), 'loans.offers.notify', false],
    ['fallback to area.resource', user(['loans.offers']), 'loans.offers.notify', true],
    ['fallback to area', user(['loans']), 'loans.tasks.delete', true],
    ['area fallback does not cross areas', user(['loans']), 'analytics.overview.view', false],
    ['a more specific authority does not grant the broader key', user(['loans.offers.view']), 'loans.offers', false],
    ['a prefix that is not a whole segment grants nothing', user(['loans.off']), 'loans.offers.view', false],
    [
      'an implied key is held through any key that implies it',
      user(['loans.offers.view']),
      'loans.products.view',
      true,
    ],
    ['an implied key is not held without one', user(['loans.tasks.view']), 'loans.products.view', false],
    [
      'an all-of implied key needs every key',
      user(['customer.files.upload']),
      'customer.bank_statements.import',
      false,
    ],
    [
      'an all-of implied key passes with every key (fallbacks count)',
      user(['customer.files.upload', 'customer.bank_statements']),
      'customer.bank_statements.import',
      true,
    ],
  ])('%s', (_name, subject, requirement, expected) => {
    expect(hasPermission(subject, requirement as never)).toBe(expected);
  });

  it.each([[null], [undefined]])('no user fails every rule but public (%s)', (nobody) => {
    expect(hasPermission(nobody, 'loans.loans.view')).toBe(false);
    expect(allows(nobody, PUBLIC)).toBe(true);
    expect(allows(nobody, SIGNED_IN)).toBe(false);
    expect(allows(nobody, ADMIN)).toBe(false);
    expect(allows(nobody, need('loans.loans.view'))).toBe(false);
  });

  it('evaluates each of the four rules', () => {
    expect(allows(user([]), SIGNED_IN)).toBe(true);
    expect(allows(user(['loans', 'admin']), ADMIN)).toBe(false);
    expect(allows(user([], true), ADMIN)).toBe(true);
    expect(allows(user(['loans.loans.view']), need('loans.loans.view'))).toBe(true);
    expect(allows(user(['loans.loans.view']), need('loans.loans.repay'))).toBe(false);
    expect(isRuleKey('loans.products.view')).toBe(true);
    expect(isRuleKey('loans.products.edit')).toBe(false);
    // Implied keys are never granted to a role directly.
    expect(isPermissionKey('loans.products.view')).toBe(false);
  });

  it('builds keys area.resource.action with view as the default action', () => {
    expect(permissionKey('loans', 'offers')).toBe('loans.offers.view');
    expect(permissionKey('loans', 'offers', 'notify')).toBe('loans.offers.notify');
    expect(permissionKey('admin')).toBe('admin');
    expect(() => permissionKey('loans', 'offers', 'explode')).toThrow(/Unknown permission key loans.offers.explode/);
    expect(keyFallbacks('loans.offers.notify')).toEqual(['loans.offers.notify', 'loans.offers', 'loans']);
  });

  it('the key table covers the six areas and every key is well formed and unique', () => {
    expect(Object.keys(PERMISSION_TABLE).sort()).toEqual([
      'admin',
      'analytics',
      'collection',
      'customer',
      'loans',
      'strategies',
    ]);
    expect(new Set(PERMISSION_KEYS).size).toBe(PERMISSION_KEYS.length);
    for (const key of PERMISSION_KEYS) expect(key).toMatch(/^[a-z]+\.[a-z_]+\.[a-z_]+$/);
    // A few keys the route guards name, spelled as the table spells them.
    for (const key of [
      'admin.contracts.update',
      'admin.plan.request',
      'admin.collection_workflow.delete',
      'analytics.list_export.run_query',
      'loans.offers.simulate_repayment',
      'loans.loans.transfer_funds',
      'loans.tasks.manage',
      'strategies.strategies.validate_draft_provider',
      'strategies.strategies.reactivate_inactive',
      'customer.files.download',
      'customer.eligibility.force',
      'collection.buckets.view',
    ]) {
      expect(isPermissionKey(key), key).toBe(true);
    }
  });

  it('demo roles hold only known keys; the administrator is the all_permissions role', () => {
    for (const [id, role] of Object.entries(DEMO_ROLES)) {
      for (const key of role.authorities) expect(isPermissionKey(key), `${id}: ${key}`).toBe(true);
    }
    expect(DEMO_ROLES.administrator.isAdmin).toBe(true);
    expect(Object.values(DEMO_ROLES).filter((r) => r.isAdmin)).toHaveLength(1);
    expect(hasPermission(DEMO_ROLES.loan_officer, 'loans.offers.notify')).toBe(true);
    expect(hasPermission(DEMO_ROLES.loan_officer, 'admin.users.view')).toBe(false);
    expect(hasPermission(DEMO_ROLES.analyst, 'analytics.reports.edit')).toBe(true);
    expect(hasPermission(DEMO_ROLES.collector, 'loans.collection.view')).toBe(true);
    expect(hasPermission(DEMO_ROLES.strategist, 'strategies.strategies.implement')).toBe(true);
  });
});

describe('feature flags and usage limits', () => {
  const feature = (over: Partial<PricingFeature> & { plans: PricingFeature['plans'] }): PricingFeature => ({
    name: 'exports',
    supports_usage_limit: true,
    usage_unit: 'exports',
    ...over,
  });

  it.each([
    [
      'first plan enabled',
      [
        feature({
          plans: [
            { enabled: true, unlimited: false },
            { enabled: false, unlimited: false },
          ],
        }),
      ],
      true,
    ],
    [
      'first plan disabled, second enabled',
      [
        feature({
          plans: [
            { enabled: false, unlimited: false },
            { enabled: true, unlimited: true },
          ],
        }),
      ],
      false,
    ],
    ['no plans', [feature({ plans: [] })], false],
    ['unknown feature', [feature({ name: 'other', plans: [{ enabled: true, unlimited: true }] })], false],
  ])('enabled: %s', (_name, features, expected) => {
    expect(isFeatureEnabled(features, 'exports')).toBe(expected);
  });

  it.each([
    ['usage below the limit', { plans: [{ enabled: true, unlimited: false, usage_limit: 10 }], usage: 9 }, false],
    ['usage at the limit', { plans: [{ enabled: true, unlimited: false, usage_limit: 10 }], usage: 10 }, true],
    ['usage above the limit', { plans: [{ enabled: true, unlimited: false, usage_limit: 10 }], usage: 11 }, true],
    ['unlimited plan', { plans: [{ enabled: true, unlimited: true, usage_limit: 10 }], usage: 50 }, false],
    [
      'feature without limit support',
      { supports_usage_limit: false, plans: [{ enabled: true, unlimited: false, usage_limit: 0 }], usage: 50 },
      false,
    ],
    [
      'missing usage_limit defaults to 0 (reached at 0 usage)',
      { plans: [{ enabled: true, unlimited: false }], usage: 0 },
      true,
    ],
    ['null usage_limit defaults to 0', { plans: [{ enabled: true, unlimited: false, usage_limit: null }] }, true],
    [
      'only the first plan counts',
      {
        plans: [
          { enabled: true, unlimited: false, usage_limit: 1 },
          { enabled: true, unlimited: true },
        ],
        usage: 1,
      },
      true,
    ],
  ])('limit: %s', (_name, over, expected) => {
    expect(isUsageLimitReached([feature(over as never)], 'exports')).toBe(expected);
  });

  it('an explicit usage overrides the feature record; unknown features are never limited', () => {
    const features = [feature({ plans: [{ enabled: true, unlimited: false, usage_limit: 5 }], usage: 0 })];
    expect(isUsageLimitReached(features, 'exports', 5)).toBe(true);
    expect(isUsageLimitReached(features, 'exports', 4)).toBe(false);
    expect(isUsageLimitReached(features, 'unknown', 1_000_000)).toBe(false);
  });
});
