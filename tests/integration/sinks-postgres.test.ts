import crypto from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Db, Tx } from '#lib/db/index.ts';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Actor } from '#lib/lending/actor.ts';
import { repayLoan } from '#lib/lending/commands/repay-loan.ts';
import { runDailyClose } from '#lib/close/daily-close.ts';
import { simulatePortfolio } from '#lib/simulator/simulate.ts';
import {
  createEventSinkCommand,
  pauseEventSinkCommand,
  replayEventSinkCommand,
  resumeEventSinkCommand,
} from '#lib/sinks/commands.ts';
import { runSink } from '#lib/sinks/run.ts';
import { getSinkRow, sinkFigures } from '#lib/sinks/store.ts';

// The target is a real second Postgres database on 127.0.0.1: the operator's opt-in for private targets.
process.env.ALLOW_PRIVATE_TARGETS = '1';
process.env.SESSION_SECRET ??= 'sinks-test-session-secret-0123456789abcdef';

const SERVER = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const TENANT = 'sink-pg';
const TODAY = '2026-03-15';

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: SERVER });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

type Figures = {
  customers: number;
  loans: number;
  disbursed: string;
  outstanding: string;
  principalOutstanding: string;
  transactions: number;
  transactionAmount: string;
  installments: number;
  penaltyDue: string;
  events: number;
};

/** The same figures, from the same SQL, on the product (`public`, RLS-bound) and on the target schema. */
const FIGURES = (s: string) => `
  select (select count(*)::int from ${s}.customers) as customers,
         (select count(*)::int from ${s}.loans) as loans,
         (select coalesce(sum(principal), 0)::text from ${s}.loans where disbursed_on is not null) as disbursed,
         (select coalesce(sum(outstanding), 0)::text from ${s}.loans) as outstanding,
         (select coalesce(sum(principal_outstanding), 0)::text from ${s}.loans) as "principalOutstanding",
         (select count(*)::int from ${s}.loan_transactions) as transactions,
         (select coalesce(sum(amount), 0)::text from ${s}.loan_transactions) as "transactionAmount",
         (select count(*)::int from ${s}.loan_installments) as installments,
         (select coalesce(sum(penalty_due), 0)::text from ${s}.loan_installments) as "penaltyDue"`;

/**
 * Acceptance: the Postgres sink through a simulated month into a second, real database: the target's
 * row counts and sums equal the product's and its events table holds exactly the product's events;
 * paused, more changes (repayments and a daily close whose penalties publish no event), replayed from
 * the middle: the target converges to the same figures, without duplicates.
 */
