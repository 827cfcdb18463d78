import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEMO_ROLES, type DemoRole } from '#lib/auth/permissions.ts';
import type { Principal } from '#lib/auth/principal.ts';
import { ROUTES, type RouteEntry } from '#lib/auth/route-manifest.ts';
import { guard, pageViews } from '../../src/server/middleware/guard.ts';

/** A concrete URL for a pattern: every param filled in. */
function concrete(pattern: string): string {
  return pattern.replace(/:(\w+)/g, (_m, name: string) => `${name}-7`);
}

function principalFor(role: DemoRole, over: Partial<Principal> = {}): Principal {
  const r = DEMO_ROLES[role];
  return {
    tenantId: 'demo-eu1',
    userId: '00000000-0000-4000-8000-000000000001',
    displayName: role,
    email: `${role}@demo.test`,
    isAdmin: r.isAdmin,
    authorities: r.authorities,
    dataPermissions: [],
    language: 'en-US',
    via: 'session',
    sessionId: 's',
    passwordChangeRequired: false,
    sessionTimeout: 60,
    idleTimeout: 60,
    ...over,
  } as Principal;
}

type Outcome = { status: number; location: string | null; rewrittenTo: string | null; body: string };

async function run(path: string, principal: Principal | undefined, method = 'GET', search = ''): Promise<Outcome> {
  const url = new URL(`http://localhost${path}${search}`);
  let rewrittenTo: string | null = null;
  const next = vi.fn(async (to?: unknown) => {
    rewrittenTo = typeof to === 'string' ? to : null;
    return new Response(rewrittenTo ? `page ${rewrittenTo}` : 'page', {
      status: 200,
      headers: { 'content-type': 'text/html' },
    });
  });
  const context = {
    request: new Request(url, { method }),
    url,
    locals: { canonicalPath: path, principal, requestId: 'r' },
  };
  const response = (await guard(context as never, next as never)) as Response;
  return {
    status: response.status,
    location: response.headers.get('location'),
    rewrittenTo,
    body: await response.text(),
  };
}

/** Written independently of the guard: the demo roles hold exact keys, so no fallbacks are needed here. */
function expectedAllowed(entry: RouteEntry, role: DemoRole): boolean {
  const r = DEMO_ROLES[role];
  if (entry.rule.kind === 'public' || r.isAdmin) return true;
  if (entry.rule.kind === 'admin') return false;
  if (entry.rule.kind === 'signed-in') return true;
  return (r.authorities as readonly string[]).includes(entry.rule.key);
}

const sectionOf = (path: string) => {
  const first = path.split('/')[1];
  return ['admin', 'analytics', 'strategies', 'loans'].includes(first) ? `/${first}` : '';
};

let pushed: { name: string; path?: string | null }[] = [];
beforeAll(() => {
  vi.spyOn(pageViews, 'push').mockImplementation((event) => void pushed.push(event));
});
afterAll(() => vi.restoreAllMocks());

describe('guard walk: every manifest route × signed out', () => {
  it.each(ROUTES.map((r) => [r.pattern, r] as const))('%s', async (_p, entry) => {
    const path = concrete(entry.pattern);
    const outcome = await run(path, undefined, 'GET', '?tab=all&x=1');
    if (entry.rule.kind === 'public') {
      expect(outcome.status).toBe(200);
      expect(outcome.rewrittenTo).toBeNull();
    } else {
      expect(outcome.status).toBe(302);
      expect(outcome.location).toBe(`/user/login?redirect=${encodeURIComponent(`${path}?tab=all&x=1`)}`);
    }
  });
});

describe.each(Object.keys(DEMO_ROLES) as DemoRole[])('guard walk: every manifest route × %s', (role) => {
  it.each(ROUTES.map((r) => [r.pattern, r] as const))('%s', async (_p, entry) => {
    pushed = [];
    const path = concrete(entry.pattern);
    const outcome = await run(path, principalFor(role));
    if (expectedAllowed(entry, role)) {
      expect(outcome.status, `${role} should open ${path}`).toBe(200);
      expect(outcome.rewrittenTo).toBeNull();
      expect(pushed).toEqual([expect.objectContaining({ name: entry.event, path, tenantId: 'demo-eu1' })]);
    } else {
      expect(outcome.status, `${role} should be refused ${path}`).toBe(403);
      expect(outcome.rewrittenTo).toBe(`${sectionOf(path)}/403`);
      expect(pushed).toEqual([]);
    }
  });
});

