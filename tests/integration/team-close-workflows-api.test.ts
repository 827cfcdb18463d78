import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import { setDb, type Db } from '#lib/db/index.ts';
import type { Principal } from '#lib/auth/principal.ts';
import { GET as listRoute, POST as createRoute } from '../../src/pages/v1/collection-workflows/index.ts';
import {
  DELETE as deleteRoute,
  GET as getRoute,
  PATCH as patchRoute,
} from '../../src/pages/v1/collection-workflows/[id].ts';
import { GET as bucketsGet, PUT as bucketsPut } from '../../src/pages/v1/collection/buckets.ts';
import { GET as priorityGet, PUT as priorityPut } from '../../src/pages/v1/collection/priority.ts';

/** The collection settings API: workflows CRUD with revisions, bucket rules, priority weights, tenants apart, audit. */

const A = 'tcw-a';
const B = 'tcw-b';

const principal = (tenantId: string, over: Partial<Principal> = {}): Principal => ({
  tenantId,
  userId: '00000000-0000-0000-0000-0000000000b1',
  displayName: 'Editor',
  email: 'editor@test',
  isAdmin: false,
  authorities: ['admin.collection_workflow.view', 'admin.collection_workflow.edit', 'admin.collection_workflow.delete'],
  dataPermissions: [],
  language: 'en',
  via: 'session',
  sessionId: null,
  passwordChangeRequired: false,
  sessionTimeout: 3600,
  idleTimeout: 900,
  ...over,
});

type Call = { status: number; body: Record<string, unknown> & { error?: Record<string, unknown> } };

