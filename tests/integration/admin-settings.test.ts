import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishSsoCallback, startSso } from '#lib/auth/oidc.ts';
import type { Principal } from '#lib/auth/principal.ts';
import { signInWithPassword } from '#lib/auth/sign-in.ts';
import { setDb, type Db } from '#lib/db/index.ts';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import { DEMO_TENANTS, seedDemo } from '#lib/seed/demo.ts';
import { DEFAULT_NOTIFY_FORM } from '#lib/forms/notify.ts';
import { ssoTestResultPath } from '#lib/tenancy/settings.ts';
import { findTenant } from '#lib/tenancy/tenant.ts';
import { currentUser } from '#lib/tenancy/users.ts';
import * as settingsApi from '../../src/pages/v1/tenant-settings.ts';
import * as logoApi from '../../src/pages/v1/tenant-settings/logo.ts';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.ts';

process.env.SESSION_SECRET ??= 'a-test-session-secret-that-is-long-enough-0123456789';

const A = DEMO_TENANTS.demo;
const B = DEMO_TENANTS.acme;
const CALLBACK = 'http://localhost:4399/v1/auth/oidc/callback';

async function principalOf(db: Db, tenantId: string, email: string): Promise<Principal> {
  const [row] = await db.tenant(tenantId, (tx) =>
    tx.query<{ id: string }>('select id::text as id from users where lower(email) = $1', [email]),
  );
  const user = await db.tenant(tenantId, (tx) => currentUser(tx, row.id));
  return {
    tenantId,
    userId: user.id,
    displayName: user.display_name,
    email: user.email,
    isAdmin: user.is_admin,
    authorities: user.authorities,
    dataPermissions: user.data_permissions,
    language: user.language,
    via: 'session',
    sessionId: null,
    passwordChangeRequired: false,
    sessionTimeout: user.session_timeout,
    idleTimeout: 60,
  };
}

type Handler = (ctx: never) => Response | Promise<Response>;
async function call(
  handler: Handler,
  db: Db,
  principal: Principal,
  init: { body?: unknown; method?: string; form?: FormData; language?: 'en' | 'fr' } = {},
) {
  const url = new URL('http://localhost/v1/tenant-settings');
  const request = new Request(
    url,
    init.form
      ? { method: init.method ?? 'POST', body: init.form }
      : init.body === undefined
        ? { method: init.method ?? 'GET' }
        : {
            method: init.method ?? 'PATCH',
            body: JSON.stringify(init.body),
            headers: { 'content-type': 'application/json' },
          },
  );
  const tenant = await findTenant(db, principal.tenantId);
  const response = await handler({
    request,
    url,
    params: {},
    locals: { requestId: 'req-settings', principal, tenant, language: init.language ?? 'en' },
  } as never);
  const type = response.headers.get('content-type') ?? '';
  const bytes = new Uint8Array(await response.arrayBuffer());
  const text = type.includes('json') ? new TextDecoder().decode(bytes) : '';
  return { status: response.status, headers: response.headers, bytes, body: text ? JSON.parse(text) : null };
}

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
    if (!location) throw new Error(`provider stopped at ${url} with ${response.status}`);
    url = new URL(location, url).href;
  }
  throw new Error('too many redirects');
}

const PNG = Uint8Array.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0,
  0, 0,
]);

