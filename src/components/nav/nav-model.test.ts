import { describe, expect, it } from 'vitest';
import { DEMO_ROLES } from '#lib/auth/permissions.ts';
import { matchRoute } from '#lib/auth/route-manifest.ts';
import { NAV, activeItem, visibleItems, visibleSections } from './nav-model.ts';

const admin = { isAdmin: true, authorities: [] };
const none = { isAdmin: false, authorities: [] };

describe('navigation follows the route manifest', () => {
  it('every nav link is a route of the manifest', () => {
    const unknown = Object.values(NAV)
      .flat()
      .filter((item) => !matchRoute(item.path))
      .map((i) => i.path);
    expect(unknown).toEqual([]);
  });

  it('an administrator sees every section and every link', () => {
    expect(visibleSections(admin).map((s) => s.section)).toEqual(['root', 'loans', 'analytics', 'strategies', 'admin']);
    expect(visibleItems(admin, 'admin')).toHaveLength(NAV.admin.length);
  });

  it('a user with no authority sees only the root area, never admin-only pages', () => {
    expect(visibleSections(none).map((s) => s.section)).toEqual(['root']);
    expect(visibleItems(none, 'admin')).toEqual([]);
  });

  it('each demo role sees only links it may open and no admin-only link', () => {
    for (const [name, role] of Object.entries(DEMO_ROLES)) {
      if (role.isAdmin) continue;
      const user = { isAdmin: false, authorities: role.authorities };
      const adminOnly = visibleItems(user, 'admin').filter(
        (item) => matchRoute(item.path)!.entry.rule.kind === 'admin',
      );
      expect(adminOnly, name).toEqual([]);
    }
  });

  it('marks the deepest matching link active', () => {
    expect(activeItem('analytics', '/analytics/risk/product/cards')).toBe('/analytics/risk/product');
    expect(activeItem('root', '/')).toBe('/');
    expect(activeItem('root', '/conversations')).toBe('/conversations');
  });
});
