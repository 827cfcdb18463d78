import { expect, signIn, test } from './support/fixtures.ts';

// The guard and the platform APIs for signed-in demo users, against the built server.

test.describe('[ACCESS]: signed-in guard and platform APIs', () => {
  test('GET /v1/users/me answers exactly the fields of the user contract', async ({ request }) => {
    await signIn(request, 'officer@demo.test');
    const response = await request.get('/v1/users/me');
    expect(response.status()).toBe(200);
    expect(response.headers()['cache-control']).toBe('no-store');
    const me = await response.json();
    expect(Object.keys(me).sort()).toEqual([
      'authorities',
      'data_permissions',
      'display_name',
      'email',
      'id',
      'is_admin',
      'language',
      'password_change_required',
      'roles',
      'session_timeout',
      'tenant_id',
    ]);
    expect(me).toMatchObject({
      email: 'officer@demo.test',
      tenant_id: 'demo-eu1',
      is_admin: false,
      roles: [{ name: 'Loan officer' }],
      data_permissions: [{ field: 'branch', value: 'PAR-01' }],
      password_change_required: false,
    });
    expect(me.authorities).toContain('loans.offers.notify');
  });

  test("administrators, hierarchies (scoped to the officer's branch) and the plan", async ({ request }) => {
    await signIn(request, 'officer@demo.test');
    expect(await (await request.get('/v1/users/admin')).json()).toEqual([
      { display_name: 'Alice Admin', email: 'admin@demo.test' },
    ]);
    const { items } = await (await request.get('/v1/hierarchies')).json();
    expect(items.map((n: { level: string; code: string }) => `${n.level}:${n.code}`)).toEqual(['branch:PAR-01']);
    const plan = await (await request.get('/v1/pricing-plans/current')).json();
    expect(plan.find((f: { name: string }) => f.name === 'users')).toMatchObject({
      supports_usage_limit: true,
      plans: [
        { name: 'Growth', usage_limit: 50 },
        { name: 'Enterprise', unlimited: true },
      ],
    });
  });

  test('a page the role may not open renders the section 403 page with status 403; unknown paths 404', async ({
    request,
  }) => {
    await signIn(request, 'officer@demo.test');
    const forbidden = await request.get('/admin/user/users', { maxRedirects: 0 });
    expect(forbidden.status()).toBe(403);
    expect(forbidden.headers()['content-type']).toContain('text/html');
    expect(forbidden.headers()['cache-control']).toBe('no-store');
    expect(await forbidden.text()).toContain('Unauthorized');
    const adminOnly = await request.get('/admin/business/loan-products', { maxRedirects: 0 });
    expect(adminOnly.status()).toBe(403);
    const unknown = await request.get('/loans/no-such-page', { maxRedirects: 0 });
    expect(unknown.status()).toBe(404);
    expect(await unknown.text()).toContain('No Found');
    const rootUnknown = await request.get('/no-such-page', { maxRedirects: 0 });
    expect(rootUnknown.status()).toBe(404);
    const own = await request.get('/loans/user/profile', { maxRedirects: 0 });
    expect(own.status()).toBe(200);
    const api = await request.get('/v1/error-reports');
    expect(api.status()).toBe(403);
  });

  test('the administrator opens admin-only routes', async ({ request }) => {
    await signIn(request, 'admin@demo.test');
    const response = await request.get('/admin/user/profile', { maxRedirects: 0 });
    expect(response.status()).toBe(200);
    expect((await request.get('/v1/error-reports')).status()).toBe(200);
  });
});
