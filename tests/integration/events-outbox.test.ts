import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db, Tx } from '#lib/db/index.ts';
import { repayLoan } from '#lib/lending/commands/repay-loan.ts';
import { readCommittedEvents, type EventCursor } from '#lib/events/outbox.ts';
import { recordAudit } from '#lib/audit/record-audit.ts';
import { createLendingFixture, setBusinessDate, type LendingFixture } from '../support/lending-fixtures.ts';
import { awaitOutbox } from '../support/outbox.ts';

describe.each(testDbKinds())('domain events (outbox) on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db, { businessDate: '2026-01-15' });
  });
  afterAll(async () => drop());
  const t = <T>(fn: (tx: Tx) => Promise<T>) => db.tenant(f.tenantId, fn);

  test('a change writes its event in its own transaction; a rolled-back change writes none', async () => {
    const { loanId } = await f.disbursedLoan({ principal: '1200.00', numberOfRepayments: 12 });
    await setBusinessDate(db, f.tenantId, '2026-02-15');
    await awaitOutbox(db); // a long transaction elsewhere on the server holds events back
    const before = await t((tx) => readCommittedEvents(tx, null, 1000));
    expect(before.map((e) => e.type)).toEqual(
      expect.arrayContaining(['application.record.submitted', 'application.record.approved', 'loan.record.disbursed']),
    );
    const last = before.at(-1)!.cursor;
    await t((tx) => repayLoan(tx, f.checker, { loanId, amount: '20.00' }));
    await expect(
      t(async (tx) => {
        await repayLoan(tx, f.checker, { loanId, amount: '30.00' });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await awaitOutbox(db);
    const after = await t((tx) => readCommittedEvents(tx, last, 1000));
    expect(after.map((e) => e.type)).toEqual(['loan.repayment.created']);
    expect(after[0]).toMatchObject({ objectType: 'loan', objectId: loanId, actorId: f.checker.userId });
    expect(after[0].data).toMatchObject({ object: 'loan', id: loanId, action: 'loan.repay' });
    // Refusals and objects that are not published entities write no event.
    await t((tx) =>
      recordAudit(tx, {
        tenantId: f.tenantId,
        actorId: 'x',
        action: 'loan.repay',
        objectType: 'loan',
        outcome: 'denied',
      }),
    );
    await t((tx) =>
      recordAudit(tx, {
        tenantId: f.tenantId,
        actorId: 'x',
        action: 'role.create',
        objectType: 'role',
        outcome: 'success',
      }),
    );
    expect(await t((tx) => readCommittedEvents(tx, after[0].cursor, 10))).toEqual([]);
  });

  test('a cursor never skips an event whose transaction commits after a later one', async () => {
    if (kind !== 'postgres') return; // needs two connections
    const start = (await t((tx) => readCommittedEvents(tx, null, 100000))).at(-1)?.cursor ?? null;
    const audit = (tx: Tx, id: string) =>
      recordAudit(tx, {
        tenantId: f.tenantId,
        actorId: 'x',
        action: 'task.create',
        objectType: 'task',
        objectId: id,
        outcome: 'success',
      });
    let releaseSlow!: () => void;
    const slowGate = new Promise<void>((r) => (releaseSlow = r));
    let slowWrote!: () => void;
    const slowHasWritten = new Promise<void>((r) => (slowWrote = r));
    // The slow transaction takes its xid first, writes, then waits; the fast one writes and commits.
    const slow = t(async (tx) => {
      await audit(tx, 'slow');
      slowWrote();
      await slowGate;
    });
    await slowHasWritten;
    await t((tx) => audit(tx, 'fast'));
    const seen: string[] = [];
    let cursor: EventCursor | null = start;
    const drain = async () => {
      const events = await t((tx) => readCommittedEvents(tx, cursor, 100));
      for (const e of events) seen.push(e.objectId!);
      if (events.length) cursor = events.at(-1)!.cursor;
    };
    await drain();
    expect(seen).toEqual([]); // the fast event waits behind the running slow transaction
    releaseSlow();
    await slow;
    await drain();
    expect(seen).toEqual(['slow', 'fast']);
  });
});
