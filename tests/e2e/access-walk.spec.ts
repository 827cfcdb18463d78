import { expect, signIn, test } from './support/fixtures.ts';
import { DEMO_ROLES, type DemoRole } from '#lib/auth/permissions.ts';
import { ROUTES, type RouteEntry } from '#lib/auth/route-manifest.ts';

// Security goal 2 against the running server: every route of the manifest, signed out and as each
// demo role, gets exactly the answer its permissions say (login redirect / 403 / through).
// Every demo role, each through its demo account; tests/unit/route-manifest-guard.test.ts also walks
// them through the guard step directly.
const ACCOUNTS: Record<DemoRole, string> = {
  administrator: 'admin@demo.test',
  loan_officer: 'officer@demo.test',
  analyst: 'analyst@demo.test',
  collector: 'collector@demo.test',
  strategist: 'strategist@demo.test',
  strategy_provider: 'provider@demo.test',
};

/** The 403/404/500 result pages, standalone and per section. */
const RESULT_PAGE = /^(\/(admin|analytics|strategies|loans))?\/(403|404|500)$/;

const concrete = (pattern: string) => pattern.replace(/:(\w+)/g, (_m, name: string) => `${name}-7`);

function expectedAllowed(entry: RouteEntry, role: DemoRole): boolean {
  const r = DEMO_ROLES[role];
  if (entry.rule.kind === 'public' || r.isAdmin) return true;
  if (entry.rule.kind === 'admin') return false;
  if (entry.rule.kind === 'signed-in') return true;
  return (r.authorities as readonly string[]).includes(entry.rule.key);
}

test.describe('[ACCESS]: manifest walk against the server', () => {
  test('signed out: every non-public route redirects to login remembering the path', async ({ request }) => {
    for (const entry of ROUTES) {
      const path = concrete(entry.pattern);
      const response = await request.get(`${path}?q=1`, { maxRedirects: 0 });
      if (entry.rule.kind === 'public') expect(response.status(), path).not.toBe(302);
      else {
        expect(response.status(), path).toBe(302);
        expect(response.headers().location, path).toBe(`/user/login?redirect=${encodeURIComponent(`${path}?q=1`)}`);
      }
    }
  });

  for (const role of Object.keys(ACCOUNTS) as DemoRole[]) {
    test(`${role}: 403 exactly where the permissions deny`, async ({ request }) => {
      test.setTimeout(120_000);
      await signIn(request, ACCOUNTS[role]!);
      const mismatches: string[] = [];
      const entries = ROUTES.filter((r) => r.rule.kind !== 'public');
      // A few requests in flight at once keeps the walk quick on a two-core machine.
      for (let i = 0; i < entries.length; i += 6) {
        await Promise.all(
          entries.slice(i, i + 6).map(async (entry) => {
            const path = concrete(entry.pattern);
            const status = (await request.get(path, { maxRedirects: 0 })).status();
            const allowed = expectedAllowed(entry, role);
            // The result pages answer with their own status (the standalone /403 page is a 403).
            if (RESULT_PAGE.test(entry.pattern)) {
              if (status === 302) mismatches.push(`${path}: ${status}`);
              return;
            }
            // Allowed routes go through to the page (200, or the section 404 while a later issue has not built it yet).
            if (allowed ? [302, 401, 403].includes(status) : status !== 403)
              mismatches.push(`${path}: ${status} (expected ${allowed ? 'through' : '403'})`);
          }),
        );
      }
      expect(mismatches).toEqual([]);
    });
  }
});