describe.each(testDbKinds())('Postgres event sink on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let sinkId: string;
  let actor: Actor;
  const targetDb = `sink_target_${crypto.randomBytes(5).toString('hex')}`;
  const targetUrl = new URL(SERVER);
  targetUrl.pathname = `/${targetDb}`;
  const target = new pg.Client({ connectionString: targetUrl.toString() });
  const t = <T>(fn: (tx: Tx) => Promise<T>) => db.tenant(TENANT, fn);

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    await db.owner((tx) =>
      tx.query(
        `insert into tenants (id, slug, name, currency, time_zone, business_date) values ($1, 'sinkpg', 'Sink PG', 'EUR', 'Europe/Paris', $2)`,
        [TENANT, TODAY],
      ),
    );
    await simulatePortfolio(db, { tenantId: TENANT, customers: 30, months: 1, seed: 'sinks', today: TODAY });
    const [user] = await t((tx) => tx.query<{ id: string }>(`select id::text as id from users order by email limit 1`));
    actor = { tenantId: TENANT, userId: user.id, isAdmin: true, kind: 'user' };
    await admin(`create database ${targetDb}`);
    await target.connect();
  }, 600_000);

  afterAll(async () => {
    await target.end().catch(() => {});
    await admin(`drop database if exists ${targetDb} with (force)`).catch(() => {});
    await drop?.();
  });

  /**
   * Runs the sink until nothing is waiting. On a shared Postgres server the commit-safe read
   * (`xid < pg_snapshot_xmin`) holds back events while any transaction of the server that started
   * before them is still open (other databases' too): the sink is then only behind, so run again.
   */
  const run = async () => {
    const total = { ran: false, delivered: 0, error: null as string | null };
    const deadline = Date.now() + 120_000;
    for (;;) {
      const r = await runSink(db, TENANT, sinkId, { budgetMs: 300_000, batchSize: 200, snapshotPage: 50 });
      total.ran ||= r.ran;
      total.delivered += r.delivered;
      total.error ??= r.error;
      if (!r.ran || r.error) return total;
      const lag = await t(async (tx) => sinkFigures(tx, (await getSinkRow(tx, sinkId))!));
      if (lag.lagEvents === 0 || Date.now() > deadline) return total;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };

  async function product(): Promise<Figures> {
    return t(async (tx) => {
      const [row] = await tx.query<Omit<Figures, 'events'>>(FIGURES('public'));
      const [events] = await tx.query<{ n: number }>(`select count(*)::int as n from domain_events`);
      return { ...row, events: events.n };
    });
  }
  async function copied(): Promise<Figures> {
    const { rows } = await target.query<Omit<Figures, 'events'>>(FIGURES('warehouse'));
    const events = await target.query<{ n: number }>(`select count(*)::int as n from warehouse.events`);
    return { ...rows[0], events: events.rows[0].n };
  }
  async function sameEvents(): Promise<void> {
    const ours = await t((tx) => tx.query<{ id: string }>(`select id::text as id from domain_events order by id`));
    const theirs = await target.query<{ id: string }>(`select id::text as id from warehouse.events order by id`);
    expect(theirs.rows.map((r) => r.id)).toEqual(ours.map((r) => r.id));
  }

  test('a simulated month lands in the target with the product’s counts and sums', async () => {
    const sink = await t((tx) =>
      createEventSinkCommand.run(
        tx,
        actor,
        createEventSinkCommand.input.parse({
          type: 'postgres',
          name: 'Warehouse',
          connectionString: `${targetUrl.toString()}?sslmode=disable`,
          schema: 'warehouse',
        }),
        { language: 'en' },
      ),
    );
    sinkId = sink.id;
    expect(sink.settings_hint).not.toContain(targetDb + '?'); // the hint is a summary, not the string
    const result = await run();
    expect(result.error).toBeNull();
    const expected = await product();
    expect(expected.customers).toBeGreaterThanOrEqual(30);
    expect(expected.loans).toBeGreaterThan(0);
    expect(BigInt(expected.disbursed)).toBeGreaterThan(0n);
    expect(expected.events).toBeGreaterThan(10);
    expect(await copied()).toEqual(expected);
    await sameEvents();
    const row = await t((tx) => getSinkRow(tx, sinkId));
    expect(row!.snapshot_stage).toBeNull();
    expect(row!.delivered_count).toBe(BigInt(expected.events));
    const figures = await t((tx) => sinkFigures(tx, row!));
    expect(figures.lagEvents).toBe(0);
    expect(figures.deliveredLastHour).toBe(expected.events);
    // A second run delivers nothing new and changes nothing.
    const again = await run();
    expect(again.delivered).toBe(0);
    expect(await copied()).toEqual(expected);
  }, 600_000);

  test('paused, more changes, replayed from the middle: the target converges, no duplicates', async () => {
    await t((tx) => pauseEventSinkCommand.run(tx, actor, { id: sinkId }, { language: 'en' }));
    const [middle] = await t((tx) =>
      tx.query<{ at: string }>(
        `select to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at from domain_events
          order by seq offset (select count(*) / 2 from domain_events) limit 1`,
      ),
    );
    // Changes while paused: repayments (events) and a daily close (penalties: no event, the sweep finds them).
    const loans = await t((tx) =>
      tx.query<{ id: string }>(`select id::text as id from loans where status = 'ACTIVE' order by account_no limit 3`),
    );
    expect(loans.length).toBeGreaterThan(0);
    for (const { id } of loans) await t((tx) => repayLoan(tx, actor, { loanId: id, amount: '7.00' }));
    await runDailyClose(db, TENANT);
    const paused = await run();
    expect(paused.ran).toBe(false);
    const waiting = await t(async (tx) => sinkFigures(tx, (await getSinkRow(tx, sinkId))!));
    expect(waiting.lagEvents).toBeGreaterThanOrEqual(loans.length);
    expect(waiting.oldestPendingAt).not.toBeNull();

    const replayed = await t((tx) =>
      replayEventSinkCommand.run(tx, actor, { id: sinkId, since: middle.at }, { language: 'en' }),
    );
    expect(replayed.sink.status).toBe('active');
    const result = await run();
    expect(result.error).toBeNull();
    expect(result.delivered).toBeGreaterThan(loans.length);
    const expected = await product();
    expect(await copied()).toEqual(expected);
    await sameEvents();
    // Resume on an active sink and another run: still the same, still no duplicates.
    await t((tx) => resumeEventSinkCommand.run(tx, actor, { id: sinkId }, { language: 'en' }));
    await run();
    expect(await copied()).toEqual(expected);
    const dup = await target.query<{ n: number }>(
      `select count(*)::int as n from (select id from warehouse.loan_transactions group by id having count(*) > 1) d`,
    );
    expect(dup.rows[0].n).toBe(0);
  }, 600_000);
});
