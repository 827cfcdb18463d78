import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventBuffer, listEvents, recordEvent } from '#lib/analytics/events.ts';
import type { Db } from '#lib/db/index.ts';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import { assertWithinLimit, consumeUsage, currentPlan, DEMO_PLANS, setTenantPlan } from '#lib/plans/plans.ts';
import { listHierarchies } from '#lib/tenancy/hierarchies.ts';
import { parseScope, resolveScopeNodes, scopeFilter } from '#lib/tenancy/scope.ts';
import { currentUser, listAdministrators } from '#lib/tenancy/users.ts';
import { A, B, ids, seedAccessFixtures } from './access-fixtures.ts';

const a = ids(1);
const unrestricted = { isAdmin: false, dataPermissions: [] };
const sorted = (xs: string[] | null) => (xs ? [...xs].sort() : xs);

describe.each(testDbKinds())('access data layer on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    await seedAccessFixtures(db);
  });
  afterAll(() => drop?.());

  describe('scope', () => {
    it('parses level:id and names the field when malformed', () => {
      expect(parseScope('branch:PAR-01')).toEqual({ hierarchy_level: 'branch', hierarchy_id: 'PAR-01' });
      expect(parseScope(`region:${a.r1}`)).toEqual({ hierarchy_level: 'region', hierarchy_id: a.r1 });
      expect(parseScope('')).toBeNull();
      expect(parseScope(null)).toBeNull();
      for (const bad of ['branch', 'country:1', 'branch:', ':x', "branch:1' or '1'='1"]) {
        expect(() => parseScope(bad)).toThrow(expect.objectContaining({ code: 'BAD_REQUEST', field: 'scope' }));
      }
    });

    it.each([
      [
        'admin, no scope → unrestricted',
        { isAdmin: true, dataPermissions: [{ field: 'branch', value: 'A-B1' }] },
        null,
        null,
      ],
      [
        'no hierarchy permission, no scope → unrestricted',
        { isAdmin: false, dataPermissions: [{ field: 'product', value: 'x' }] },
        null,
        null,
      ],
      [
        'branch permission → the branch and its officer',
        { isAdmin: false, dataPermissions: [{ field: 'branch', value: 'A-B1' }] },
        null,
        [a.b1, a.o1],
      ],
      [
        'region permission → region, branch, officer',
        { isAdmin: false, dataPermissions: [{ field: 'region', value: 'A-R2' }] },
        null,
        [a.r2, a.b2, a.o2],
      ],
      [
        'two permissions → their union',
        {
          isAdmin: false,
          dataPermissions: [
            { field: 'branch', value: 'A-B1' },
            { field: 'officer', value: 'A-O2' },
          ],
        },
        null,
        [a.b1, a.o1, a.o2],
      ],
      ['unknown code → nothing', { isAdmin: false, dataPermissions: [{ field: 'branch', value: 'NOPE' }] }, null, []],
      ['scope by id narrows an unrestricted user', unrestricted, `region:${a.r1}`, [a.r1, a.b1, a.o1]],
      ['scope by code', unrestricted, 'officer:A-O2', [a.o2]],
      [
        'scope inside the permission',
        { isAdmin: false, dataPermissions: [{ field: 'region', value: 'A-R1' }] },
        'officer:A-O1',
        [a.o1],
      ],
      [
        'scope outside the permission → nothing (never widens)',
        { isAdmin: false, dataPermissions: [{ field: 'branch', value: 'A-B1' }] },
        `branch:${a.b2}`,
        [],
      ],
      ['scope at the wrong level → nothing', unrestricted, `branch:${a.r1}`, []],
    ])('%s', async (_name, subject, scope, expected) => {
      const nodes = await db.tenant(A, (tx) => resolveScopeNodes(tx, subject, parseScope(scope)));
      expect(sorted(nodes)).toEqual(sorted(expected));
    });

    it("never resolves another tenant's nodes, by id or by code", async () => {
      const b = ids(2);
      expect(await db.tenant(A, (tx) => resolveScopeNodes(tx, unrestricted, parseScope(`branch:${b.b1}`)))).toEqual([]);
      expect(await db.tenant(A, (tx) => resolveScopeNodes(tx, unrestricted, parseScope('branch:B-B1')))).toEqual([]);
      expect(
        await db.tenant(A, (tx) =>
          resolveScopeNodes(tx, { isAdmin: false, dataPermissions: [{ field: 'branch', value: 'B-B1' }] }, null),
        ),
      ).toEqual([]);
    });

    it('builds a parameterised SQL filter that list queries can use', async () => {
      const subject = { isAdmin: false, dataPermissions: [{ field: 'branch', value: 'A-B1' }] };
      const rows = await db.tenant(A, async (tx) => {
        const filter = await scopeFilter(tx, subject, null, { columns: ['n.id', 'n.parent_id'], firstParam: 2 });
        expect(filter.sql).toBe('(n.id = any($2::uuid[]) or n.parent_id = any($2::uuid[]))');
        return tx.query<{ code: string }>(
          `select code from hierarchy_nodes n where level = $1 and ${filter.sql} order by code`,
          ['officer', ...filter.params],
        );
      });
      expect(rows.map((r) => r.code)).toEqual(['A-O1']);
      expect(
        await db.tenant(A, (tx) =>
          scopeFilter(tx, { isAdmin: true, dataPermissions: [] }, null, { columns: ['x'], firstParam: 1 }),
        ),
      ).toEqual({ sql: 'true', params: [] });
      expect(
        await db.tenant(A, (tx) =>
          scopeFilter(tx, unrestricted, parseScope('branch:NOPE'), { columns: ['x'], firstParam: 1 }),
        ),
      ).toEqual({ sql: 'false', params: [] });
    });
  });

  it('lists the hierarchy as trees, restricted users seeing only their subtree', async () => {
    const all = await db.tenant(A, (tx) => listHierarchies(tx, unrestricted));
    expect(all.map((r) => [r.code, r.children.map((c) => [c.code, c.children.map((o) => o.code)])])).toEqual([
      ['A-R1', [['A-B1', ['A-O1']]]],
      ['A-R2', [['A-B2', ['A-O2']]]],
    ]);
    const officer = await db.tenant(A, (tx) =>
      listHierarchies(tx, { isAdmin: false, dataPermissions: [{ field: 'branch', value: 'A-B1' }] }),
    );
    expect(officer.map((r) => [r.level, r.code, r.children.map((c) => c.code)])).toEqual([
      ['branch', 'A-B1', ['A-O1']],
    ]);
  });

  it('reads the current user with exactly the fields of the user contract, and the active administrators', async () => {
    const me = await db.tenant(A, (tx) => currentUser(tx, a.officer));
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
      id: a.officer,
      display_name: 'A Officer',
      email: 'officer@a.test',
      tenant_id: A,
      roles: [{ name: 'A Loan officer' }],
      data_permissions: [{ field: 'branch', value: 'A-B1' }],
      is_admin: false,
      language: 'fr-FR',
      session_timeout: 120,
      password_change_required: false,
    });
    expect(me.authorities).toContain('loans.offers.notify');
    expect(await db.tenant(A, (tx) => listAdministrators(tx))).toEqual([
      { display_name: 'A Admin', email: 'admin@a.test' },
    ]);
    await expect(db.tenant(A, (tx) => currentUser(tx, ids(2).officer))).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  describe('plans', () => {
    beforeAll(async () => {
      await db.tenant(A, (tx) => setTenantPlan(tx, A, DEMO_PLANS.growth));
      await db.tenant(B, (tx) =>
        setTenantPlan(tx, B, [
          ...DEMO_PLANS.starter.filter((f) => f.feature !== 'exports' && f.feature !== 'users'),
          {
            feature: 'exports',
            supportsUsageLimit: true,
            usageUnit: 'exports',
            plans: [{ name: 'Starter', enabled: true, unlimited: false, usageLimit: 3 }],
          },
          {
            feature: 'users',
            supportsUsageLimit: true,
            usageUnit: 'users',
            plans: [{ name: 'Starter', enabled: true, unlimited: false, usageLimit: 3 }],
          },
        ]),
      );
    });

    it('serves features with plans and usage, per tenant', async () => {
      const plan = await db.tenant(A, (tx) => currentPlan(tx, A));
      expect(plan.find((f) => f.name === 'users')).toEqual({
        name: 'users',
        supports_usage_limit: true,
        usage_unit: 'users',
        usage: 3,
        plans: [
          { name: 'Growth', enabled: true, unlimited: false, usage_limit: 50 },
          { name: 'Enterprise', enabled: true, unlimited: true, usage_limit: null },
        ],
      });
      const beta = await db.tenant(B, (tx) => currentPlan(tx, B));
      expect(beta.find((f) => f.name === 'decision_engine')?.plans[0].enabled).toBe(false);
      expect(await db.system((tx) => tx.query('select * from pricing_plans'))).toEqual([]);
    });

    it('enforces limits on the server: derived counts and consumed counters, all or nothing', async () => {
      // Beta has 3 active users and a limit of 3: the next user is refused.
      await expect(db.tenant(B, (tx) => assertWithinLimit(tx, B, 'users'))).rejects.toMatchObject({
        code: 'LIMIT_REACHED',
        status: 402,
      });
      await db.tenant(A, (tx) => assertWithinLimit(tx, A, 'users'));
      await db.tenant(A, (tx) => assertWithinLimit(tx, A, 'no-such-feature'));
      await db.tenant(B, (tx) => consumeUsage(tx, B, 'exports', 2));
      await expect(db.tenant(B, (tx) => consumeUsage(tx, B, 'exports', 2))).rejects.toMatchObject({
        code: 'LIMIT_REACHED',
      });
      await db.tenant(B, (tx) => consumeUsage(tx, B, 'exports', 1));
      await expect(db.tenant(B, (tx) => consumeUsage(tx, B, 'exports'))).rejects.toMatchObject({
        code: 'LIMIT_REACHED',
      });
      const exports = (await db.tenant(B, (tx) => currentPlan(tx, B))).find((f) => f.name === 'exports');
      expect(exports?.usage).toBe(3);
      // A rolled-back consumer gives its units back.
      await db.tenant(A, (tx) => consumeUsage(tx, A, 'exports', 5));
      await expect(
        db.tenant(A, async (tx) => {
          await consumeUsage(tx, A, 'exports', 5);
          throw new Error('rollback');
        }),
      ).rejects.toThrow('rollback');
      expect((await db.tenant(A, (tx) => currentPlan(tx, A))).find((f) => f.name === 'exports')?.usage).toBe(5);
    });

    // Concurrent consumers of API tokens (a derived count) and exports: tests/integration/plans-limits.test.ts.
  });

  it('stores analytics events first-party, per tenant, batched', async () => {
    await db.tenant(A, (tx) =>
      recordEvent(tx, { tenantId: A, name: 'login', userId: a.admin, path: '/loans/overview' }),
    );
    await expect(db.tenant(A, (tx) => recordEvent(tx, { tenantId: B, name: 'login', userId: null }))).rejects.toThrow(
      /row-level security/,
    );
    const buffer = new EventBuffer(async () => db, { flushMs: 60_000 });
    buffer.push({ tenantId: A, name: 'page_view:/loans/overview', userId: a.admin, path: '/loans/overview' });
    buffer.push({ tenantId: B, name: 'page_view:/', userId: ids(2).admin, path: '/' });
    buffer.push({ tenantId: A, name: 'page_view:/', userId: a.officer, path: '/' });
    await buffer.flush();
    const events = await db.tenant(A, (tx) => listEvents(tx));
    expect(events.map((e) => e.name).sort()).toEqual(['login', 'page_view:/', 'page_view:/loans/overview']);
    expect((await db.tenant(B, (tx) => listEvents(tx))).map((e) => e.name)).toEqual(['page_view:/']);
  });
});
