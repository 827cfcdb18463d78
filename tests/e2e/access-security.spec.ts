import { createHash } from 'node:crypto';
import { expect, test } from '@playwright/test';

// HTTP-level checks of the access layer against the built server (security goals 2, 7, 8, 9).
// Signed out: these need no account.

test.describe('[ACCESS]: headers, CSRF, canonical paths, deny by default', () => {
  test("HTML responses carry the renderer's hash-based CSP, nosniff, frame-ancestors and Referrer-Policy; every inline script is hashed", async ({
    request,
  }) => {
    const response = await request.get('/user/login');
    expect(response.status()).toBe(200);
    const headers = response.headers();
    const csp = headers['content-security-policy'];
    // Astro's built-in CSP (astro.config.mjs security.csp): our origin plus the hashes of the inline
    // scripts it rendered; no nonce (nothing rewrites the HTML), no inline code allowed.
    expect(csp).toMatch(/script-src 'self'( 'sha256-[A-Za-z0-9+/=]+')+;/);
    expect(csp).not.toMatch(/nonce-|script-src[^;]*'unsafe-inline'/);
    for (const directive of [
      "default-src 'self'",
      "object-src 'none'",
      "base-uri 'none'",
      "frame-ancestors 'none'",
      "form-action 'self'",
    ])
      expect(csp).toContain(directive);
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
    const html = await response.text();
    expect(html).not.toMatch(/\snonce=/);
    const inline = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)].filter(
      ([, attributes]) => !/\bsrc=|application\/json/.test(attributes),
    );
    expect(inline.length).toBeGreaterThan(0);
    for (const [, , body] of inline)
      expect(csp).toContain(`'sha256-${createHash('sha256').update(body).digest('base64')}'`);
  });

  test('signed out: pages redirect to login remembering path and query; the API answers 401 JSON', async ({
    request,
  }) => {
    const page = await request.get('/loans/offers?tab=pending', { maxRedirects: 0 });
    expect(page.status()).toBe(302);
    expect(page.headers().location).toBe('/user/login?redirect=%2Floans%2Foffers%3Ftab%3Dpending');
    const unknown = await request.get('/definitely/not/here', { maxRedirects: 0 });
    expect(unknown.status()).toBe(302);
    const api = await request.get('/v1/users/me');
    expect(api.status()).toBe(401);
    expect(await api.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Sign in to continue.' } });
    expect((await request.get('/v1/no-such-thing')).status()).toBe(401);
  });

  test('public routes and assets need no user', async ({ request }) => {
    expect((await request.get('/healthz')).status()).toBe(200);
    expect((await request.get('/user/login', { maxRedirects: 0 })).status()).toBe(200);
  });

  test('encoded, double-encoded, case and slash variants of protected paths cannot bypass the guard', async ({
    request,
  }) => {
    const redirected: [string, string][] = [
      ['/%61dmin/user/users', '/admin/user/users'],
      ['/Admin/user/users', '/admin/user/users'],
      ['/ADMIN/USER/USERS', '/admin/user/users'],
      ['/admin//user/users', '/admin/user/users'],
      ['/admin/user/users/', '/admin/user/users'],
      ['/loans/%6Fffers', '/loans/offers'],
    ];
    for (const [variant, canonical] of redirected) {
      const response = await request.get(variant, { maxRedirects: 0 });
      expect(response.status(), variant).toBe(308);
      expect(response.headers().location, variant).toBe(canonical);
    }
    for (const refused of ['/%2561dmin/user/users', '/admin%2Fuser/users', '/admin%5Cuser', '/admin/%00/user']) {
      const response = await request.get(refused, { maxRedirects: 0 });
      expect([400, 404], refused).toContain(response.status());
      expect(response.status(), refused).not.toBe(200);
    }
    // Following the redirects still ends at login for a signed-out visitor, never at the page.
    const followed = await request.get('/%61dmin/user/users', { maxRedirects: 0 });
    const next = await request.get(followed.headers().location, { maxRedirects: 0 });
    expect(next.status()).toBe(302);
    expect(next.headers().location).toBe('/user/login?redirect=%2Fadmin%2Fuser%2Fusers');
  });

  test('cross-origin and cross-site mutating requests are refused before anything else', async ({
    request,
    baseURL,
  }) => {
    const foreignForm = await request.post('/v1/error-reports', {
      headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      data: 'message=x',
    });
    expect(foreignForm.status()).toBe(403);
    expect((await foreignForm.json()).error.code).toBe('FORBIDDEN');
    const crossSite = await request.post('/loans/tasks/new', {
      headers: { 'sec-fetch-site': 'cross-site', 'content-type': 'application/x-www-form-urlencoded' },
      data: 'a=1',
    });
    expect(crossSite.status()).toBe(403);
    const textPlainJson = await request.post('/v1/error-reports', {
      headers: { origin: baseURL!, 'content-type': 'text/plain' },
      data: '{"message":"x"}',
    });
    expect(textPlainJson.status()).toBe(403);
    // A same-origin JSON call passes CSRF and reaches the guard (401 signed out).
    const sameOrigin = await request.post('/v1/error-reports', {
      headers: { origin: baseURL!, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
      data: { message: 'x' },
    });
    expect(sameOrigin.status()).toBe(401);
  });

  test('a cross-origin form POST from a real browser page is refused', async ({ page, baseURL }) => {
    // A page on another origin (about:blank is opaque) submits a form to the app.
    const statuses: number[] = [];
    page.on('response', (r) => {
      if (r.url().startsWith(baseURL!)) statuses.push(r.status());
    });
    await page.setContent(
      `<form method="post" action="${baseURL}/v1/error-reports"><input name="message" value="csrf"></form>`,
    );
    await Promise.all([
      page.waitForURL(`${baseURL}/v1/error-reports`),
      page.evaluate(() => document.querySelector('form')!.submit()),
    ]);
    expect(statuses).toContain(403);
    expect(await page.content()).toContain('Cross-site request refused');
  });
});
