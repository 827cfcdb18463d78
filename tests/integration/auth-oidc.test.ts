import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { DEMO_TENANTS, seedDemo } from '#lib/seed/demo.ts';
import { finishSso, ssoLogoutUrl, startSso } from '#lib/auth/oidc.ts';
import { checkSession } from '#lib/auth/sessions.ts';
import { findTenant } from '#lib/tenancy/tenant.ts';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.ts';

const CALLBACK = 'http://localhost:4399/v1/auth/oidc/callback';
const demo = DEMO_TENANTS.demo;

/** Follows the provider's redirects like a browser (with its cookies) until it points at our callback. */
async function browseToCallback(startUrl: string): Promise<URLSearchParams> {
  const jar = new Map<string, string>();
  let url = startUrl;
  for (let hop = 0; hop < 15; hop++) {
    if (url.startsWith(CALLBACK)) return new URL(url).searchParams;
    const response = await fetch(url, {
      redirect: 'manual',
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const index = pair.indexOf('=');
      jar.set(pair.slice(0, index), pair.slice(index + 1));
    }
    const location = response.headers.get('location');
    if (!location) throw new Error(`provider stopped at ${url} with ${response.status}: ${await response.text()}`);
    url = new URL(location, url).href;
  }
  throw new Error('too many redirects');
}

describe.each(testDbKinds())('single sign-on against a real OpenID provider on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let idp: TestOidcProvider;
  const client = { ip: '10.9.0.1', userAgent: 'vitest' };

  const begin = async () => {
    const tenant = await findTenant(db, demo);
    return startSso(db, { tenant: tenant!, callbackUrl: CALLBACK, redirectTo: '/loans/loans', now: new Date() });
  };

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    await seedDemo(db, { password: 'Oidc-Test-Passphrase-1' });
    idp = await startOidcProvider({
      redirectUris: [CALLBACK],
      postLogoutRedirectUris: ['http://localhost:4399/user/login'],
    });
    const sso = {
      issuer: idp.issuer,
      client_id: idp.clientId,
      client_secret: idp.clientSecret,
      label: 'Sign in with Test IdP',
    };
    await db.owner((tx) =>
      tx.query(
        `update tenants set config = jsonb_set(config, '{login}', jsonb_build_object('sso', $2::jsonb)) where id = $1`,
        [demo, JSON.stringify(sso)],
      ),
    );
  });
  afterAll(async () => {
    await idp?.close();
    await drop?.();
  });

  it('signs in, links the user by (issuer, subject) and keeps using the link', async () => {
    idp.setAccount({ sub: 'idp-analyst-1', email: 'analyst@demo.test' });
    const { url, state } = await begin();
    expect(new URL(url).searchParams.get('code_challenge_method')).toBe('S256');
    const query = await browseToCallback(url);
    const result = await finishSso(db, {
      callbackUrl: CALLBACK,
      query,
      browserState: state,
      now: new Date(),
      ...client,
    });
    expect(result).toMatchObject({ tenantId: demo, redirectTo: '/loans/loans' });
    const check = await checkSession(db, { tenantId: demo, sessionId: result.sessionId, now: new Date() });
    expect(check.status === 'active' && check.principal.email).toBe('analyst@demo.test');
    const links = await db.tenant(demo, (tx) =>
      tx.query<{ issuer: string; subject: string }>('select issuer, subject from oidc_links'),
    );
    expect(links).toEqual([{ issuer: idp.issuer, subject: 'idp-analyst-1' }]);

    // The provider now says another e-mail for the same subject: the link, not the e-mail, decides.
    idp.setAccount({ sub: 'idp-analyst-1', email: 'admin@demo.test' });
    const again = await begin();
    const second = await finishSso(db, {
      callbackUrl: CALLBACK,
      query: await browseToCallback(again.url),
      browserState: again.state,
      now: new Date(),
      ...client,
    });
    const check2 = await checkSession(db, { tenantId: demo, sessionId: second.sessionId, now: new Date() });
    expect(check2.status === 'active' && check2.principal.email).toBe('analyst@demo.test');

    const tenant = await findTenant(db, demo);
    const logout = await ssoLogoutUrl(tenant!, {
      idToken: 'x.y.z',
      postLogoutRedirectUri: 'http://localhost:4399/user/login',
    });
    expect(logout).toContain(`${idp.issuer}/session/end`);
  });

  it('refuses a tampered state', async () => {
    idp.setAccount({ sub: 'idp-officer-1', email: 'officer@demo.test' });
    const { url, state } = await begin();
    const query = await browseToCallback(url);
    query.set('state', `${state}x`);
    await expect(
      finishSso(db, { callbackUrl: CALLBACK, query, browserState: state, now: new Date(), ...client }),
    ).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    // Right state in the URL, but not the one this browser started with.
    const other = await begin();
    const query2 = await browseToCallback(other.url);
    await expect(
      finishSso(db, { callbackUrl: CALLBACK, query: query2, browserState: state, now: new Date(), ...client }),
    ).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('refuses a wrong nonce', async () => {
    idp.setAccount({ sub: 'idp-officer-1', email: 'officer@demo.test' });
    const { url, state } = await begin();
    const query = await browseToCallback(url);
    // The ID token carries the nonce we sent; make ours differ, as if the token came from another request.
    await db.system((tx) =>
      tx.query(`update oidc_auth_requests set nonce = 'another-nonce' where state = $1`, [state]),
    );
    await expect(
      finishSso(db, { callbackUrl: CALLBACK, query, browserState: state, now: new Date(), ...client }),
    ).rejects.toMatchObject({ code: 'UNAUTHORIZED', internal: expect.stringMatching(/nonce/) });
  });

  it('refuses a response that names another issuer (RFC 9207 iss)', async () => {
    idp.setAccount({ sub: 'idp-officer-1', email: 'officer@demo.test' });
    const { url, state } = await begin();
    const query = await browseToCallback(url);
    expect(query.get('iss')).toBe(idp.issuer);
    query.set('iss', 'http://localhost:1/evil');
    await expect(
      finishSso(db, { callbackUrl: CALLBACK, query, browserState: state, now: new Date(), ...client }),
    ).rejects.toMatchObject({ code: 'UNAUTHORIZED', internal: expect.stringMatching(/iss/) });
  });

  it('refuses a reused code (our state is single-use, and the provider refuses the code again)', async () => {
    idp.setAccount({ sub: 'idp-collector-1', email: 'collector@demo.test' });
    const { url, state } = await begin();
    const query = await browseToCallback(url);
    const [saved] = await db.system((tx) => tx.query('select * from oidc_auth_requests where state = $1', [state]));
    await finishSso(db, { callbackUrl: CALLBACK, query, browserState: state, now: new Date(), ...client });
    await expect(
      finishSso(db, { callbackUrl: CALLBACK, query, browserState: state, now: new Date(), ...client }),
    ).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    // Even with the state restored, the provider will not redeem the code twice.
    const row = saved as Record<string, unknown>;
    await db.system((tx) =>
      tx.query(
        'insert into oidc_auth_requests (state, tenant_id, nonce, code_verifier, redirect_to, created_at, expires_at) values ($1, $2, $3, $4, $5, $6, $7)',
        [row.state, row.tenant_id, row.nonce, row.code_verifier, row.redirect_to, row.created_at, row.expires_at],
      ),
    );
    await expect(
      finishSso(db, { callbackUrl: CALLBACK, query, browserState: state, now: new Date(), ...client }),
    ).rejects.toMatchObject({ code: 'UNAUTHORIZED', internal: expect.stringMatching(/invalid_grant|grant/i) });
  });

  it('refuses an identity with no linked or verified matching account', async () => {
    idp.setAccount({ sub: 'idp-stranger', email: 'stranger@elsewhere.test' });
    const a = await begin();
    await expect(
      finishSso(db, {
        callbackUrl: CALLBACK,
        query: await browseToCallback(a.url),
        browserState: a.state,
        now: new Date(),
        ...client,
      }),
    ).rejects.toThrow(/No account of this lender/);
    idp.setAccount({ sub: 'idp-unverified', email: 'strategist@demo.test', emailVerified: false });
    const b = await begin();
    await expect(
      finishSso(db, {
        callbackUrl: CALLBACK,
        query: await browseToCallback(b.url),
        browserState: b.state,
        now: new Date(),
        ...client,
      }),
    ).rejects.toThrow(/No account of this lender/);
  });
});
