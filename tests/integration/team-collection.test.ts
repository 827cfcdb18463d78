import { createTask } from '#lib/tasks/create.ts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db, Tx } from '#lib/db/index.ts';
import { AppError } from '#lib/errors/app-error.ts';
import type { Actor } from '#lib/lending/actor.ts';
import { createCustomer } from '#lib/lending/customers.ts';
import { runDailyClose, type CloseStats } from '#lib/close/daily-close.ts';
import { refreshCollectionCases } from '#lib/collection/cases.ts';
import { listWorklist, loadCollectionView } from '#lib/collection/worklist.ts';
import {
  assignCollectorCommand,
  logContactCommand,
  recordPromiseCommand,
  sendCollectionMessageCommand,
  takeCaseCommand,
} from '#lib/collection/commands.ts';
import { loanTimeline, customerTimeline } from '#lib/timeline/index.ts';
import type { Command } from '#lib/http/command.ts';
import { createLendingFixture, setBusinessDate, type LendingFixture } from '../support/lending-fixtures.ts';

/**
 * Issue 14, collection: the cases rebuilt from the engine's delinquency (buckets, edited buckets,
 * priority weights), the promise rules, one open promise per loan, the scope of the actions, and the
 * opt-out rule of messages sent from the collection view.
 */

const TODAY = '2026-01-15';

async function status(run: Promise<unknown>): Promise<{ status: number; field?: string; message?: string }> {
  try {
    await run;
    return { status: 200 };
  } catch (error) {
    if (error instanceof AppError) return { status: error.status, field: error.field, message: error.message };
    throw error;
  }
}

