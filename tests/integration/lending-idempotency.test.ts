import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import { setDb, type Db } from '#lib/db/index.ts';
import type { Principal } from '#lib/auth/principal.ts';
import { POST as repay } from '../../src/pages/v1/loans/[id]/repayments.ts';
import { GET as getLoan } from '../../src/pages/v1/loans/[id]/index.ts';
import { GET as listLoansRoute } from '../../src/pages/v1/loans/index.ts';
import { auditRefusal, moneyCommand } from '#lib/lending/api.ts';
import { decideAccess } from '#lib/auth/guard.ts';
import { repayLoan } from '#lib/lending/commands/repay-loan.ts';
import { loanAnswer } from '#lib/lending/api.ts';
import { checkLedger } from '#lib/lending/ledger/check-ledger.ts';
import { listAudit } from '#lib/audit/record-audit.ts';
import { z } from 'zod';
import { AppError } from '#lib/errors/app-error.ts';
import { actorFromPrincipal } from '#lib/lending/actor.ts';
import { createLendingFixture, type LendingFixture } from '../support/lending-fixtures.ts';

const principalOf = (
  f: LendingFixture,
  userId: string,
  authorities: string[] = ['loans.loans.repay', 'loans.loans.view'],
): Principal => ({
  tenantId: f.tenantId,
  userId,
  displayName: userId,
  email: `${userId}@example.test`,
  isAdmin: false,
  authorities,
  dataPermissions: [],
  language: 'en',
  via: 'session',
  sessionId: null,
  passwordChangeRequired: false,
  sessionTimeout: 3600,
  idleTimeout: 3600,
});

type Call = { status: number; text: string; replayed: string | null };

