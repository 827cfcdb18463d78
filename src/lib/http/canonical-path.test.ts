import { describe, expect, it } from 'vitest';
import { canonicalRouteCase } from '../auth/route-manifest.ts';
import { canonicalisePath } from './canonical-path.ts';

describe('canonicalisePath', () => {
  it.each([
    ['/', { kind: 'ok', path: '/' }],
    ['/admin/user/users', { kind: 'ok', path: '/admin/user/users' }],
    ['/analytics/metrics-config/x/My%20Metric', { kind: 'ok', path: '/analytics/metrics-config/x/My Metric' }],
    ['/%61dmin/user/users', { kind: 'redirect', path: '/admin/user/users', location: '/admin/user/users' }],
    ['//admin/user/users', { kind: 'redirect', path: '/admin/user/users', location: '/admin/user/users' }],
    ['/admin//user/users', { kind: 'redirect', path: '/admin/user/users', location: '/admin/user/users' }],
    ['/admin/user/users/', { kind: 'redirect', path: '/admin/user/users', location: '/admin/user/users' }],
    ['/Admin/User/users', { kind: 'redirect', path: '/admin/user/users', location: '/admin/user/users' }],
    ['/loans/tasks/edit/AbC', { kind: 'ok', path: '/loans/tasks/edit/AbC' }],
  ])('%s', (raw, expected) => {
    expect(canonicalisePath(raw, canonicalRouteCase)).toEqual(expected);
  });

  it.each([
    ['/%2561dmin/user/users', 'double percent-encoding'],
    ['/admin%2Fuser/users', 'encoded slash'],
    ['/admin%5Cuser', 'control character or backslash'],
    ['/admin/%00', 'control character or backslash'],
    ['/admin/%2e%2e/user', 'dot segment'],
    ['/admin/%E0%A4%A', 'malformed percent-encoding'],
    ['admin', 'path must start with /'],
  ])('refuses %s', (raw, reason) => {
    expect(canonicalisePath(raw, canonicalRouteCase)).toEqual({ kind: 'reject', reason });
  });

  it('is stable: a redirect target canonicalises to itself', () => {
    for (const raw of ['/%61dmin/user/users', '//Loans//tasks/', '/analytics/metrics-config/x/a%3Ab']) {
      const first = canonicalisePath(raw, canonicalRouteCase);
      expect(first.kind).toBe('redirect');
      if (first.kind === 'redirect')
        expect(canonicalisePath(first.location, canonicalRouteCase)).toEqual({ kind: 'ok', path: first.path });
    }
  });
});