describe.each(testDbKinds())('collection worklist and actions on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  const ids = { branchA: '', branchB: '', collector: '', other: '', customerA: '', customerB: '' };
  const loans = { late100: '', late45: '', late14: '', otherBranch: '', current: '' };
  let collector: Actor;
  let collectorA: Actor;
  let closeStats: CloseStats;

  const run = <I, O>(command: Command<I, O>, actor: Actor, input: unknown) =>
    db.tenant(f.tenantId, (tx) => command.run(tx, actor, command.input.parse(input), { language: 'en' }));
  const cases = () =>
    db.tenant(f.tenantId, (tx) =>
      tx.query<{
        loan_id: string;
        past_due_days: number;
        bucket: string | null;
        priority: string;
        overdue_amount: bigint;
      }>(
        `select c.loan_id, c.past_due_days, b.name as bucket, c.priority::text as priority, c.overdue_amount
           from collection_cases c left join collection_buckets b on b.id = c.bucket_id`,
      ),
    );
  const refresh = () => db.tenant(f.tenantId, (tx: Tx) => refreshCollectionCases(tx, f.tenantId, TODAY));

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db, { businessDate: '2025-09-01', currency: 'EUR' });
    await db.tenant(f.tenantId, async (tx) => {
      const [a] = await tx.query<{ id: string }>(
        `insert into hierarchy_nodes (tenant_id, level, code, name) values ($1, 'branch', 'BR-A', 'A') returning id`,
        [f.tenantId],
      );
      const [b] = await tx.query<{ id: string }>(
        `insert into hierarchy_nodes (tenant_id, level, code, name) values ($1, 'branch', 'BR-B', 'B') returning id`,
        [f.tenantId],
      );
      ids.branchA = a.id;
      ids.branchB = b.id;
      ids.customerA = (
        await createCustomer(tx, f.maker, {
          firstName: 'Anna',
          lastName: 'Alpha',
          branchId: a.id,
          email: 'anna@example.test',
          phone: '+33600000001',
        })
      ).id;
      ids.customerB = (await createCustomer(tx, f.maker, { firstName: 'Bruno', lastName: 'Beta', branchId: b.id })).id;
      const [role] = await tx.query<{ id: string }>(
        `insert into roles (tenant_id, name, authorities) values ($1, 'Collector', array['loans.collection.view']) returning id`,
        [f.tenantId],
      );
      for (const key of ['collector', 'other'] as const) {
        const [u] = await tx.query<{ id: string }>(
          `insert into users (tenant_id, email, display_name) values ($1, $2, $3) returning id`,
          [f.tenantId, `${key}@example.test`, `User ${key}`],
        );
        ids[key] = u.id;
        await tx.query('insert into user_roles (tenant_id, user_id, role_id) values ($1, $2, $3)', [
          f.tenantId,
          u.id,
          role.id,
        ]);
      }
    });
    collector = { tenantId: f.tenantId, userId: ids.collector, isAdmin: false, dataPermissions: [] };
    collectorA = { ...collector, dataPermissions: [{ field: 'branch', value: 'BR-A' }] };
    // Loans disbursed on different days, none repaid: on TODAY they are about 100, 45 and 14 days late.
    for (const [key, date, customerId] of [
      ['late100', '2025-09-01', ids.customerA],
      ['otherBranch', '2025-09-01', ids.customerB],
      ['late45', '2025-11-01', ids.customerA],
      ['late14', '2025-12-01', ids.customerA],
      ['current', '2026-01-10', ids.customerA],
    ] as const) {
      await setBusinessDate(db, f.tenantId, date);
      loans[key] = (await f.disbursedLoan({ customerId, principal: key === 'late45' ? '3000.00' : '1200.00' })).loanId;
    }
    await setBusinessDate(db, f.tenantId, '2026-01-14');
    closeStats = (await runDailyClose(db, f.tenantId, { originate: false })).stats;
  }, 120_000);
  afterAll(async () => drop());

  test('cases follow the engine’s days past due and the tenant’s buckets, also after the buckets change', async () => {
    const first = await refresh();
    const delinquency = await db.tenant(f.tenantId, (tx) =>
      tx.query<{ loan_id: string; past_due_days: number; delinquent_amount: bigint }>(
        'select loan_id, past_due_days, delinquent_amount from loan_delinquency where past_due_days > 0',
      ),
    );
    expect(delinquency.length).toBe(4);
    // The close refreshed the cases (one move into a first bucket each); refreshing again changes nothing.
    expect(closeStats).toMatchObject({ collectionCases: 4, bucketMoves: 4 });
    expect(first).toEqual({ cases: 4, moves: 0 });
    const bucketOf = (days: number, ranges: [string, number, number | null][]) =>
      ranges.find(([, min, max]) => days >= min && (max === null || days <= max))?.[0] ?? null;
    const defaults: [string, number, number | null][] = [
      ['1–30', 1, 30],
      ['31–60', 31, 60],
      ['61–90', 61, 90],
      ['90+', 91, null],
    ];
    let rows = await cases();
    for (const d of delinquency) {
      const row = rows.find((r) => r.loan_id === d.loan_id)!;
      expect(row.past_due_days).toBe(d.past_due_days);
      expect(BigInt(row.overdue_amount)).toBe(BigInt(d.delinquent_amount));
      expect(row.bucket).toBe(bucketOf(d.past_due_days, defaults));
    }
    expect(rows.find((r) => r.loan_id === loans.late45)!.bucket).toBe('31–60');
    expect(rows.find((r) => r.loan_id === loans.late14)!.bucket).toBe('1–30');
    expect(rows.find((r) => r.loan_id === loans.current)).toBeUndefined();

    // Edited buckets: 1–10 and 11–60; the 14-day loan moves, with a bucket_move activity.
    await db.tenant(f.tenantId, async (tx) => {
      await tx.query(`update collection_buckets set max_days = 10, name = '1–10' where position = 1`);
      await tx.query(`update collection_buckets set min_days = 11, name = '11–60' where position = 2`);
    });
    const second = await refresh();
    expect(second).toEqual({ cases: 4, moves: 1 });
    rows = await cases();
    const edited: [string, number, number | null][] = [['1–10', 1, 10], ['11–60', 11, 60], ...defaults.slice(2)];
    for (const d of delinquency)
      expect(rows.find((r) => r.loan_id === d.loan_id)!.bucket).toBe(bucketOf(d.past_due_days, edited));
    const moves = await db.tenant(f.tenantId, (tx) =>
      tx.query<{ details: { fromName: string; toName: string } }>(
        `select details from collection_activities where loan_id = $1 and kind = 'bucket_move' order by created_at`,
        [loans.late14],
      ),
    );
    expect(moves.map((m) => [m.details.fromName, m.details.toName])).toEqual([
      [null, '1–30'],
      ['1–10', '11–60'], // the bucket's name when it moved (the first bucket was renamed)
    ]);
    // Unchanged buckets keep their entry date and the episode.
    const third = await refresh();
    expect(third.moves).toBe(0);
  });

  test('priority follows the weights', async () => {
    const order = async () =>
      (
        await db.tenant(f.tenantId, (tx) =>
          listWorklist(
            tx,
            { isAdmin: true, dataPermissions: [], userId: ids.collector },
            {
              bucket: null,
              collector: 'anyone',
              search: '',
              page: 1,
            },
          ),
        )
      ).rows;
    // Days only.
    await db.tenant(f.tenantId, (tx) =>
      tx.query('update collection_priority set weight_amount = 0, weight_days = 1, weight_broken_promises = 0'),
    );
    await refresh();
    const byDays = await order();
    expect(byDays.map((r) => r.pastDueDays)).toEqual([...byDays.map((r) => r.pastDueDays)].sort((a, b) => b - a));
    expect(byDays[byDays.length - 1].loanId).toBe(loans.late14);
    // Amount only: the 3000 loan's overdue installments are the largest.
    await db.tenant(f.tenantId, (tx) =>
      tx.query('update collection_priority set weight_amount = 1, weight_days = 0, weight_broken_promises = 0'),
    );
    await refresh();
    const byAmount = await order();
    const amounts = byAmount.map((r) => r.overdueAmount);
    expect(amounts).toEqual([...amounts].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)));
    const rows = await cases();
    for (const r of rows) expect(Number(r.priority)).toBeCloseTo(Number(r.overdue_amount) / 100, 4);
    // Broken promises weigh: a broken promise on the 14-day loan puts it first.
    await db.tenant(f.tenantId, async (tx) => {
      await tx.query(
        'update collection_priority set weight_amount = 0, weight_days = 1, weight_broken_promises = 1000',
      );
      await tx.query('update collection_cases set broken_promises = 1 where loan_id = $1', [loans.late14]);
    });
    await refresh();
    expect((await order())[0].loanId).toBe(loans.late14);
  });

  test('a promise is refused with 422 naming the field: past date, zero, negative, too large, too far', async () => {
    const promise = (date: string, amount: string) =>
      status(run(recordPromiseCommand, collector, { loanId: loans.late45, date, amount }));
    expect(await promise('2026-01-14', '10.00')).toMatchObject({ status: 422, field: 'date' });
    expect(await promise('2026-04-20', '10.00')).toMatchObject({ status: 422, field: 'date' });
    expect(await promise('2026-01-16', '0')).toMatchObject({ status: 422, field: 'amount' });
    expect(await promise('2026-01-16', '-5.00')).toMatchObject({ status: 422, field: 'amount' });
    expect(await promise('2026-01-16', '999999.00')).toMatchObject({ status: 422, field: 'amount' });
    expect(await promise('2026-01-16', '')).toMatchObject({ status: 422, field: 'amount' });
    expect(await promise('2026-01-16', '10.00')).toEqual({ status: 200 });
  });

  test('one open promise per loan: a new promise cancels the previous one; the case points at the new one', async () => {
    const first = await run(logContactCommand, collector, {
      loanId: loans.late45,
      channel: 'phone',
      outcome: 'promised',
      note: 'Will pay Friday',
      promiseDate: '2026-01-20',
      promiseAmount: '50.00',
    });
    const second = await run(recordPromiseCommand, collector, {
      loanId: loans.late45,
      date: '2026-01-22',
      amount: '60',
    });
    const promises = await db.tenant(f.tenantId, (tx) =>
      tx.query<{ id: string; promise_status: string; promise_amount: bigint }>(
        `select id, promise_status, promise_amount from collection_activities where loan_id = $1 and kind = 'promise'`,
        [loans.late45],
      ),
    );
    expect(promises.filter((p) => p.promise_status === 'open').map((p) => p.id)).toEqual([second.promiseId]);
    expect(promises.find((p) => p.id === first.promiseId)!.promise_status).toBe('cancelled');
    const view = await db.tenant(f.tenantId, (tx) => loadCollectionView(tx, { ...collector }, loans.late45));
    expect(view.case!.promise).toEqual({ id: second.promiseId, date: '2026-01-22', amount: 6000n });
    expect(view.case!.lastContactAt).not.toBeNull();
    const timeline = await db.tenant(f.tenantId, (tx) => loanTimeline(tx, loans.late45));
    const kinds = timeline.filter((e) => e.source === 'activity').map((e) => `${e.kind}:${e.status ?? ''}`);
    expect(kinds).toContain('promise:open');
    expect(kinds).toContain('promise:cancelled');
    expect(kinds).toContain('contact:');
    expect(timeline.some((e) => e.source === 'transaction' && e.kind === 'DISBURSEMENT')).toBe(true);
  });

  test('a one-branch collector cannot see or act on another branch’s loan (404)', async () => {
    expect(
      (
        await status(
          run(logContactCommand, collectorA, { loanId: loans.otherBranch, channel: 'phone', outcome: 'reached' }),
        )
      ).status,
    ).toBe(404);
    expect(
      (
        await status(
          run(recordPromiseCommand, collectorA, { loanId: loans.otherBranch, date: '2026-01-16', amount: '1' }),
        )
      ).status,
    ).toBe(404);
    expect((await status(run(takeCaseCommand, collectorA, { loanId: loans.otherBranch }))).status).toBe(404);
    expect(
      (await status(db.tenant(f.tenantId, (tx) => loadCollectionView(tx, { ...collectorA }, loans.otherBranch))))
        .status,
    ).toBe(404);
    expect((await status(run(takeCaseCommand, collectorA, { loanId: loans.late45 }))).status).toBe(200);
    const worklist = await db.tenant(f.tenantId, (tx) =>
      listWorklist(
        tx,
        { ...collectorA, userId: ids.collector, dataPermissions: collectorA.dataPermissions! },
        {
          bucket: null,
          collector: 'anyone',
          search: '',
          page: 1,
        },
      ),
    );
    expect(worklist.rows.map((r) => r.loanId)).not.toContain(loans.otherBranch);
    expect(worklist.rows.length).toBe(3);
    const mine = await db.tenant(f.tenantId, (tx) =>
      listWorklist(
        tx,
        { ...collectorA, userId: ids.collector, dataPermissions: collectorA.dataPermissions! },
        {
          bucket: null,
          collector: 'mine',
          search: '',
          page: 1,
        },
      ),
    );
    expect(mine.rows.map((r) => r.loanId)).toEqual([loans.late45]);
    // Assigning to a user who does not work collection is refused; to a collector it is recorded.
    const admin: Actor = { ...collector, isAdmin: true };
    expect(
      await status(run(assignCollectorCommand, admin, { loanId: loans.late45, collectorId: f.customerId })),
    ).toMatchObject({
      status: 422,
      field: 'collectorId',
    });
    await run(assignCollectorCommand, admin, { loanId: loans.late45, collectorId: ids.other });
    const view = await db.tenant(f.tenantId, (tx) => loadCollectionView(tx, admin, loans.late45));
    expect(view.case!.collectorName).toBe('User other');
  });

  test('messages: marketing to an opted-out customer is refused with the reason; a service template about the loan is queued', async () => {
    const [marketing, service] = await db.tenant(f.tenantId, async (tx) => {
      await tx.query(`update customers set opt_in_status = 'opted_out' where id = $1`, [ids.customerA]);
      return tx.query<{ id: string }>(
        `insert into message_templates (tenant_id, code, name, channel, purpose, subject_en, body_en, subject_fr, body_fr) values
           ($1, 'promo', 'Promo', 'email', 'marketing', 'Offer', 'Hello {{firstName}}', 'Offre', 'Bonjour {{firstName}}'),
           ($1, 'overdue', 'Overdue', 'email', 'service', 'Your loan {{loanNumber}}', 'Dear {{firstName}}, {{daysPastDue}} days late.', 'Votre prêt', 'Bonjour')
         returning id`,
        [f.tenantId],
      );
    });
    const refused = await status(
      run(sendCollectionMessageCommand, collector, { loanId: loans.late45, templateId: marketing.id }),
    );
    expect(refused).toMatchObject({ status: 422, field: 'templateId' });
    expect(refused.message).toMatch(/opted out/);
    const sent = await run(sendCollectionMessageCommand, collector, { loanId: loans.late45, templateId: service.id });
    const [message] = await db.tenant(f.tenantId, (tx) =>
      tx.query<{ status: string; body: string; loan_id: string }>(
        `select m.status, m.body, c.loan_id from conversation_messages m join conversations c on c.id = m.conversation_id where m.id = $1`,
        [sent.messageId],
      ),
    );
    expect(message).toMatchObject({ status: 'queued', loan_id: loans.late45 });
    expect(message.body).toContain('Anna');
    const timeline = await db.tenant(f.tenantId, (tx) => customerTimeline(tx, ids.customerA));
    const entry = timeline.find((e) => e.source === 'activity' && e.kind === 'message');
    expect(entry).toMatchObject({
      status: 'queued',
      linkId: sent.conversationId,
      title: expect.stringContaining('Your loan'),
    });
  });
  test('a customer who moves branch takes their cases, tasks and conversations along (scope copies follow)', async () => {
    await db.tenant(f.tenantId, async (tx) => {
      await createTask(tx, f.tenantId, {
        title: 'Follow',
        customerId: ids.customerB,
        source: 'manual',
        createdBy: 'x',
      });
      await tx.query(
        `insert into conversations (tenant_id, customer_id, customer_branch_id, subject, channel, created_by)
         values ($1, $2, $3, 'Moving', 'email', 'x')`,
        [f.tenantId, ids.customerB, ids.branchB],
      );
      await tx.query('update customers set branch_id = $2 where id = $1', [ids.customerB, ids.branchA]);
    });
    const copies = await db.tenant(f.tenantId, (tx) =>
      tx.query<{ branch: string }>(
        `select customer_branch_id::text as branch from collection_cases where customer_id = $1
         union all select customer_branch_id::text from tasks where customer_id = $1
         union all select customer_branch_id::text from conversations where customer_id = $1`,
        [ids.customerB],
      ),
    );
    expect(copies.length).toBeGreaterThanOrEqual(3);
    expect(new Set(copies.map((c) => c.branch))).toEqual(new Set([ids.branchA]));
    await db.tenant(f.tenantId, (tx) =>
      tx.query('update customers set branch_id = $2 where id = $1', [ids.customerB, ids.branchB]),
    );
  });
});
