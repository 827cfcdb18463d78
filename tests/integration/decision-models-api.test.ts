import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import { setDb, type Db } from '#lib/db/index.ts';
import { listAudit } from '#lib/audit/record-audit.ts';
import type { Principal } from '#lib/auth/principal.ts';
import { canCall, matchApiRoute } from '#lib/auth/route-manifest.ts';
import { markVersionUsed } from '#lib/decisioning/models.ts';
import { demoPolicyModel, demoPolicyTestCases } from '#lib/decisioning/samples.ts';
import { scorecardToJdm, sampleScorecard } from '#lib/decisioning/editor-model.ts';
import { A, B, ids, principal, seedAccessFixtures } from './access-fixtures.ts';
import * as list from '../../src/pages/v1/decision-models/index.ts';
import * as one from '../../src/pages/v1/decision-models/[id].ts';
import * as versions from '../../src/pages/v1/decision-models/[id]/versions.ts';
import * as versionN from '../../src/pages/v1/decision-models/[id]/versions/[version].ts';
import * as evaluate from '../../src/pages/v1/decision-models/[id]/evaluate.ts';

type Handler = (context: never) => Response | Promise<Response>;
type Answer = { status: number; body: Record<string, any> };

describe.each(testDbKinds())('decision models API on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  const admin = principal(A, ids(1).admin, 'administrator');
  const adminB = principal(B, ids(2).admin, 'administrator');
  const viewer = principal(A, ids(1).analyst, 'analyst', {
    isAdmin: false,
    authorities: ['admin.decision_models.view'],
  });

  const call = async (
    handler: Handler,
    who: Principal,
    method: string,
    params: Record<string, string>,
    body?: unknown,
    raw?: string,
  ): Promise<Answer> => {
    const url = `http://localhost/v1/decision-models/${params.id ?? ''}`;
    const response = await handler({
      request: new Request(url, {
        method,
        ...(body !== undefined || raw !== undefined
          ? { body: raw ?? JSON.stringify(body), headers: { 'content-type': 'application/json' } }
          : {}),
      }),
      params,
      locals: { principal: who, requestId: 'r-1', language: 'en' },
    } as never);
    return { status: response.status, body: (await response.json()) as Answer['body'] };
  };
  const create = (body: unknown, who = admin) => call(list.POST as Handler, who, 'POST', {}, body);

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind, { checkLedgerOnDrop: false }));
    await seedAccessFixtures(db);
    setDb(db);
  });
  afterAll(() => drop?.());

  it('creates, lists, reads, saves and evaluates a model', async () => {
    const created = await create({
      name: 'Policy <b>one</b>',
      kind: 'table',
      description: 'The credit policy',
      content: demoPolicyModel(),
      testCases: demoPolicyTestCases(),
    });
    expect(created.status).toBe(201);
    expect(created.body.model).toMatchObject({ name: 'Policy <b>one</b>', kind: 'table' });
    expect(created.body.version).toMatchObject({ version: 1, inUse: false, testReport: { passed: 4, failed: 0 } });
    const id = created.body.model.id as string;

    const items = await call(list.GET as Handler, admin, 'GET', {});
    expect(items.body.items).toEqual([
      expect.objectContaining({ id, latestVersion: 1, inUse: false, tests: { passed: 4, failed: 0 } }),
    ]);

    const got = await call(one.GET as Handler, admin, 'GET', { id });
    expect(got.body.versions).toHaveLength(1);
    expect(got.body.versions[0].author).toBeTruthy();

    // Unused: saving edits version 1 in place.
    const saved = await call(one.PUT as Handler, admin, 'PUT', { id }, { content: demoPolicyModel(), baseVersion: 1 });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ superseded: false, previous: 1, version: { version: 1 } });

    const input = {
      exposure: { maxDaysPastDue: 45, writtenOffLoans: 0, debtServiceRatio: 0.1 },
      bankStatement: { averageInflow: 4000 },
    };
    const evaluation = await call(evaluate.POST as Handler, viewer, 'POST', { id }, { input });
    expect(evaluation.status).toBe(200);
    expect(evaluation.body.result).toMatchObject({ decision: 'reject' });
    expect(evaluation.body.version).toBe(1);
    const fired = (evaluation.body.trace as { rules: { _description: string }[] }[]).flatMap((s) => s.rules);
    expect(fired.map((r) => r._description)).toEqual(['Currently more than 30 days late']);
    // Evaluating is a test: the version stays editable.
    const after = await call(one.GET as Handler, admin, 'GET', { id });
    expect(after.body.versions[0].inUse).toBe(false);

    const audit = await db.tenant(A, (tx) => listAudit(tx, 'decision_model', id));
    expect((audit as { action: string }[]).map((a) => a.action)).toEqual(
      expect.arrayContaining(['decision_model.create', 'decision_model.version_update']),
    );
  });

  it('a JDM document posted as { name, content } is an imported graph; a kind alone starts from its template', async () => {
    const raw = await create({ name: 'Imported', content: demoPolicyModel() });
    expect(raw.status).toBe(201);
    expect(raw.body.model.kind).toBe('graph');
    const card = await create({ name: 'Scorecard', kind: 'scorecard' });
    expect(card.status).toBe(201);
    expect(card.body.version.content.editor.scorecard.baseScore).toBe(sampleScorecard().baseScore);
    const duplicate = await create({ name: 'imported', content: demoPolicyModel() });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error.field).toBe('name');
  });

  it('a used version is immutable: PATCH is a 409, saving makes a new version, POST versions supersedes', async () => {
    const created = await create({ name: 'Used policy', kind: 'table', content: demoPolicyModel() });
    const id = created.body.model.id as string;
    await db.tenant(A, (tx) => markVersionUsed(tx, created.body.version.id));

    const patched = await call(
      versionN.PATCH as Handler,
      admin,
      'PATCH',
      { id, version: '1' },
      { content: demoPolicyModel() },
    );
    expect(patched.status).toBe(409);
    expect(patched.body.error).toMatchObject({ field: 'version', code: expect.any(String) });

    const saved = await call(one.PUT as Handler, admin, 'PUT', { id }, { content: demoPolicyModel(), baseVersion: 1 });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ superseded: true, previous: 1, version: { version: 2, inUse: false } });

    // A stale editor (opened version 1) is told to reload.
    const stale = await call(one.PUT as Handler, admin, 'PUT', { id }, { content: demoPolicyModel(), baseVersion: 1 });
    expect(stale.status).toBe(409);

    // Version 2 is unused: PATCH edits it.
    const edit2 = await call(
      versionN.PATCH as Handler,
      admin,
      'PATCH',
      { id, version: '2' },
      { content: demoPolicyModel() },
    );
    expect(edit2.status).toBe(200);
    const v3 = await call(
      versions.POST as Handler,
      admin,
      'POST',
      { id },
      { content: scorecardToJdm(sampleScorecard()) },
    );
    expect(v3.status).toBe(201);
    expect(v3.body.version).toBe(3);
    const missing = await call(
      versionN.PATCH as Handler,
      admin,
      'PATCH',
      { id, version: '9' },
      { content: demoPolicyModel() },
    );
    expect(missing.status).toBe(404);
    // An older version can still be evaluated.
    const old = await call(evaluate.POST as Handler, admin, 'POST', { id }, { input: {}, version: 1 });
    expect(old.body.version).toBe(1);
  });

  it('a failing test case blocks the save, with the report', async () => {
    const created = await create({
      name: 'Tested',
      kind: 'table',
      content: demoPolicyModel(),
      testCases: demoPolicyTestCases(),
    });
    const id = created.body.model.id as string;
    const failing = [
      ...demoPolicyTestCases(),
      { name: 'Wrong', input: { bankStatement: { averageInflow: 4000 } }, expected: { decision: 'reject' } },
    ];
    const refused = await call(
      one.PUT as Handler,
      admin,
      'PUT',
      { id },
      { content: demoPolicyModel(), testCases: failing },
    );
    expect(refused.status).toBe(422);
    expect(refused.body.error.field).toBe('testCases');
    const report = refused.body.error.report as {
      failed: number;
      cases: { name: string; pass: boolean; actual: unknown }[];
    };
    expect(report.failed).toBe(1);
    expect(report.cases.find((c) => !c.pass)).toMatchObject({ name: 'Wrong', actual: { decision: 'approve' } });
    const atCreate = await create({ name: 'Born failing', content: demoPolicyModel(), testCases: failing });
    expect(atCreate.status).toBe(422);
  });

  it('hostile documents are 400 with a clear message, never 500', async () => {
    const base = demoPolicyModel();
    // Built as text: JSON.stringify itself would overflow the stack on it.
    const deep = '['.repeat(5000) + '1' + ']'.repeat(5000);
    const manyNodes = {
      nodes: [
        ...base.nodes,
        ...Array.from({ length: 10_000 }, (_, i) => ({ id: `n${i}`, type: 'expressionNode', name: 'x' })),
      ],
      edges: base.edges,
    };
    const cases: [string, unknown, RegExp][] = [
      [
        'function node',
        { ...base, nodes: [...base.nodes, { id: 'f', type: 'functionNode', name: 'js', content: 'x' }] },
        /not allowed/,
      ],
      [
        'cycle',
        { nodes: base.nodes, edges: [...base.edges, { id: 'back', sourceId: 'policy', targetId: 'policy' }] },
        /engine refused|cycl/i,
      ],
      ['no nodes', { nodes: 'x', edges: [] }, /nodes array/],
      ['a list', [1, 2], /JSON object/],
      ['dangling edge', { nodes: base.nodes, edges: [{ id: 'e', sourceId: 'request', targetId: 'nowhere' }] }, /edge/],
    ];
    for (const [label, content, message] of cases) {
      const answer = await create({ name: `Hostile ${label}`, content });
      expect(answer.status, label).toBe(400);
      expect(answer.body.error.message, label).toMatch(message);
    }
    const nested = await call(
      list.POST as Handler,
      admin,
      'POST',
      {},
      undefined,
      `{"name":"Deep","content":{"nodes":${JSON.stringify(base.nodes)},"edges":[],"extra":${deep}}}`,
    );
    expect(nested.status).toBe(400);
    expect(nested.body.error.message).toMatch(/nested/);
    // Too many nodes: the body limit would stop it over HTTP; the command refuses it too.
    const big = await create({ name: 'Big', content: manyNodes });
    expect(big.status).toBe(400);
    const notJson = await call(list.POST as Handler, admin, 'POST', {}, undefined, '{"name": "x", content: nope');
    expect(notJson.status).toBe(400);
    const wrongTypes = await create({ name: 42, content: 'x' });
    expect(wrongTypes.status).toBe(400);
    const badTests = await create({ name: 'Bad tests', content: base, testCases: [{ name: 'x', input: 1 }] });
    expect(badTests.status).toBe(400);
    expect(badTests.body.error.field).toBe('testCases');

    const created = await create({ name: 'Target', content: base });
    const id = created.body.model.id as string;
    const deepInput = await call(evaluate.POST as Handler, admin, 'POST', { id }, undefined, `{"input":{"a":${deep}}}`);
    expect(deepInput.status).toBe(400);
    const badInput = await call(evaluate.POST as Handler, admin, 'POST', { id }, { input: 'text' });
    expect(badInput.status).toBe(400);
    const badId = await call(one.GET as Handler, admin, 'GET', { id: 'not-a-uuid' });
    expect(badId.status).toBe(404);
  });

  it("another tenant's model is a 404", async () => {
    const created = await create({ name: 'Alpha only', content: demoPolicyModel() });
    const id = created.body.model.id as string;
    expect((await call(one.GET as Handler, adminB, 'GET', { id })).status).toBe(404);
    expect((await call(one.PUT as Handler, adminB, 'PUT', { id }, { content: demoPolicyModel() })).status).toBe(404);
    expect((await call(evaluate.POST as Handler, adminB, 'POST', { id }, { input: {} })).status).toBe(404);
    expect((await call(versions.POST as Handler, adminB, 'POST', { id }, { content: demoPolicyModel() })).status).toBe(
      404,
    );
    expect((await call(list.GET as Handler, adminB, 'GET', {})).body.items).toEqual([]);
  });

  it('permissions: view reads and tests, edit writes; a loan officer reaches none of it', async () => {
    const created = await create({ name: 'Guarded', content: demoPolicyModel() });
    const id = created.body.model.id as string;
    const write = await call(one.PUT as Handler, viewer, 'PUT', { id }, { content: demoPolicyModel() });
    expect(write.status).toBe(403);
    expect((await create({ name: 'Viewer made', content: demoPolicyModel() }, viewer)).status).toBe(403);
    const refusals = await db.tenant(A, (tx) => listAudit(tx, 'decision_model', id));
    expect(refusals).toEqual(
      expect.arrayContaining([expect.objectContaining({ action: 'decision_model.save', outcome: 'denied' })]),
    );

    const officer = principal(A, ids(1).officer, 'loan_officer');
    for (const [path, method] of [
      ['/v1/decision-models', 'GET'],
      ['/v1/decision-models', 'POST'],
      [`/v1/decision-models/${id}`, 'PUT'],
      [`/v1/decision-models/${id}/evaluate`, 'POST'],
      [`/v1/decision-models/${id}/versions/1`, 'PATCH'],
    ] as const) {
      const rule = matchApiRoute(path)!.entry.methods[method]!;
      expect(canCall(officer, rule), `${method} ${path}`).toBe(false);
      expect(canCall(admin, rule), `${method} ${path}`).toBe(true);
    }
    expect(canCall(viewer, matchApiRoute(`/v1/decision-models/${id}/evaluate`)!.entry.methods.POST!)).toBe(true);
    expect(canCall(viewer, matchApiRoute(`/v1/decision-models/${id}`)!.entry.methods.PUT!)).toBe(false);
  });
});
