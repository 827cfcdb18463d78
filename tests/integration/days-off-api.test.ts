import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import { setDb, type Db } from '#lib/db/index.ts';
import type { Principal } from '#lib/auth/principal.ts';
import { GET as overviewRoute } from '../../src/pages/v1/days-off/index.ts';
import { POST as addRoute } from '../../src/pages/v1/days-off/holidays/index.ts';
import { DELETE as deleteRoute, PATCH as patchRoute } from '../../src/pages/v1/days-off/holidays/[id].ts';
import { PUT as weekdaysRoute } from '../../src/pages/v1/days-off/weekdays.ts';
import { PUT as ruleRoute } from '../../src/pages/v1/days-off/rule.ts';
import { POST as importRoute } from '../../src/pages/v1/days-off/import.ts';
import { POST as applyRoute } from '../../src/pages/v1/days-off/apply.ts';
import { createLendingFixture, type LendingFixture } from '../support/lending-fixtures.ts';

// The /v1/days-off endpoints through their real handlers: the permission (view reads, edit writes),
// JSON shapes, 400 naming the field in the caller's language, 409 on a stale revision, the import's
// dry run and refusal naming the line, the apply preview and the move.

type Call = { status: number; body: Record<string, unknown> };

async function call(
  handler: (context: never) => Response | Promise<Response>,
  url: string,
  init: { principal: Principal; method: string; params?: Record<string, string>; body?: unknown; language?: string },
): Promise<Call> {
  const request = new Request(`http://localhost${url}`, {
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
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

describe.each(testDbKinds())('/v1/days-off on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  let editor: Principal;
  let viewer: Principal;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    setDb(db);
    f = await createLendingFixture(db, { businessDate: '2026-01-20' });
    const base: Principal = {
      tenantId: f.tenantId,
      userId: f.admin.userId,
      displayName: 'Days off admin',
      email: 'd@test',
      isAdmin: false,
      authorities: ['admin.days_off.view', 'admin.days_off.edit'],
      dataPermissions: [],
      language: 'en',
      via: 'session',
      sessionId: null,
      passwordChangeRequired: false,
      sessionTimeout: 3600,
      idleTimeout: 900,
    };
    editor = base;
    viewer = { ...base, userId: f.maker.userId, authorities: ['admin.days_off.view'] };
  });
  afterAll(async () => drop());

  test('read, change the rule and the weekdays, add, edit and delete a holiday', async () => {
    const overview = await call(overviewRoute, '/v1/days-off', { principal: viewer, method: 'GET' });
    expect(overview.status).toBe(200);
    expect(overview.body).toMatchObject({ rule: 'NEXT_WORKING_DAY', holidays: [], branches: [] });

    const badRule = await call(ruleRoute, '/v1/days-off/rule', {
      principal: editor,
      method: 'PUT',
      body: { rule: 'TOMORROW' },
      language: 'fr',
    });
    expect(badRule.status).toBe(400);
    expect(badRule.body.error).toMatchObject({ field: 'rule', message: expect.stringMatching(/^La règle doit être/) });
    const rule = await call(ruleRoute, '/v1/days-off/rule', {
      principal: editor,
      method: 'PUT',
      body: { rule: 'PREVIOUS_WORKING_DAY' },
    });
    expect(rule).toEqual({
      status: 200,
      body: { rule: 'PREVIOUS_WORKING_DAY', fineractRule: 'MOVE_TO_PREVIOUS_WORKING_DAY' },
    });
    const weekdays = await call(weekdaysRoute, '/v1/days-off/weekdays', {
      principal: editor,
      method: 'PUT',
      body: { weekdays: [7, 6, 6] },
    });
    expect(weekdays).toEqual({ status: 200, body: { weekdays: [6, 7], branchId: null } });

    const denied = await call(addRoute, '/v1/days-off/holidays', {
      principal: viewer,
      method: 'POST',
      body: { name: 'X', from: '2026-05-01', to: '2026-05-01' },
    });
    expect(denied.status).toBe(403);
    const unknownField = await call(addRoute, '/v1/days-off/holidays', {
      principal: editor,
      method: 'POST',
      body: { name: 'X', from: '2026-05-01', to: '2026-05-01', colour: 'red' },
    });
    expect(unknownField.status).toBe(400);
    const badDate = await call(addRoute, '/v1/days-off/holidays', {
      principal: editor,
      method: 'POST',
      body: { name: 'X', from: '2026-13-01', to: '2026-05-01' },
    });
    expect(badDate.status).toBe(400);
    expect(badDate.body.error).toMatchObject({ field: 'from' });
    const added = await call(addRoute, '/v1/days-off/holidays', {
      principal: editor,
      method: 'POST',
      body: { name: 'Labour Day', from: '2026-05-01', to: '2026-05-01' },
    });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ name: 'Labour Day', status: 'pending', revision: 1, branch: null });
    const id = added.body.id as string;

    const stale = await call(patchRoute, `/v1/days-off/holidays/${id}`, {
      principal: editor,
      method: 'PATCH',
      params: { id },
      body: { to: '2026-05-02', expectedRevision: 7 },
    });
    expect(stale.status).toBe(409);
    const patched = await call(patchRoute, `/v1/days-off/holidays/${id}`, {
      principal: editor,
      method: 'PATCH',
      params: { id },
      body: { to: '2026-05-02', expectedRevision: 1 },
    });
    expect(patched.body).toMatchObject({ to: '2026-05-02', revision: 2 });

    const deleted = await call(deleteRoute, `/v1/days-off/holidays/${id}`, {
      principal: editor,
      method: 'DELETE',
      params: { id },
    });
    expect(deleted.body).toMatchObject({ id, deleted: true, wasApplied: false });
    const gone = await call(deleteRoute, `/v1/days-off/holidays/${id}`, {
      principal: editor,
      method: 'DELETE',
      params: { id },
    });
    expect(gone.status).toBe(404);
    const notUuid = await call(patchRoute, `/v1/days-off/holidays/nope`, {
      principal: editor,
      method: 'PATCH',
      params: { id: 'nope' },
      body: { name: 'x' },
    });
    expect(notUuid.status).toBe(404);
  });

  test('a holiday’s rescheduling type through the API: the JSON carries it, inconsistent input names the field', async () => {
    const inconsistent = await call(addRoute, '/v1/days-off/holidays', {
      principal: editor,
      method: 'POST',
      body: {
        name: 'Ascension',
        from: '2026-05-14',
        to: '2026-05-14',
        reschedulingType: 'NEXT_REPAYMENT_DATE',
        repaymentsRescheduledTo: '2026-05-15',
      },
      language: 'fr',
    });
    expect(inconsistent.status).toBe(400);
    expect(inconsistent.body.error).toMatchObject({
      field: 'repaymentsRescheduledTo',
      message:
        'La date de report des échéances doit rester vide sauf si les échéances sont reportées à une date donnée.',
    });
    const unknown = await call(addRoute, '/v1/days-off/holidays', {
      principal: editor,
      method: 'POST',
      body: { name: 'Ascension', from: '2026-05-14', to: '2026-05-14', reschedulingType: 1 },
    });
    expect(unknown.status).toBe(400);
    const added = await call(addRoute, '/v1/days-off/holidays', {
      principal: editor,
      method: 'POST',
      body: { name: 'Ascension', from: '2026-05-14', to: '2026-05-14', reschedulingType: 'NEXT_REPAYMENT_DATE' },
    });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ reschedulingType: 'NEXT_REPAYMENT_DATE', repaymentsRescheduledTo: null });
    const id = added.body.id as string;
    const patched = await call(patchRoute, `/v1/days-off/holidays/${id}`, {
      principal: editor,
      method: 'PATCH',
      params: { id },
      body: { reschedulingType: 'SPECIFIED_DATE', repaymentsRescheduledTo: '2026-05-15' },
    });
    expect(patched).toMatchObject({
      status: 200,
      body: { reschedulingType: 'SPECIFIED_DATE', repaymentsRescheduledTo: '2026-05-15', revision: 2 },
    });
    const overview = await call(overviewRoute, '/v1/days-off', { principal: viewer, method: 'GET' });
    expect(overview.body.holidays).toEqual([
      expect.objectContaining({ id, reschedulingType: 'SPECIFIED_DATE', repaymentsRescheduledTo: '2026-05-15' }),
    ]);
    expect(
      (await call(deleteRoute, `/v1/days-off/holidays/${id}`, { principal: editor, method: 'DELETE', params: { id } }))
        .status,
    ).toBe(200);
  });

  test('import: dry run, refusal naming the line, import; apply: preview then move', async () => {
    const csv = 'name,from,to\nEaster Monday,2026-04-20,2026-04-20\n';
    const preview = await call(importRoute, '/v1/days-off/import', {
      principal: editor,
      method: 'POST',
      body: { format: 'csv', content: csv, dryRun: true },
    });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ dryRun: true, toAdd: 1, added: 0, rows: [{ line: 2, status: 'new' }] });
    const refused = await call(importRoute, '/v1/days-off/import', {
      principal: editor,
      method: 'POST',
      body: { format: 'csv', content: `${csv}Oops,2026-04-31,2026-04-31\n` },
    });
    expect(refused.status).toBe(400);
    expect((refused.body.error as { message: string }).message).toMatch(/^Line 3: /);
    const tooLarge = await call(importRoute, '/v1/days-off/import', {
      principal: editor,
      method: 'POST',
      body: { format: 'ics', content: 'x'.repeat(200_001) },
    });
    expect(tooLarge.status).toBe(400);
    const imported = await call(importRoute, '/v1/days-off/import', {
      principal: editor,
      method: 'POST',
      body: { format: 'csv', content: csv },
    });
    expect(imported).toMatchObject({ status: 201, body: { added: 1 } });

    // A loan disbursed before the holiday existed: 20 Apr 2026 is its third due date.
    const { loanId } = await f.disbursedLoan({ principal: '600.00', numberOfRepayments: 6 });
    await db.owner((tx) =>
      tx.query(`update loan_installments set due_date = '2026-04-20' where loan_id = $1 and number = 3`, [loanId]),
    );
    const dry = await call(applyRoute, '/v1/days-off/apply', {
      principal: editor,
      method: 'POST',
      body: { dryRun: true },
    });
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({
      dryRun: true,
      loansAffected: 1,
      moves: [
        { loanId, installment: 3, oldDueDate: '2026-04-20', newDueDate: '2026-04-17', totalDue: expect.any(String) },
      ],
    });
    const viewerApply = await call(applyRoute, '/v1/days-off/apply', {
      principal: viewer,
      method: 'POST',
      body: { dryRun: true },
    });
    expect(viewerApply.status).toBe(403);
    const staleApply = await call(applyRoute, '/v1/days-off/apply', {
      principal: editor,
      method: 'POST',
      body: { dryRun: false, fingerprint: 'not-the-preview' },
    });
    expect(staleApply.status).toBe(409);
    const applied = await call(applyRoute, '/v1/days-off/apply', {
      principal: editor,
      method: 'POST',
      body: { dryRun: false, fingerprint: dry.body.fingerprint },
    });
    expect(applied.body).toMatchObject({ dryRun: false, installmentsMoved: 1 });
    const again = await call(applyRoute, '/v1/days-off/apply', {
      principal: editor,
      method: 'POST',
      body: { dryRun: false },
    });
    expect(again.body).toMatchObject({ installmentsMoved: 0, moves: [] });
    const overview = await call(overviewRoute, '/v1/days-off', { principal: viewer, method: 'GET' });
    expect(overview.body.holidays).toEqual([expect.objectContaining({ name: 'Easter Monday', status: 'applied' })]);
  });
});
