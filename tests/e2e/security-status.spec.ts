import fs from 'node:fs';
import type { APIRequestContext } from '@playwright/test';
import { expect, signIn, test } from './support/fixtures.ts';
import { DEMO_ROLES } from '#lib/auth/permissions.ts';
import { ROUTES, canOpen, sectionForPath } from '#lib/auth/route-manifest.ts';
import { encodeSegment } from '#lib/http/canonical-path.ts';

// Every not-found page answers 404 and every forbidden one 403, with the
// section's own page (the 403 listing the administrators). The manifest drives the walk, so a new
// route with a path id is covered without editing this file.

const NONE = '00000000-0000-4000-8000-000000000000';
const MALFORMED = ['not-an-id', '1', "x'or'1'='1", 'ZZZZZZZZ-0000-4000-8000-000000000000'];
const APPLY = JSON.parse(fs.readFileSync('src/lib/i18n/locales/en/apply.json', 'utf8')) as { notFoundTitle: string };
const NAV = JSON.parse(fs.readFileSync('src/lib/i18n/locales/en/nav.json', 'utf8')) as {
  sections: Record<string, string>;
};

/** Ids of the other tenant: its customers, loans, offers, applications (created when it has none). */
async function acmeIds(
  playwright: { request: { newContext: (o: { baseURL: string }) => Promise<APIRequestContext> } },
  baseURL: string,
): Promise<string[]> {
  const acme = await playwright.request.newContext({ baseURL });
  await signIn(acme, 'admin@acme.test');
  const ids = new Set<string>();
  for (const url of ['/v1/customers?limit=2', '/v1/loans?limit=2', '/v1/offers?limit=2', '/v1/applications?limit=2']) {
    const body = (await (await acme.get(url)).json()) as { items?: { id: string }[] };
    for (const item of body.items ?? []) ids.add(item.id);
  }
  if (ids.size === 0) {
    const created = await acme.post('/v1/customers', {
      headers: { origin: baseURL, 'content-type': 'application/json' },
      data: { firstName: 'Status', lastName: 'Probe' },
    });
    ids.add(((await created.json()) as { id: string }).id);
  }
  await acme.dispose();
  return [...ids];
}

/** The section's result page: its title, and for a user who may see the section, its side navigation. */
function expectSectionPage(html: string, path: string, title: 'No Found' | 'Unauthorized') {
  if (path.startsWith('/application/')) {
    // The public application page has its own plain 404: no staff shell, nothing of any lender.
    expect(html, path).toMatch(new RegExp(`<h1[^>]*>${APPLY.notFoundTitle}</h1>`));
    expect(html, path).not.toContain('result-title');
    return;
  }
  expect(html, path).toContain(`<h1 id="result-title">${title}</h1>`);
  const section = sectionForPath(path);
  if (section !== 'root' && title === 'No Found')
    expect(html, path).toContain(`aria-label="${NAV.sections[section]} pages"`);
}

const PARAM_ROUTES = ROUTES.filter((r) => r.pattern.includes('/:'));

test.describe('[SECURITY]: honest status codes', () => {
  test('every page with a path id answers 404 with its section’s page for unknown, malformed and other-tenant ids', async ({
    request,
    baseURL,
    playwright,
  }) => {
    test.setTimeout(300_000);
    const foreign = await acmeIds(playwright, baseURL!);
    await signIn(request, 'admin@demo.test');
    const ids = [NONE, ...MALFORMED, ...foreign];
    const failures: string[] = [];
    // Ids spelled as the product links them (canonical path), so the answer is the page's, not a redirect.
    const cases = PARAM_ROUTES.flatMap((r) => ids.map((id) => r.pattern.replace(/:\w+/g, encodeSegment(id))));
    for (let i = 0; i < cases.length; i += 6) {
      await Promise.all(
        cases.slice(i, i + 6).map(async (path) => {
          const response = await request.get(path, { maxRedirects: 0 });
          if (response.status() !== 404) return void failures.push(`${path}: ${response.status()}`);
          const html = await response.text();
          try {
            expectSectionPage(html, path, 'No Found');
          } catch {
            failures.push(`${path}: 404 without the section's 404 page`);
          }
        }),
      );
    }
    expect(failures).toEqual([]);
  });

  test('the section result pages answer their own status', async ({ request }) => {
    await signIn(request, 'admin@demo.test');
    for (const section of ['loans', 'admin', 'analytics', 'strategies']) {
      const notFound = await request.get(`/${section}/404`);
      expect(notFound.status(), section).toBe(404);
      expectSectionPage(await notFound.text(), `/${section}/404`, 'No Found');
      const unknown = await request.get(`/${section}/no/such/page`);
      expect(unknown.status(), section).toBe(404);
      const forbidden = await request.get(`/${section}/403`);
      expect(forbidden.status(), section).toBe(403);
      const html = await forbidden.text();
      expectSectionPage(html, `/${section}/403`, 'Unauthorized');
      expect(html, section).toContain('mailto:admin@demo.test');
    }
    expect((await request.get('/404')).status()).toBe(404);
    expect((await request.get('/403')).status()).toBe(403);
  });

  test('forbidden pages answer 403 with the section’s page listing the administrators', async ({ request }) => {
    test.setTimeout(180_000);
    await signIn(request, 'analyst@demo.test');
    const analyst = DEMO_ROLES.analyst;
    const denied = ROUTES.filter((r) => r.rule.kind !== 'public' && !canOpen(analyst, r));
    expect(denied.length).toBeGreaterThan(10);
    const failures: string[] = [];
    for (let i = 0; i < denied.length; i += 6) {
      await Promise.all(
        denied.slice(i, i + 6).map(async (route) => {
          const path = route.pattern.replace(/:\w+/g, NONE);
          const response = await request.get(path, { maxRedirects: 0 });
          if (response.status() !== 403) return void failures.push(`${path}: ${response.status()}`);
          const html = await response.text();
          try {
            expectSectionPage(html, path, 'Unauthorized');
            expect(html).toContain('class="admins-list"');
            expect(html).toContain('mailto:admin@demo.test');
          } catch {
            failures.push(`${path}: 403 without the section's 403 page and its administrators`);
          }
        }),
      );
    }
    expect(failures).toEqual([]);
  });
});