async function call(
  handler: (context: never) => Response | Promise<Response>,
  url: string,
  init: { principal: Principal; params: Record<string, string>; body?: unknown; key?: string; method?: string },
): Promise<Call> {
  const headers = new Headers({ 'content-type': 'application/json' });
  if (init.key) headers.set('Idempotency-Key', init.key);
  const request = new Request(`http://localhost${url}`, {
    method: init.method ?? 'POST',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const response = await handler({
    request,
    params: init.params,
    locals: { principal: init.principal, requestId: 'test' },
    clientAddress: '127.0.0.1',
  } as never);
  return {
    status: response.status,
    text: await response.text(),
    replayed: response.headers.get('Idempotent-Replayed'),
  };
}

describe.each(testDbKinds())('idempotent money commands on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  let officer: Principal;
  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    setDb(db);
    f = await createLendingFixture(db, { businessDate: '2026-03-10', product: { allowOverpayment: true } });
    officer = principalOf(f, f.checker.userId);
  });
  afterAll(async () => {
    // A test runs the ledger check: debits = credits and loans = ledger after everything here.
    expect((await checkLedger(db)).differences).toEqual([]);
    await drop();
  });

  const repayments = (loanId: string) =>
    db.tenant(f.tenantId, (tx) =>
      tx.query<{ id: string; amount: bigint }>(
        `select id, amount from loan_transactions where loan_id = $1 and type = 'REPAYMENT'`,
        [loanId],
      ),
    );

  test('200 concurrent identical repayments with one key: one transaction, one balanced entry, identical answers', async () => {
    const { loanId } = await f.disbursedLoan({ principal: '1200.00', numberOfRepayments: 12 });
    const url = `/v1/loans/${loanId}/repayments`;
    const calls = await Promise.all(
      Array.from({ length: 200 }, () =>
        call(repay, url, { principal: officer, params: { id: loanId }, key: 'pay-once', body: { amount: '10.00' } }),
      ),
    );
    expect(calls.map((c) => c.status)).toEqual(Array(200).fill(201));
    expect(new Set(calls.map((c) => c.text)).size).toBe(1);
    expect(calls.filter((c) => c.replayed === null)).toHaveLength(1);
    expect(calls.filter((c) => c.replayed === 'true')).toHaveLength(199);
    const body = JSON.parse(calls[0].text);
    expect(body.transaction).toMatchObject({ type: 'REPAYMENT', amount: '10.00', date: '2026-03-10' });
    expect(body.loan).toMatchObject({ id: loanId, status: 'ACTIVE' });
    const rows = await repayments(loanId);
    expect(rows).toHaveLength(1);
    const entries = await db.tenant(f.tenantId, (tx) =>
      tx.query<{ debits: string; credits: string }>(
        `select sum(l.debit)::text as debits, sum(l.credit)::text as credits from journal_entries e join journal_lines l on l.entry_id = e.id
          where e.transaction_id = $1 group by e.id`,
        [rows[0].id],
      ),
    );
    expect(entries).toEqual([{ debits: '1000', credits: '1000' }]);
  });

  test('same key with another body → 422; missing key → 400; bad amount → 400 naming the field', async () => {
    const { loanId } = await f.disbursedLoan();
    const url = `/v1/loans/${loanId}/repayments`;
    const first = await call(repay, url, {
      principal: officer,
      params: { id: loanId },
      key: 'k-1',
      body: { amount: '5.00' },
    });
    expect(first.status).toBe(201);
    const other = await call(repay, url, {
      principal: officer,
      params: { id: loanId },
      key: 'k-1',
      body: { amount: '6.00' },
    });
    expect(other.status).toBe(422);
    expect(JSON.parse(other.text).error).toMatchObject({ code: 'UNPROCESSABLE', field: 'Idempotency-Key' });
    // Key order and whitespace do not make another request.
    const same = await call(repay, url, {
      principal: officer,
      params: { id: loanId },
      key: 'k-1',
      body: { amount: '5.00' },
    });
    expect(same).toMatchObject({ status: 201, text: first.text, replayed: 'true' });
    const missing = await call(repay, url, { principal: officer, params: { id: loanId }, body: { amount: '5.00' } });
    expect(missing.status).toBe(400);
    expect(JSON.parse(missing.text).error).toMatchObject({ field: 'Idempotency-Key' });
    const bad = await call(repay, url, {
      principal: officer,
      params: { id: loanId },
      key: 'k-2',
      body: { amount: '5.001' },
    });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text).error.field).toBe('amount');
    // Keys are scoped to the user: another user's same key is a new request.
    const colleague = principalOf(f, f.admin.userId);
    const theirs = await call(repay, url, {
      principal: colleague,
      params: { id: loanId },
      key: 'k-1',
      body: { amount: '6.00' },
    });
    expect(theirs).toMatchObject({ status: 201, replayed: null });
    expect((await repayments(loanId)).map((r) => r.amount).sort()).toEqual([500n, 600n]);
  });

  test('a duplicate while the first is still running → 409, then the replay once it finishes', async () => {
    const { loanId } = await f.disbursedLoan();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let claimed!: () => void;
    const isClaimed = new Promise<void>((resolve) => (claimed = resolve));
    const command = (hold: boolean) =>
      moneyCommand(
        {
          request: new Request(`http://localhost/v1/loans/${loanId}/repayments`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'idempotency-key': 'slow' },
            body: JSON.stringify({ amount: '3.00' }),
          }),
          principal: officer,
          requestId: 't',
          ip: '127.0.0.1',
          db,
          idempotency: hold
            ? {
                beforeCommand: async () => {
                  claimed();
                  await gate;
                },
              }
            : { inFlightWaitMs: 50 },
        },
        {
          action: 'loan.repay',
          objectType: 'loan',
          objectId: loanId,
          schema: z.object({ amount: z.string() }),
          run: async (tx, actor, body) => {
            const { transaction } = await repayLoan(tx, actor, { loanId, amount: body.amount });
            return loanAnswer(tx, 201, transaction, loanId);
          },
        },
      );
    const first = command(true);
    await isClaimed;
    const duplicate = await command(false);
    expect(duplicate.status).toBe(409);
    expect((await duplicate.json()).error).toMatchObject({ code: 'CONFLICT', field: 'Idempotency-Key' });
    release();
    const done = await first;
    expect(done.status).toBe(201);
    const again = await command(false);
    expect(again.status).toBe(201);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await again.text()).toBe(await done.text());
    expect(await repayments(loanId)).toHaveLength(1);
  });

  test('a claim left in flight by a crashed server (committed, no answer) is taken over: the retry applies once', async () => {
    const { loanId } = await f.disbursedLoan();
    const url = `/v1/loans/${loanId}/repayments`;
    const body = { amount: '4.00' };
    // What a server killed between claim and command used to leave: a committed in-flight key.
    const { requestFingerprint } = await import('#lib/lending/idempotency.ts');
    await db.owner((tx) =>
      tx.query(
        `insert into idempotency_keys (tenant_id, user_id, key, request_hash) values ($1, $2, 'crashed-1', $3)`,
        [f.tenantId, officer.userId, requestFingerprint('POST', url, body)],
      ),
    );
    const retries = await Promise.all(
      Array.from({ length: 20 }, () =>
        call(repay, url, { principal: officer, params: { id: loanId }, key: 'crashed-1', body }),
      ),
    );
    expect(retries.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(new Set(retries.map((r) => r.text)).size).toBe(1);
    expect((await repayments(loanId)).map((r) => r.amount)).toEqual([400n]);
  });

  test('a command that fails leaves no claim behind: the retry with the key runs it once', async () => {
    const { loanId } = await f.disbursedLoan();
    const { runIdempotent } = await import('#lib/lending/idempotency.ts');
    const scope = { tenantId: f.tenantId, userId: officer.userId };
    const actor = actorFromPrincipal(officer, { requestId: 't' });
    // The repayment is written, then the process "dies" before commit (an unexpected error).
    await expect(
      runIdempotent(db, scope, 'dies-1', 'fp', async (tx) => {
        await repayLoan(tx, actor, { loanId, amount: '2.00' });
        throw new Error('killed');
      }),
    ).rejects.toThrow('killed');
    expect(await repayments(loanId)).toEqual([]);
    expect(await db.owner((tx) => tx.query(`select 1 from idempotency_keys where key = 'dies-1'`))).toEqual([]);
    const retry = await runIdempotent(db, scope, 'dies-1', 'fp', async (tx) => {
      const { transaction } = await repayLoan(tx, actor, { loanId, amount: '2.00' });
      return loanAnswer(tx, 201, transaction, loanId);
    });
    expect(retry).toMatchObject({ status: 201, isReplayed: false });
    // A refusal is stored with the key and what the command wrote before refusing is undone.
    const refused = await runIdempotent(db, scope, 'refused-1', 'fp', async (tx) => {
      await repayLoan(tx, actor, { loanId, amount: '1.00' });
      throw new AppError('BAD_REQUEST', 'nope', { field: 'amount' });
    });
    expect(refused).toMatchObject({ status: 400, isReplayed: false });
    const again = await runIdempotent(db, scope, 'refused-1', 'fp', async () => {
      throw new Error('must not run');
    });
    expect(again).toMatchObject({ status: 400, isReplayed: true, body: refused.body });
    expect((await repayments(loanId)).map((r) => r.amount)).toEqual([200n]);
  });

  test.runIf(kind === 'postgres')(
    'a duplicate from another process waits on the key row: 409 while it runs, the replay once it commits',
    async () => {
      const { runIdempotent } = await import('#lib/lending/idempotency.ts');
      const scope = { tenantId: f.tenantId, userId: officer.userId };
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let inside!: () => void;
      const isInside = new Promise<void>((resolve) => (inside = resolve));
      // "Another server": a transaction holding the uncommitted claim, outside this process's bookkeeping.
      const other = db.tenant(f.tenantId, async (tx) => {
        const [{ id }] = await tx.query<{ id: string }>(
          `insert into idempotency_keys (tenant_id, user_id, key, request_hash) values ($1, $2, 'elsewhere', 'fp') returning id`,
          [f.tenantId, officer.userId],
        );
        inside();
        await gate;
        await tx.query(
          `update idempotency_keys set status = 'completed', response_status = 201, response_body = '{"done":true}' where id = $1`,
          [id],
        );
      });
      await isInside;
      const never = async (): Promise<never> => {
        throw new Error('must not run');
      };
      await expect(runIdempotent(db, scope, 'elsewhere', 'fp', never, { inFlightWaitMs: 200 })).rejects.toMatchObject({
        code: 'CONFLICT',
        field: 'Idempotency-Key',
      });
      const waiting = runIdempotent(db, scope, 'elsewhere', 'fp', never, { inFlightWaitMs: 10_000 });
      release();
      await other;
      expect(await waiting).toEqual({ status: 201, body: '{"done":true}', isReplayed: true });
    },
  );

  test('50 concurrent different repayments on one loan: outstanding = principal − accepted payments, never negative', async () => {
    const { loanId } = await f.disbursedLoan({ principal: '1000.00', numberOfRepayments: 10, annualInterestRate: '0' });
    const amounts = Array.from({ length: 50 }, (_, i) => 1000 + ((i * 7919) % 3000)); // 10.00 … 39.99, deterministic
    const calls = await Promise.all(
      amounts.map((cents, i) =>
        call(repay, `/v1/loans/${loanId}/repayments`, {
          principal: officer,
          params: { id: loanId },
          key: `many-${i}`,
          body: { amount: (cents / 100).toFixed(2) },
        }),
      ),
    );
    const accepted = calls.flatMap((c, i) => (c.status === 201 ? [BigInt(amounts[i])] : []));
    const refusedCalls = calls.filter((c) => c.status !== 201);
    for (const c of refusedCalls) expect(c.status).toBe(409); // the loan closed before them
    const total = accepted.reduce((s, a) => s + a, 0n);
    const view = JSON.parse(
      (await call(getLoan, `/v1/loans/${loanId}`, { principal: officer, params: { id: loanId }, method: 'GET' })).text,
    );
    const outstanding = BigInt(view.outstanding.principal.replace('.', ''));
    const credit = BigInt(view.creditBalance.replace('.', ''));
    expect(outstanding).toBeGreaterThanOrEqual(0n);
    expect(outstanding - credit).toBe(100000n - total);
    expect((await repayments(loanId)).length).toBe(accepted.length);
    for (const i of view.installments) expect(i.outstanding.total.startsWith('-')).toBe(false);
    if (total >= 100000n) expect(['CLOSED_OBLIGATIONS_MET', 'OVERPAID']).toContain(view.status);
  });

  test('property: a replayed command applies once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 12 }),
        fc.array(fc.integer({ min: 1, max: 3000 }), { minLength: 5, maxLength: 5 }),
        async (keys, amounts) => {
          const { loanId } = await f.disbursedLoan({ principal: '1000.00', numberOfRepayments: 4 });
          const tag = loanId.slice(0, 8);
          const calls = await Promise.all(
            keys.map((k) =>
              call(repay, `/v1/loans/${loanId}/repayments`, {
                principal: officer,
                params: { id: loanId },
                key: `${tag}-${k}`,
                body: { amount: (amounts[k] / 100).toFixed(2) },
              }),
            ),
          );
          expect(calls.every((c) => c.status === 201)).toBe(true);
          const distinct = [...new Set(keys)];
          const rows = await repayments(loanId);
          expect(rows.length).toBe(distinct.length);
          expect(rows.reduce((s, r) => s + r.amount, 0n)).toBe(distinct.reduce((s, k) => s + BigInt(amounts[k]), 0n));
          for (const k of distinct) {
            const answers = calls.filter((_, i) => keys[i] === k).map((c) => c.text);
            expect(new Set(answers).size).toBe(1);
          }
        },
      ),
      { numRuns: 12, seed: 20260310 },
    );
  });

  test('a caller without the permission is refused and the refusal is audited', async () => {
    const { loanId } = await f.disbursedLoan();
    const viewer = principalOf(f, 'viewer-1', ['loans.loans.view']);
    // The guard refuses before the endpoint runs, and names the refused command for the audit log
    // (src/server/middleware/guard.ts writes it with auditRefusal).
    const decision = decideAccess({
      method: 'POST',
      path: `/v1/loans/${loanId}/repayments`,
      search: '',
      principal: viewer,
    });
    expect(decision).toMatchObject({
      kind: 'api-error',
      status: 403,
      audit: { action: 'loan.repay', objectType: 'loan', objectId: loanId },
    });
    if (decision.kind !== 'api-error' || !decision.audit) throw new Error('no refusal to audit');
    await auditRefusal(db, viewer, { ip: '127.0.0.1', requestId: 'r-1' }, decision.audit);
    const audit = await db.tenant(f.tenantId, (tx) => listAudit(tx, 'loan', loanId));
    expect(audit.at(-1)).toMatchObject({
      action: 'loan.repay',
      outcome: 'denied',
      actor_id: 'viewer-1',
      ip: '127.0.0.1',
    });
  });

  test('GET /v1/loans?status=ACTIVE&limit=N lists loans with id and status', async () => {
    const page = JSON.parse(
      (await call(listLoansRoute, '/v1/loans?status=ACTIVE&limit=3', { principal: officer, params: {}, method: 'GET' }))
        .text,
    );
    expect(page.items).toHaveLength(3);
    for (const item of page.items) expect(item).toMatchObject({ id: expect.any(String), status: 'ACTIVE' });
    const next = JSON.parse(
      (
        await call(listLoansRoute, `/v1/loans?status=ACTIVE&limit=3&cursor=${page.nextCursor}`, {
          principal: officer,
          params: {},
          method: 'GET',
        })
      ).text,
    );
    expect(next.items.map((i: { id: string }) => i.id)).not.toContain(page.items[0].id);
    const bad = await call(listLoansRoute, '/v1/loans?status=NOPE', { principal: officer, params: {}, method: 'GET' });
    expect(bad.status).toBe(400);
  });

  test('hierarchy data permissions: a branch-scoped officer sees and repays only loans of their branch', async () => {
    const [{ id: branchId }] = await db.owner((tx) =>
      tx.query<{ id: string }>(
        `insert into hierarchy_nodes (tenant_id, level, code, name) values ($1, 'branch', 'B-NORTH', 'North') returning id`,
        [f.tenantId],
      ),
    );
    const inBranch = await f.disbursedLoan();
    const elsewhere = await f.disbursedLoan();
    // Move the first loan's customer into the branch (a fresh customer, so the other loan stays outside).
    const [{ id: branchCustomer }] = await db.owner((tx) =>
      tx.query<{ id: string }>(
        `insert into customers (tenant_id, first_name, last_name, branch_id) values ($1, 'Bo', 'North', $2) returning id`,
        [f.tenantId, branchId],
      ),
    );
    await db.owner((tx) =>
      tx.query(`update loans set customer_id = $2 where id = $1`, [inBranch.loanId, branchCustomer]),
    );
    const scoped = { ...principalOf(f, 'north-officer'), dataPermissions: [{ field: 'branch', value: 'B-NORTH' }] };
    const seen = await call(getLoan, `/v1/loans/${inBranch.loanId}`, {
      principal: scoped,
      params: { id: inBranch.loanId },
      method: 'GET',
    });
    expect(seen.status).toBe(200);
    const hidden = await call(getLoan, `/v1/loans/${elsewhere.loanId}`, {
      principal: scoped,
      params: { id: elsewhere.loanId },
      method: 'GET',
    });
    expect(hidden.status).toBe(404);
    const repaid = await call(repay, `/v1/loans/${elsewhere.loanId}/repayments`, {
      principal: scoped,
      params: { id: elsewhere.loanId },
      key: 'scoped-1',
      body: { amount: '1.00' },
    });
    expect(repaid.status).toBe(404);
    const list = JSON.parse(
      (await call(listLoansRoute, '/v1/loans?limit=500', { principal: scoped, params: {}, method: 'GET' })).text,
    );
    expect(list.items.map((i: { id: string }) => i.id)).toEqual([inBranch.loanId]);
    // A permission naming no existing node allows nothing (fail closed).
    const nowhere = { ...scoped, dataPermissions: [{ field: 'branch', value: 'NO-SUCH' }] };
    expect(
      JSON.parse((await call(listLoansRoute, '/v1/loans', { principal: nowhere, params: {}, method: 'GET' })).text)
        .items,
    ).toEqual([]);
  });
});
