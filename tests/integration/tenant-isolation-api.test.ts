import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiToken, createApiToken } from '#lib/auth/api-tokens.ts';
import type { Principal } from '#lib/auth/principal.ts';
import { setDb, type Db } from '#lib/db/index.ts';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import { seedDemo, DEMO_TENANTS } from '#lib/seed/demo.ts';
import { findTenant } from '#lib/tenancy/tenant.ts';
import { currentUser } from '#lib/tenancy/users.ts';
import * as errorReports from '../../src/pages/v1/error-reports/index.ts';
import * as hierarchies from '../../src/pages/v1/hierarchies.ts';
import * as plans from '../../src/pages/v1/pricing-plans/current.ts';
import * as tenantConfig from '../../src/pages/v1/tenant-config.ts';
import * as admins from '../../src/pages/v1/users/admin.ts';
import * as me from '../../src/pages/v1/users/me.ts';

const A = DEMO_TENANTS.demo;
const B = DEMO_TENANTS.acme;

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
  init: { url?: string; body?: unknown; method?: string; params?: Record<string, string> } = {},
) {
  const url = new URL(init.url ?? 'http://localhost/v1/x');
  const request = new Request(
    url,
    init.body === undefined
      ? { method: init.method ?? 'GET' }
      : {
          method: init.method ?? 'POST',
          body: JSON.stringify(init.body),
          headers: { 'content-type': 'application/json' },
        },
  );
  const tenant = await findTenant(db, principal.tenantId);
  const response = await handler({
    request,
    url,
    params: init.params ?? {},
    locals: { requestId: 'req-1', principal, tenant, language: 'en' },
  } as never);
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null, text };
}

