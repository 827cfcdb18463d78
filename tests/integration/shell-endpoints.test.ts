import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '#lib/auth/principal.ts';
import { decideAccess } from '#lib/auth/guard.ts';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import { setDb, type Db } from '#lib/db/index.ts';
import { completeDownload, createDownload } from '#lib/downloads/downloads.ts';

// The endpoints are thin; these call them as Astro would (params, locals, request) to check input
// handling, the one error shape and the tenant/user scoping of files.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'shell-endpoints-'));
process.env.DATA_DIR = dataDir;

const A = 'alpha-t1';
const B = 'beta-t1';
const ADA = '00000000-0000-4000-8000-00000000000a';
const BOB = '00000000-0000-4000-8000-00000000000b';
const CAROL = '00000000-0000-4000-8000-00000000000c';

function who(tenantId: string, userId: string, isAdmin = false): Principal {
  return {
    tenantId,
    userId,
    displayName: 'x',
    email: 'x@x.test',
    isAdmin,
    authorities: [],
    dataPermissions: [],
    language: 'en-US',
    via: 'session',
    sessionId: null,
    passwordChangeRequired: false,
    sessionTimeout: 60,
    idleTimeout: 60,
  };
}

function call(
  handler: unknown,
  args: { principal?: Principal; params?: Record<string, string>; body?: unknown; url?: string; method?: string },
): Promise<Response> {
  const url = new URL(args.url ?? 'http://app.test/v1/x');
  const request = new Request(
    url,
    args.body === undefined
      ? { method: args.method ?? 'GET' }
      : { method: 'POST', body: JSON.stringify(args.body), headers: { 'content-type': 'application/json' } },
  );
  return (handler as (ctx: unknown) => Promise<Response>)({
    request,
    url,
    params: args.params ?? {},
    locals: { requestId: 'req-1', principal: args.principal },
  });
}

afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe.each(testDbKinds())('shell endpoints on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    setDb(db);
    await db.owner(async (tx) => {
      await tx.query(`insert into tenants (id, slug, name, currency, business_date) values
        ('${A}', 'alpha', 'Alpha', 'EUR', '2026-01-15'), ('${B}', 'beta', 'Beta', 'USD', '2026-01-15')`);
      await tx.query(`insert into users (tenant_id, id, email, display_name) values
        ('${A}', '${ADA}', 'ada@alpha.test', 'Ada'), ('${A}', '${BOB}', 'bob@alpha.test', 'Bob'), ('${B}', '${CAROL}', 'carol@beta.test', 'Carol')`);
    });
  });
  afterAll(async () => {
    await drop?.();
  });

  it('POST /v1/error-reports stores a report; signed out is 401; bad input is 400 naming the field', async () => {
    const { POST, GET } = await import('../../src/pages/v1/error-reports/index.ts');
    const ok = await call(POST, {
      principal: who(A, ADA),
      body: {
        message: 'HTTP 502 - Bad Gateway',
        stack: '<html>',
        context: { url: '/v1/loans', method: 'GET' },
        report_type: 'auto',
      },
    });
    expect(ok.status).toBe(201);
    expect((await call(POST, { body: { message: 'x', report_type: 'auto' } })).status).toBe(401);
    const bad = await call(POST, {
      principal: who(A, ADA),
      body: { message: 'x', report_type: 'auto', context: { screen: { width: 'wide' } } },
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.field).toBe('context.screen.width');
    // Listing is for administrators (the guard decides from the route manifest), per tenant.
    expect(
      decideAccess({ method: 'GET', path: '/v1/error-reports', search: '', principal: who(A, ADA) }),
    ).toMatchObject({ kind: 'api-error', status: 403 });
    expect(
      decideAccess({ method: 'GET', path: '/v1/error-reports', search: '', principal: who(A, BOB, true) }),
    ).toMatchObject({ kind: 'allow' });
    const list = await (
      await call(GET, { principal: who(A, BOB, true), url: 'http://app.test/v1/error-reports?limit=10' })
    ).json();
    expect(list.total).toBe(1);
    expect(list.items[0]).toMatchObject({ message: 'HTTP 502 - Bad Gateway', user_name: 'Ada', report_type: 'auto' });
    expect((await (await call(GET, { principal: who(B, CAROL, true) })).json()).total).toBe(0);
    expect(
      (await call(GET, { principal: who(A, BOB, true), url: 'http://app.test/v1/error-reports?limit=0' })).status,
    ).toBe(400);
  });

  it('GET/POST /v1/translations/{lng}/{ns}', async () => {
    const { GET, POST } = await import('../../src/pages/v1/translations/[lng]/[ns].ts');
    const fr = await call(GET, { principal: who(A, ADA), params: { lng: 'fr', ns: 'errors' } });
    expect(fr.status).toBe(200);
    expect((await fr.json()).failedToLoadAdmins).toBe('échec du chargement des administrateurs');
    expect((await call(GET, { principal: who(A, ADA), params: { lng: 'xx', ns: 'errors' } })).status).toBe(404);
    expect((await call(GET, { principal: who(A, ADA), params: { lng: 'en', ns: 'nope' } })).status).toBe(404);
    const posted = await call(POST, {
      principal: who(A, ADA),
      params: { lng: 'fr', ns: 'common' },
      body: { 'home.newThing': 'New thing' },
    });
    expect(posted.status).toBe(202);
    expect(await posted.json()).toEqual({ stored: 1 });
  });

  it('GET /v1/downloads lists only the caller’s files; the file endpoint serves its owner only', async () => {
    const { GET: list } = await import('../../src/pages/v1/downloads/index.ts');
    const { GET: file } = await import('../../src/pages/v1/downloads/[id]/file.ts');
    const d = await createDownload(db, {
      tenantId: A,
      userId: ADA,
      kind: 'loans-export',
      fileName: 'prêts janvier.csv',
      contentType: 'text/csv',
    });
    await completeDownload(db, { tenantId: A, id: d.id, dataDir, content: 'a;b\n1;2\n' });
    const mine = await (await call(list, { principal: who(A, ADA) })).json();
    expect(mine.items.map((x: { id: string; status: string; href: string }) => [x.id, x.status, x.href])).toEqual([
      [d.id, 'done', `/v1/downloads/${d.id}/file`],
    ]);
    expect((await (await call(list, { principal: who(A, BOB) })).json()).items).toEqual([]);

    const response = await call(file, { principal: who(A, ADA), params: { id: d.id } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="pr_ts janvier.csv"; filename*=UTF-8''pr%C3%AAts%20janvier.csv`,
    );
    expect(await response.text()).toBe('a;b\n1;2\n');
    expect((await call(file, { principal: who(A, BOB), params: { id: d.id } })).status).toBe(404);
    expect((await call(file, { principal: who(B, CAROL), params: { id: d.id } })).status).toBe(404);
    expect((await call(file, { principal: who(A, ADA), params: { id: '../../etc/passwd' } })).status).toBe(404);
    expect((await call(file, { params: { id: d.id } })).status).toBe(401);
  });
});