describe.each(testDbKinds())('general settings (GET/PATCH /v1/tenant-settings) on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let admin: Principal;
  let adminB: Principal;
  let analyst: Principal;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    await seedDemo(db, { password: 'Settings-Test-Passphrase-1' });
    setDb(db);
    admin = await principalOf(db, A, 'admin@demo.test');
    adminB = await principalOf(db, B, 'admin@acme.test');
    analyst = await principalOf(db, A, 'analyst@demo.test');
  });
  afterAll(() => drop?.());

  const rawConfig = async (tenantId: string) =>
    (
      await db.system((tx) =>
        tx.query<{ config: Record<string, unknown>; name: string }>('select config, name from tenants where id = $1', [
          tenantId,
        ]),
      )
    )[0];

  it('reads the settings, defaults filled in, and refuses a user without the permission', async () => {
    const got = await call(settingsApi.GET, db, admin);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      name: 'Demo Lending',
      languages: ['en', 'fr'],
      default_language: 'en',
      config: { auto_logout: { timeout: 1800 }, login: { password: true, sso: null }, offer: { requestLoan: true } },
      logo: null,
    });
    expect(got.body.business_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(got.body.config.notify_customer_modal_config.form).toEqual(DEFAULT_NOTIFY_FORM);
    expect((await call(settingsApi.PATCH, db, analyst, { body: { name: 'Nope' } })).status).toBe(403);
  });

  it('a partial update keeps every other field, and is audited with before and after', async () => {
    const before = await rawConfig(A);
    const patched = await call(settingsApi.PATCH, db, admin, {
      body: { name: 'Demo Lending SA', config: { auto_logout: { timeout: 900 } } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Demo Lending SA', config: { auto_logout: { timeout: 900 } } });
    const after = await rawConfig(A);
    expect(after.name).toBe('Demo Lending SA');
    expect(after.config).toEqual({ ...before.config, auto_logout: { timeout: 900 } });
    const [audit] = await db.tenant(A, (tx) =>
      tx.query<{ before: { name: string }; after: { name: string }; object_id: string }>(
        `select before, after, object_id from audit_log where action = 'tenant.settings.update' order by occurred_at desc limit 1`,
      ),
    );
    expect(audit).toMatchObject({ object_id: A, before: { name: 'Demo Lending' }, after: { name: 'Demo Lending SA' } });
    // The notify form alone: the timeout stays.
    const form = structuredClone(DEFAULT_NOTIFY_FORM);
    form.ui.fields.Channel.options!.push({ value: 'Email', label: { en: 'E-mail', fr: 'Courriel' }, icon: 'message' });
    form.schema.properties.Channel.enum!.push('Email');
    const saved = await call(settingsApi.PATCH, db, admin, {
      body: { config: { notify_customer_modal_config: { form } } },
    });
    expect(saved.status).toBe(200);
    expect(saved.body.config.auto_logout.timeout).toBe(900);
    expect(saved.body.config.notify_customer_modal_config.form.ui.fields.Channel.options).toHaveLength(5);
  });

  it.each([
    [{ config: { auto_logout: { timeout: 5 } } }, 'config.auto_logout.timeout'],
    [{ config: { auto_logout: { timeout: 'soon' } } }, 'config.auto_logout.timeout'],
    [{ languages: ['en'], default_language: 'fr' }, 'default_language'],
    [{ languages: ['de'] }, 'languages[0]'],
    [{ name: '  ' }, 'name'],
    [{ config: { colour: 'red' } }, 'config.colour'],
    [{ config: { cbs: { application_form: 'custom-1' } } }, 'config.cbs.application_form'],
    [{ config: { login: { password: false } } }, 'config.login.password'],
    [{ config: { login: { sso: { issuer: 'http://idp.example.com', client_id: 'x' } } } }, 'config.login.sso.issuer'],
    [
      {
        config: { login: { sso: { issuer: 'https://idp.example.com', client_id: 'x', roles: [crypto.randomUUID()] } } },
      },
      'config.login.sso.roles[0]',
    ],
  ])('refuses %j with a 400 naming %s, and changes nothing', async (body, field) => {
    const before = await rawConfig(A);
    const refused = await call(settingsApi.PATCH, db, admin, { body });
    expect(refused.status).toBe(400);
    expect(refused.body.error.field).toBe(field);
    expect(refused.body.error.message).toBeTruthy();
    expect(await rawConfig(A)).toEqual(before);
  });

  it.each([
    [
      'an option value taken twice',
      (form: typeof DEFAULT_NOTIFY_FORM) => {
        form.ui.fields.Channel.options!.push({ value: 'Message', label: { en: 'Again' } });
      },
      'config.notify_customer_modal_config.form.ui.fields.Channel.options',
    ],
    [
      'a rule on a value the controlling field does not offer',
      (form: typeof DEFAULT_NOTIFY_FORM) => {
        form.ui.fields.Comment.visibleWhen = { field: 'Channel', in: ['Fax'] };
      },
      'config.notify_customer_modal_config.form.ui.fields.Comment.visibleWhen.in',
    ],
    [
      'a choice without options',
      (form: typeof DEFAULT_NOTIFY_FORM) => {
        form.ui.fields.Channel.options = [];
      },
      'config.notify_customer_modal_config.form.ui.fields.Channel.options',
    ],
  ])('refuses a notify form with %s: 422 naming the path, nothing changed', async (_, change, field) => {
    const before = await rawConfig(A);
    const form = structuredClone(DEFAULT_NOTIFY_FORM);
    change(form);
    const refused = await call(settingsApi.PATCH, db, admin, {
      body: { config: { notify_customer_modal_config: { form } } },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error.field).toMatch(/^config\.notify_customer_modal_config\.form\./);
    const problems = refused.body.error.problems as { path: string }[];
    expect(problems.map((p) => `config.notify_customer_modal_config.form.${p.path}`)).toContain(field);
    expect(refused.body.error.message).toBeTruthy();
    expect(await rawConfig(A)).toEqual(before);
    // The old format is not accepted as a new value (a stored one is upgraded when read).
    const legacy = await call(settingsApi.PATCH, db, admin, {
      body: { config: { notify_customer_modal_config: { form: { fields: [] } } } },
    });
    expect(legacy.status).toBe(422);
  });

  it('words the cross-field refusals in the request language', async () => {
    const refused = await call(settingsApi.PATCH, db, admin, {
      body: { languages: ['en'], default_language: 'fr' },
      language: 'fr',
    });
    expect(refused.body.error.message).toBe('La langue par défaut doit faire partie des langues proposées.');
  });

  it('a settings editor who is not an administrator changes the rest, but not how people sign in', async () => {
    const editor: Principal = {
      ...analyst,
      authorities: [...analyst.authorities, 'admin.basic_settings.view', 'admin.basic_settings.edit'],
    };
    const ok = await call(settingsApi.PATCH, db, editor, { body: { config: { offer: { requestLoan: true } } } });
    expect(ok.status).toBe(200);
    const refused = await call(settingsApi.PATCH, db, editor, {
      body: { config: { login: { sso: { issuer: 'https://idp.example.com', client_id: 'x' } } } },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.field).toBe('config.login');
  });

  it('one tenant’s PATCH never changes another', async () => {
    const beforeB = await rawConfig(B);
    const patched = await call(settingsApi.PATCH, db, adminB, {
      body: { name: 'Acme Credit Inc', config: { offer: { requestLoan: false } } },
    });
    expect(patched.status).toBe(200);
    expect((await rawConfig(B)).config).toEqual({ ...beforeB.config, offer: { requestLoan: false } });
    const a = await call(settingsApi.GET, db, admin);
    expect(a.body.name).toBe('Demo Lending SA');
    expect(a.body.config.offer.requestLoan).toBe(true);
    await call(settingsApi.PATCH, db, adminB, {
      body: { name: 'Acme Credit', config: { offer: { requestLoan: true } } },
    });
  });

  it('stores the SSO client secret encrypted, never shows or audits it, and keeps it when left empty', async () => {
    const sso = {
      issuer: 'https://idp.example.com',
      client_id: 'lending',
      client_secret: 'S3cret-value-42',
      label: 'Example',
    };
    const saved = await call(settingsApi.PATCH, db, admin, { body: { config: { login: { sso } } } });
    expect(saved.status).toBe(200);
    expect(saved.body.config.login.sso).toEqual({
      issuer: sso.issuer,
      client_id: 'lending',
      label: 'Example',
      roles: [],
      client_secret_set: true,
    });
    const stored = (await rawConfig(A)).config as { login: { sso: { client_secret: string } } };
    expect(stored.login.sso.client_secret).toMatch(/^enc:v1:/);
    expect(JSON.stringify(stored)).not.toContain('S3cret-value-42');
    const sealed = stored.login.sso.client_secret;
    // Left empty: the secret stays.
    await call(settingsApi.PATCH, db, admin, {
      body: { config: { login: { sso: { ...sso, client_secret: '', label: 'Example IdP' } } } },
    });
    expect(((await rawConfig(A)).config as typeof stored).login.sso.client_secret).toBe(sealed);
    // Another issuer or client ID without a new secret: the stored secret is dropped, never sent elsewhere.
    for (const changed of [{ issuer: 'https://other-idp.example.net' }, { client_id: 'other-client' }]) {
      const moved = await call(settingsApi.PATCH, db, admin, {
        body: { config: { login: { sso: { ...sso, ...changed, client_secret: '' } } } },
      });
      expect(moved.status).toBe(200);
      expect(moved.body.config.login.sso.client_secret_set).toBe(false);
      expect(((await rawConfig(A)).config as typeof stored).login.sso.client_secret).toBeUndefined();
      await call(settingsApi.PATCH, db, admin, { body: { config: { login: { sso } } } });
    }
    const audits = await db.tenant(A, (tx) =>
      tx.query<{ text: string }>(
        `select coalesce(before::text, '') || coalesce(after::text, '') as text from audit_log where object_type = 'tenant'`,
      ),
    );
    expect(audits.length).toBeGreaterThan(0);
    for (const row of audits) {
      expect(row.text).not.toContain('S3cret-value-42');
      expect(row.text).not.toContain(sealed);
    }
    const got = await call(settingsApi.GET, db, admin);
    expect(JSON.stringify(got.body)).not.toContain('enc:v1');
    // A plain secret written before encryption is sealed at the next save, whatever the section.
    await db.owner((tx) =>
      tx.query(
        `update tenants set config = jsonb_set(config, '{login,sso,client_secret}', '"old-plain"') where id = $1`,
        [A],
      ),
    );
    await call(settingsApi.PATCH, db, admin, { body: { config: { auto_logout: { timeout: 1800 } } } });
    expect(((await rawConfig(A)).config as typeof stored).login.sso.client_secret).toMatch(/^enc:v1:/);
    // Turning SSO off removes it.
    const off = await call(settingsApi.PATCH, db, admin, { body: { config: { login: { sso: null } } } });
    expect(off.body.config.login.sso).toBeNull();
  });

  it('stores a PNG logo checked by content, serves it with nosniff, refuses SVG and other files', async () => {
    const upload = async (bytes: Uint8Array, name: string, type: string) => {
      const form = new FormData();
      form.set('file', new File([new Uint8Array(bytes)], name, { type }));
      return call(logoApi.POST, db, admin, { form });
    };
    const svg = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const refusedSvg = await upload(svg, 'logo.png', 'image/png');
    expect(refusedSvg.status).toBe(400);
    expect(refusedSvg.body.error.field).toBe('logo');
    expect((await upload(new TextEncoder().encode('GIF89a...'), 'logo.png', 'image/png')).status).toBe(400);
    expect((await upload(new Uint8Array(256 * 1024 + 1).fill(0xff), 'big.jpg', 'image/jpeg')).status).toBe(400);
    expect((await call(logoApi.POST, db, analyst, { form: new FormData() })).status).toBe(403);

    const saved = await upload(PNG, 'logo.txt', 'text/plain');
    expect(saved.status).toBe(200);
    expect(saved.body.logo.content_type).toBe('image/png');
    expect((await findTenant(db, A))?.logoVersion).toBeGreaterThan(0);
    const served = await call(logoApi.GET, db, analyst);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect([...served.bytes]).toEqual([...PNG]);
    expect((await call(logoApi.GET, db, adminB)).status).toBe(404);

    const removed = await call(logoApi.DELETE, db, admin, { method: 'DELETE' });
    expect(removed.status).toBe(200);
    expect(removed.body.logo).toBeNull();
    expect((await call(logoApi.GET, db, admin)).status).toBe(404);
    const frenchMissing = await call(logoApi.GET, db, admin, { language: 'fr' });
    expect(frenchMissing.body.error.message).toBe('Ce prêteur n’a pas de logo.');
    const notMultipart = await call(logoApi.POST, db, admin, { body: { file: 'x' }, method: 'POST', language: 'fr' });
    expect(notMultipart.status).toBe(400);
    expect(notMultipart.body.error.message).toMatch(/^Envoyez le logo en multipart/);
    expect((await findTenant(db, A))?.logoVersion).toBeNull();
  });

  describe('single sign-on against a real provider', () => {
    let idp: TestOidcProvider;
    beforeAll(async () => {
      idp = await startOidcProvider({ redirectUris: [CALLBACK] });
    });
    afterAll(() => idp?.close());

    it('works with the encrypted secret; a test sign-in reports without signing in; first sign-in gives the SSO roles', async () => {
      const [analystRole] = await db.tenant(A, (tx) =>
        tx.query<{ id: string }>(`select id::text as id from roles where name ilike 'analyst%' limit 1`),
      );
      const saved = await call(settingsApi.PATCH, db, admin, {
        body: {
          config: {
            login: {
              sso: {
                issuer: idp.issuer,
                client_id: idp.clientId,
                client_secret: idp.clientSecret,
                label: 'Test IdP',
                roles: [analystRole.id],
              },
            },
          },
        },
      });
      expect(saved.status).toBe(200);
      const tenant = (await findTenant(db, A))!;
      const client = { ip: '10.9.0.1', userAgent: 'vitest', now: new Date(), callbackUrl: CALLBACK };

      // Test sign-in: the provider vouches, nobody is signed in, no link is made.
      idp.setAccount({ sub: 'sso-settings-1', email: 'newcomer@demo.test' });
      const test = await startSso(db, {
        tenant,
        callbackUrl: CALLBACK,
        redirectTo: '',
        now: new Date(),
        purpose: 'test',
      });
      const tested = await finishSsoCallback(db, {
        ...client,
        query: await browseToCallback(test.url),
        browserState: test.state,
      });
      expect(tested).toEqual({
        kind: 'test',
        outcome: { ok: true, tenantId: A, subject: 'sso-settings-1', email: 'newcomer@demo.test', isLinked: false },
      });
      expect(await db.tenant(A, (tx) => tx.query('select * from oidc_links'))).toEqual([]);

      // A failed test sign-in comes back with a fixed reason code, never the provider's own text.
      const refusedTest = await startSso(db, {
        tenant,
        callbackUrl: CALLBACK,
        redirectTo: '',
        now: new Date(),
        purpose: 'test',
      });
      const failed = await finishSsoCallback(db, {
        ...client,
        query: new URLSearchParams({
          state: refusedTest.state,
          iss: idp.issuer,
          error: 'access_denied',
          error_description: 'Your account was locked: call +1 555 0100 now',
        }),
        browserState: refusedTest.state,
      });
      expect(failed).toEqual({ kind: 'test', outcome: { ok: false, tenantId: A, code: 'provider_error' } });
      if (failed.kind !== 'test') throw new Error('not a test outcome');
      const resultPath = ssoTestResultPath(failed.outcome);
      expect(new URL(resultPath, 'http://x').searchParams.get('sso_reason')).toBe('provider_error');
      expect(resultPath).not.toContain('555');

      // An invited user without roles signs in by SSO for the first time: the SSO roles are given.
      const [newcomer] = await db.tenant(A, (tx) =>
        tx.query<{ id: string }>(
          `insert into users (tenant_id, email, display_name) values ($1, 'newcomer@demo.test', 'Nina Newcomer') returning id::text as id`,
          [A],
        ),
      );
      const start = await startSso(db, { tenant, callbackUrl: CALLBACK, redirectTo: '', now: new Date() });
      const done = await finishSsoCallback(db, {
        ...client,
        query: await browseToCallback(start.url),
        browserState: start.state,
      });
      expect(done.kind === 'signed-in' && done.signIn.userId).toBe(newcomer.id);
      const roles = await db.tenant(A, (tx) =>
        tx.query<{ role_id: string }>('select role_id::text as role_id from user_roles where user_id = $1', [
          newcomer.id,
        ]),
      );
      expect(roles).toEqual([{ role_id: analystRole.id }]);
      // … audited in the same transaction, as the system's doing.
      const granted = await db.tenant(A, (tx) =>
        tx.query<{ actor_kind: string; before: unknown; after: unknown }>(
          `select actor_kind, before, after from audit_log where action = 'user.sso_roles_granted' and object_id = $1`,
          [newcomer.id],
        ),
      );
      const [roleName] = await db.tenant(A, (tx) =>
        tx.query<{ name: string }>('select name from roles where id = $1', [analystRole.id]),
      );
      expect(granted).toEqual([{ actor_kind: 'system', before: { roles: [] }, after: { roles: [roleName.name] } }]);

      // Password sign-in cannot go off while no active administrator has signed in by SSO.
      const unlinked = await call(settingsApi.PATCH, db, admin, { body: { config: { login: { password: false } } } });
      expect(unlinked.status).toBe(400);
      expect(unlinked.body.error.message).toMatch(/at least one active administrator/);
      await db.tenant(A, (tx) =>
        tx.query(
          'insert into oidc_links (tenant_id, issuer, subject, user_id, created_at) values ($1, $2, $3, $4, now())',
          [A, idp.issuer, 'sso-settings-admin', admin.userId],
        ),
      );

      // Password sign-in can now go off (SSO set up, in the plan, provider answering), then back on.
      const off = await call(settingsApi.PATCH, db, admin, { body: { config: { login: { password: false } } } });
      expect(off.status).toBe(200);
      expect(off.body.config.login.password).toBe(false);
      // … and the lender's people can no longer sign in with a password (the right one included).
      await expect(
        signInWithPassword(db, {
          email: 'analyst@demo.test',
          password: 'Settings-Test-Passphrase-1',
          ip: '10.9.0.2',
          now: new Date(),
        }),
      ).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
      // Removing SSO while password sign-in is off would lock everyone out.
      const lockout = await call(settingsApi.PATCH, db, admin, { body: { config: { login: { sso: null } } } });
      expect(lockout.status).toBe(400);
      expect(lockout.body.error.field).toBe('config.login.sso');
      await call(settingsApi.PATCH, db, admin, { body: { config: { login: { password: true, sso: null } } } });
      const back = await signInWithPassword(db, {
        email: 'analyst@demo.test',
        password: 'Settings-Test-Passphrase-1',
        ip: '10.9.0.2',
        now: new Date(),
      });
      expect(back.kind).toBe('signed-in');
    });
  });
});