async function call(
  handler: (context: never) => Response | Promise<Response>,
  init: { principal: Principal; method: string; params?: Record<string, string>; body?: unknown; language?: string },
): Promise<Call> {
  const request = new Request('http://localhost/v1/x', {
    method: init.method,
    headers: { 'content-type': 'application/json' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const response = await handler({
    request,
    url: new URL(request.url),
    params: init.params ?? {},
    locals: { principal: init.principal, requestId: 'test', language: init.language ?? 'en' },
    clientAddress: '127.0.0.1',
  } as never);
  return { status: response.status, body: JSON.parse(await response.text()) };
}

describe.each(testDbKinds())('collection settings API on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  const editor = () => principal(A);

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind, { checkLedgerOnDrop: false }));
    setDb(db);
    await db.owner((tx) =>
      tx.query(
        `insert into tenants (id, slug, name, currency, business_date) values ($1, 'tcwa', 'A', 'USD', '2026-01-01'), ($2, 'tcwb', 'B', 'USD', '2026-01-01')`,
        [A, B],
      ),
    );
  });
  afterAll(async () => {
    await drop();
  });

  it('creates, reads, updates (409 when stale) and deletes a workflow; another tenant sees 404', async () => {
    const buckets = await call(bucketsGet, { principal: editor(), method: 'GET' });
    const items = buckets.body.items as { id: string; name: string }[];
    expect(items.map((b) => b.name)).toEqual(['1–30', '31–60', '61–90', '90+']);
    const created = await call(createRoute, {
      principal: editor(),
      method: 'POST',
      body: {
        name: 'Early',
        bucketId: items[0].id,
        steps: [
          { offsetDays: 1, action: 'send_template', params: { templateCode: 'payment_reminder_sms' } },
          { offsetDays: 5, action: 'create_task', params: { title: 'Call' } },
        ],
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.body).toMatchObject({ name: 'Early', bucketName: '1–30', enabled: true, revision: 1 });
    const stepIds = (created.body.steps as { id: string }[]).map((s) => s.id);
    expect(stepIds).toHaveLength(2);
    expect(new Set(stepIds).size).toBe(2);

    const invalid = await call(createRoute, {
      principal: editor(),
      method: 'POST',
      body: { name: 'Bad', bucketId: items[0].id, steps: [{ offsetDays: 0, action: 'send_template', params: {} }] },
    });
    expect(invalid.status).toBe(400);
    const duplicate = await call(createRoute, {
      principal: editor(),
      method: 'POST',
      body: { name: 'early', bucketId: items[0].id, steps: [] },
    });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error).toMatchObject({ field: 'name' });

    const patched = await call(patchRoute, {
      principal: editor(),
      method: 'PATCH',
      params: { id },
      body: { expectedRevision: 1, enabled: false },
    });
    expect(patched.body).toMatchObject({ enabled: false, revision: 2 });
    const stale = await call(patchRoute, {
      principal: editor(),
      method: 'PATCH',
      params: { id },
      body: { expectedRevision: 1, name: 'Late' },
    });
    expect(stale.status).toBe(409);

    expect((await call(getRoute, { principal: principal(B), method: 'GET', params: { id } })).status).toBe(404);
    expect(
      (await call(patchRoute, { principal: principal(B), method: 'PATCH', params: { id }, body: { enabled: true } }))
        .status,
    ).toBe(404);
    expect((await call(deleteRoute, { principal: principal(B), method: 'DELETE', params: { id } })).status).toBe(404);
    expect(((await call(listRoute, { principal: principal(B), method: 'GET' })).body.items as unknown[]).length).toBe(
      0,
    );

    const viewer = principal(A, { authorities: ['admin.collection_workflow.view', 'admin.collection_workflow.edit'] });
    expect((await call(deleteRoute, { principal: viewer, method: 'DELETE', params: { id } })).status).toBe(403);

    // A bucket used by a workflow cannot be deleted.
    const without = await call(bucketsPut, {
      principal: editor(),
      method: 'PUT',
      body: { buckets: [{ name: 'All', minDays: 1, maxDays: null }] },
    });
    expect(without.status).toBe(409);
    expect(JSON.stringify(without.body)).toContain('Early');

    expect((await call(deleteRoute, { principal: editor(), method: 'DELETE', params: { id } })).status).toBe(200);
    expect((await call(getRoute, { principal: editor(), method: 'GET', params: { id } })).status).toBe(404);

    const audit = await db.tenant(A, (tx) =>
      tx.query<{ action: string }>(
        `select action from audit_log where object_type = 'collection_workflow' and outcome = 'success' order by occurred_at, action`,
      ),
    );
    expect(audit.map((a) => a.action).sort()).toEqual([
      'collection_workflow.create',
      'collection_workflow.delete',
      'collection_workflow.update',
    ]);
  });

  it('checks bucket lists (French message naming the row) and saves a valid one', async () => {
    const current = (await call(bucketsGet, { principal: editor(), method: 'GET' })).body.items as {
      id: string;
      name: string;
      minDays: number;
      maxDays: number | null;
    }[];
    const gap = await call(bucketsPut, {
      principal: editor(),
      method: 'PUT',
      language: 'fr',
      body: {
        buckets: [
          { id: current[0].id, name: '1–30', minDays: 1, maxDays: 30 },
          { id: current[1].id, name: '35+', minDays: 35, maxDays: null },
        ],
      },
    });
    expect(gap.status).toBe(422);
    expect(gap.body.error).toMatchObject({ field: 'buckets[1].minDays' });
    expect(String(gap.body.error?.message)).toContain('doit commencer au jour 31');
    const saved = await call(bucketsPut, {
      principal: editor(),
      method: 'PUT',
      body: {
        buckets: [
          { id: current[1].id, name: 'Early', minDays: 1, maxDays: 45 },
          { id: current[0].id, name: '1–30', minDays: 46, maxDays: null },
        ],
      },
    });
    expect(saved.status).toBe(200);
    expect((saved.body.items as { name: string; minDays: number }[]).map((b) => [b.name, b.minDays])).toEqual([
      ['Early', 1],
      ['1–30', 46],
    ]);
  });

  it('saves priority weights (≥ 0, 409 when stale)', async () => {
    const before = await call(priorityGet, { principal: editor(), method: 'GET' });
    expect(before.body).toMatchObject({ weightDays: '10.0000', revision: 1 });
    const negative = await call(priorityPut, {
      principal: editor(),
      method: 'PUT',
      body: { weightAmount: -1, weightDays: 1, weightBrokenPromises: 1 },
    });
    expect(negative.status).toBe(400);
    expect(negative.body.error).toMatchObject({ field: 'weightAmount' });
    const ok = await call(priorityPut, {
      principal: editor(),
      method: 'PUT',
      body: { weightAmount: 2, weightDays: 0, weightBrokenPromises: 50, expectedRevision: 1 },
    });
    expect(ok.body).toMatchObject({ weightAmount: '2.0000', weightDays: '0.0000', revision: 2 });
    const stale = await call(priorityPut, {
      principal: editor(),
      method: 'PUT',
      body: { weightAmount: 2, weightDays: 0, weightBrokenPromises: 50, expectedRevision: 1 },
    });
    expect(stale.status).toBe(409);
  });
});