describe.each(testDbKinds())('tenant isolation through the API on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let adminA: Principal;
  let adminB: Principal;
  let bNodeIds: string[];
  let bUserIds: string[];

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    expect(await seedDemo(db, { password: 'Isolation-Test-2026!' })).toBe(true);
    setDb(db);
    adminA = await principalOf(db, A, 'admin@demo.test');
    adminB = await principalOf(db, B, 'admin@acme.test');
    bNodeIds = (await db.tenant(B, (tx) => tx.query<{ id: string }>('select id::text as id from hierarchy_nodes'))).map(
      (r) => r.id,
    );
    bUserIds = (await db.tenant(B, (tx) => tx.query<{ id: string }>('select id::text as id from users'))).map(
      (r) => r.id,
    );
    expect(bNodeIds.length).toBeGreaterThan(0);
  });
  afterAll(() => drop?.());

  it("GET /v1/users/me answers A's user only; a principal naming B's user id under A is refused", async () => {
    const ok = await call(me.GET as Handler, db, adminA);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ tenant_id: A, email: 'admin@demo.test', is_admin: true });
    const forged = await call(me.GET as Handler, db, { ...adminA, userId: adminB.userId });
    expect(forged.status).toBe(401);
    expect(forged.text).not.toContain('acme');
  });

  it("GET /v1/users/admin lists only A's administrators", async () => {
    const res = await call(admins.GET as Handler, db, adminA);
    expect(res.body).toEqual([{ display_name: expect.any(String), email: 'admin@demo.test' }]);
  });

  it("GET /v1/hierarchies shows only A's nodes, whatever B ids the query carries", async () => {
    const res = await call(hierarchies.GET as Handler, db, adminA, {
      url: `http://localhost/v1/hierarchies?scope=branch:${bNodeIds[0]}&tenant_id=${B}`,
    });
    expect(res.status).toBe(200);
    const seen = JSON.stringify(res.body);
    for (const id of bNodeIds) expect(seen).not.toContain(id);
    expect(seen).toContain('PAR-01');
    expect(seen).not.toContain('NYC-01');
  });

  it("GET /v1/pricing-plans/current and /v1/tenant-config answer A's own", async () => {
    const planA = await call(plans.GET as Handler, db, adminA);
    const planB = await call(plans.GET as Handler, db, adminB);
    expect(planA.body.find((f: { name: string }) => f.name === 'decision_engine').plans[0]).toMatchObject({
      name: 'Growth',
      enabled: true,
    });
    expect(planB.body.find((f: { name: string }) => f.name === 'decision_engine').plans[0]).toMatchObject({
      name: 'Starter',
      enabled: false,
    });
    const config = await call(tenantConfig.GET as Handler, db, adminA);
    expect(config.body).toMatchObject({ tenantId: A, projectId: 'demo', currency: 'EUR' });
  });

  it("POST /v1/error-reports with B's tenant and user in the body writes into A only; B's admin never sees it", async () => {
    const posted = await call(errorReports.POST as Handler, db, adminA, {
      body: {
        message: 'HTTP 500 - Internal Server Error',
        stack: 'x',
        context: { url: '/v1/x', method: 'GET' },
        report_type: 'auto',
        tenant_id: B,
        user_id: bUserIds[0],
      },
    });
    expect(posted.status).toBe(201);
    const listB = await call(errorReports.GET as Handler, db, adminB, { url: 'http://localhost/v1/error-reports' });
    expect(listB.body.total).toBe(0);
    const listA = await call(errorReports.GET as Handler, db, adminA, { url: 'http://localhost/v1/error-reports' });
    expect(listA.body.total).toBe(1);
    expect(listA.body.items[0].user_id).toBe(adminA.userId);
  });

  it("an API token of A presented with B's x-tenant-id authenticates nothing", async () => {
    const { token } = await db.tenant(A, (tx) =>
      createApiToken(tx, { tenantId: A, createdBy: adminA, name: 'isolation', now: new Date() }),
    );
    expect(await authenticateApiToken(db, { tenantId: B, token, now: new Date() })).toBeNull();
    expect((await authenticateApiToken(db, { tenantId: A, token, now: new Date() }))?.tenantId).toBe(A);
  });

  it('every table with a tenant_id is row-secured (forced); without a tenant the app connection sees nothing', async () => {
    const tables = await db.owner((tx) =>
      tx.query<{ table_name: string; rls: boolean; forced: boolean }>(
        `select c.relname as table_name, c.relrowsecurity as rls, c.relforcerowsecurity as forced
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind in ('r', 'p')
          and exists (select 1 from information_schema.columns col where col.table_schema = 'public' and col.table_name = c.relname and col.column_name = 'tenant_id')
        order by c.relname`,
      ),
    );
    expect(tables.length).toBeGreaterThan(5);
    // Global by design (documented in their migrations): they map something to a tenant before one is bound.
    const GLOBAL = new Set(['jobs', 'oidc_auth_requests', 'public_form_links', 'sign_in_directory']);
    const secured = tables.filter((t) => !GLOBAL.has(t.table_name));
    for (const t of secured)
      expect({ table: t.table_name, rls: t.rls, forced: t.forced }).toEqual({
        table: t.table_name,
        rls: true,
        forced: true,
      });
    for (const t of secured) {
      const [{ n }] = await db.system((tx) =>
        tx.query<{ n: number }>(`select count(*)::int as n from ${t.table_name}`),
      );
      expect({ table: t.table_name, n }).toEqual({ table: t.table_name, n: 0 });
    }
    const [{ n: usersSeen }] = await db.owner((tx) => tx.query<{ n: number }>('select count(*)::int as n from users'));
    expect(usersSeen).toBeGreaterThan(0);
  });

  it("under tenant A, no statement can read, change or delete B's rows, even naming them by id", async () => {
    const before = await db.owner((tx) =>
      tx.query<{ n: number }>(`select count(*)::int as n from users where tenant_id = $1`, [B]),
    );
    await db.tenant(A, async (tx) => {
      expect(await tx.query('select * from users where id = any($1::uuid[])', [bUserIds])).toEqual([]);
      expect(
        await tx.query(`update users set display_name = 'pwned' where id = any($1::uuid[]) returning id`, [bUserIds]),
      ).toEqual([]);
      expect(await tx.query('delete from hierarchy_nodes where id = any($1::uuid[]) returning id', [bNodeIds])).toEqual(
        [],
      );
      expect(await tx.query('select * from pricing_plans where tenant_id = $1', [B])).toEqual([]);
    });
    const after = await db.owner((tx) =>
      tx.query<{ n: number; pwned: number }>(
        `select count(*)::int as n, count(*) filter (where display_name = 'pwned')::int as pwned from users where tenant_id = $1`,
        [B],
      ),
    );
    expect(after[0]).toEqual({ n: before[0].n, pwned: 0 });
  });
});
