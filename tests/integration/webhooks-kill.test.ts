import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { openPostgres, type Db } from '#lib/db/index.ts';
import { migrate } from '#lib/db/migrate.ts';
import { repayLoan } from '#lib/lending/commands/repay-loan.ts';
import { createWebhookCommand, setWebhookTargetOptionsForTests } from '#lib/webhooks/endpoints.ts';
import { createLendingFixture, setBusinessDate, type LendingFixture } from '../support/lending-fixtures.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';

process.env.SESSION_SECRET ??= 'a-test-session-secret-that-is-long-enough-0123456789';

// Security goal 16: the process sending webhooks is killed (SIGKILL) while the receiver holds a
// request open. After a restart every event is delivered at least once, and a receiver that
// de-duplicates by webhook-id has each exactly once. The sender is the real job worker with the real
// handlers in a child process (tests/support/webhook-worker-child.ts) on a Postgres database this
// test creates; it needs two processes, so Postgres only (TEST_DATABASE_URL).

const BASE = process.env.TEST_DATABASE_URL;
const EVENTS = 5;

async function admin(text: string) {
  const client = new pg.Client({ connectionString: BASE });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

function startChild(url: string): Promise<{ child: ChildProcess; output: () => string }> {
  let output = '';
  const child = spawn(process.execPath, ['tests/support/webhook-worker-child.ts'], {
    env: { ...process.env, WORKER_DATABASE_URL: url, ALLOW_PRIVATE_TARGETS: '1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start: ${output}`)), 30_000);
    child.stdout!.on('data', (d) => {
      output += d;
      if (output.includes('ready')) {
        clearTimeout(timer);
        resolve({ child, output: () => output });
      }
    });
    child.stderr!.on('data', (d) => (output += d));
    child.on('exit', (code) => reject(new Error(`worker exited ${code}: ${output}`)));
  });
}

async function until(check: () => Promise<boolean> | boolean, timeoutMs: number, what: string) {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.runIf(BASE)('webhooks: killing the sender mid-delivery loses nothing (postgres)', () => {
  const name = `lending_test_${crypto.randomBytes(6).toString('hex')}`;
  let url: string;
  let db: Db;
  let f: LendingFixture;
  let receiver: Receiver;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    await admin(`create database ${name}`);
    const u = new URL(BASE!);
    u.pathname = `/${name}`;
    url = u.toString();
    db = await openPostgres(url, { max: 6 });
    await migrate(db);
    f = await createLendingFixture(db, { businessDate: '2026-01-15' });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await receiver?.close();
    await db?.close();
    await admin(`drop database if exists ${name} with (force)`);
  });

  test('SIGKILL while the receiver holds the request: redelivered after restart, same webhook-id', async () => {
    const { loanId } = await f.disbursedLoan({ principal: '1200.00', numberOfRepayments: 12 });
    await setBusinessDate(db, f.tenantId, '2026-02-15');
    setWebhookTargetOptionsForTests({ allowPrivate: true });
    const { secret } = await db.tenant(f.tenantId, (tx) =>
      createWebhookCommand.run(
        tx,
        f.admin,
        { url: receiver.url, events: ['loan.repayment.created'] },
        { language: 'en' },
      ),
    );
    setWebhookTargetOptionsForTests({});
    receiver.script('hang'); // the first request is held open; the others are answered 200

    const first = await startChild(url);
    children.push(first.child);
    const committed: number[] = [];
    for (let i = 0; i < EVENTS; i++) {
      await db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: `${10 + i}.00` }));
      committed.push(Date.now());
    }
    await receiver.waitFor(EVENTS, 30_000);
    // Deliveries start within seconds of the commit (the worker polls every second).
    expect(receiver.requests[0].at.getTime() - committed[0]).toBeLessThan(5_000);
    expect(receiver.requests[EVENTS - 1].at.getTime() - committed[EVENTS - 1]).toBeLessThan(5_000);
    const held = receiver.requests[0].headers['webhook-id'];
    const status = () =>
      db.tenant(f.tenantId, (tx) =>
        tx.query<{ msg_id: string; status: string }>(`select msg_id, status from webhook_deliveries`),
      );
    // The held one is still pending: its send job is running in the worker we are about to kill.
    expect((await status()).find((d) => d.msg_id === held)?.status).toBe('pending');
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));

    const second = await startChild(url);
    children.push(second.child);
    await until(
      async () => (await status()).filter((d) => d.status === 'delivered').length === EVENTS,
      30_000,
      'every delivery after the restart',
    );
    second.child.kill('SIGKILL');

    const ids = receiver.requests.map((r) => r.headers['webhook-id']);
    const unique = new Set(ids);
    expect(unique.size).toBe(EVENTS); // every event at least once…
    expect(ids.filter((id) => id === held)).toHaveLength(2); // …the interrupted one twice, same id
    const deduplicated = new Map(receiver.requests.map((r) => [r.headers['webhook-id'], r]));
    expect(deduplicated.size).toBe(EVENTS); // …and exactly once for a receiver de-duplicating by id
    for (const r of receiver.requests)
      expect(new Webhook(secret).verify(r.body, r.headers)).toMatchObject({
        type: 'loan.repayment.created',
      });
  });
});