describe('guard: unknown paths, password change, API', () => {
  it.each([
    ['/nope', '/404'],
    ['/loans/nope', '/loans/404'],
    ['/admin/user/users/edit', '/admin/404'],
    ['/analytics/risk/x/y/z', '/analytics/404'],
    ['/strategies/1/2', '/strategies/404'],
    ['/loans/customer/profile/c-1/secret', '/loans/404'],
    ['/loans', '/loans/404'],
  ])('%s → %s with 404 for a signed-in user', async (path, page) => {
    const outcome = await run(path, principalFor('loan_officer'));
    expect(outcome.status).toBe(404);
    expect(outcome.rewrittenTo).toBe(page);
  });

  it('sends a signed-out visitor of an unknown path to login (no hint that it is unknown)', async () => {
    expect(await run('/nope', undefined)).toMatchObject({ status: 302, location: '/user/login?redirect=%2Fnope' });
  });

  it('serves assets and health without a user', async () => {
    for (const p of ['/_astro/index.abc123.js', '/favicon.svg', '/fonts/inter.woff2', '/healthz'])
      expect((await run(p, undefined)).status).toBe(200);
  });

  it('sends a user who must change their password to reset-password, except on public pages', async () => {
    const p = principalFor('administrator', { passwordChangeRequired: true });
    expect(await run('/loans/overview', p)).toMatchObject({ status: 302, location: '/user/reset-password' });
    expect((await run('/user/reset-password', p)).status).toBe(200);
    expect((await run('/v1/hierarchies', p)).status).toBe(403);
    expect((await run('/v1/users/me', p)).status).toBe(200);
  });

  it('lets a user who must enrol in TOTP call only the enrolment, the session, sign-out and who they are', async () => {
    const p = principalFor('administrator', { mfaEnrolmentRequired: true });
    expect(await run('/loans/overview', p)).toMatchObject({ status: 302, location: '/user/mfa' });
    for (const [path, method] of [
      ['/v1/auth/mfa/enrolment', 'GET'],
      ['/v1/auth/mfa/enrolment', 'POST'],
      ['/v1/auth/mfa/enrolment', 'PUT'],
      ['/v1/auth/mfa', 'POST'],
      ['/v1/auth/session', 'GET'],
      ['/v1/auth/sign-out', 'POST'],
      ['/v1/users/me', 'GET'],
    ])
      expect((await run(path, p, method)).status, `${method} ${path}`).toBe(200);
    // An API token (or anything else under /v1/auth/ that needs a signed-in user) would outlive the requirement.
    for (const [path, method] of [
      ['/v1/auth/api-tokens', 'POST'],
      ['/v1/auth/api-tokens', 'GET'],
      ['/v1/auth/sessions', 'GET'],
      ['/v1/auth/sign-out-everywhere', 'POST'],
      ['/v1/auth/users/u-7/end-sessions', 'POST'],
      ['/v1/hierarchies', 'GET'],
    ]) {
      const outcome = await run(path, p, method);
      expect(outcome.status, `${method} ${path}`).toBe(403);
      expect(JSON.parse(outcome.body).error.message).toBe('Set up two-step sign-in to continue.');
    }
    expect((await run('/v1/auth/api-tokens', principalFor('administrator'), 'POST')).status).toBe(200);
  });

  it('answers /v1 with JSON: 401 signed out, 404 unknown, 405 wrong method, 403 without permission', async () => {
    const out = await run('/v1/hierarchies', undefined);
    expect(out.status).toBe(401);
    expect(JSON.parse(out.body)).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Sign in to continue.' } });
    expect((await run('/v1/nothing-here', principalFor('analyst'))).status).toBe(404);
    expect((await run('/v1/users/me', principalFor('analyst'), 'DELETE')).status).toBe(405);
    expect((await run('/v1/loans', principalFor('strategist'))).status).toBe(403);
    expect((await run('/v1/loans', principalFor('collector'))).status).toBe(200);
    expect((await run('/v1/error-reports', principalFor('analyst'))).status).toBe(403);
    expect((await run('/v1/error-reports', principalFor('administrator'))).status).toBe(200);
    expect((await run('/v1/auth/sign-in', undefined, 'POST')).status).toBe(200);
  });

  it('does not record page views for API calls or refused pages', async () => {
    pushed = [];
    await run('/v1/users/me', principalFor('analyst'));
    await run('/admin/user/users', principalFor('analyst'));
    expect(pushed).toEqual([]);
  });
});
