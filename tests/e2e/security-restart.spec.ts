import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { request, type APIRequestContext } from '@playwright/test';
import { DEMO_PASSWORD, expect, test } from './support/fixtures.ts';

// [SECURITY] A server killed (SIGKILL) in the middle of concurrent repayments on
// Postgres leaves no idempotency key stuck "in flight": retrying every key on a fresh server applies
// each exactly once, and `npm run ledger:check` passes. This spec starts its own servers (the built
// `node scripts/server.mjs`) on a Postgres database it creates and drops; not the shared webServer.

const BASE = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const KEYS = 80;
const LOANS = 4;

async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: BASE, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function admin<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

type Server = { child: ChildProcess; baseURL: string; log: () => string };

async function startServer(databaseUrl: string, dataDir: string): Promise<Server> {
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, ['scripts/server.mjs'], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      SEED_DEMO: '1',
      DEMO_HISTORY: '0',
      LOG_LEVEL: 'warn',
      ASTRO_TELEMETRY_DISABLED: '1',
      E2E: '',
      TRUST_PROXY: '',
      JOBS_ENABLED: '0',
      DATABASE_POOL_MAX: '8',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const baseURL = `http://127.0.0.1:${port}`;
  for (const started = Date.now(); Date.now() - started < 90_000; await new Promise((r) => setTimeout(r, 250))) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}):\n${output}`);
    const ok = await fetch(`${baseURL}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { child, baseURL, log: () => output };
  }
  child.kill('SIGKILL');
  throw new Error(`server did not start:\n${output}`);
}

async function stopServer(server: Server, signal: NodeJS.Signals): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill(signal);
  await exited;
}

async function session(baseURL: string, email: string): Promise<APIRequestContext> {
  const ctx = await request.newContext({ baseURL, extraHTTPHeaders: { origin: baseURL } });
  const signedIn = await ctx.post('/v1/auth/sign-in', { data: { email, password: DEMO_PASSWORD } });
  expect(signedIn.status(), await signedIn.text()).toBe(200);
  return ctx;
}

/** A product, then LOANS active loans through maker-checker (officer applies, administrator approves and disburses). */
async function activeLoans(adminApi: APIRequestContext, officerApi: APIRequestContext, tag: string): Promise<string[]> {
  const product = await adminApi.post('/v1/products', {
    data: {
      code: `RS${tag}`.slice(0, 20),
      name: 'Restart test EMI',
      currency: 'EUR',
      digitsAfterDecimal: 2,
      minPrincipal: '100.00',
      maxPrincipal: '50000.00',
      minRepayments: 1,
      maxRepayments: 36,
      annualInterestRate: '12',
      repaymentFrequency: 'MONTHS',
      interestCalculationPeriod: 'SAME_AS_REPAYMENT_PERIOD',
    },
  });
  expect(product.status(), await product.text()).toBe(201);
  const productId = (await product.json()).id;
  const loans: string[] = [];
  for (let i = 0; i < LOANS; i++) {
    const customer = await officerApi.post('/v1/customers', {
      data: { firstName: 'Restart', lastName: `Borrower ${tag} ${i}` },
    });
    expect(customer.status(), await customer.text()).toBe(201);
    const application = await officerApi.post('/v1/applications', {
      data: { customerId: (await customer.json()).id, productId, principal: '5000.00', numberOfRepayments: 12 },
    });
    expect(application.status(), await application.text()).toBe(201);
    const { id: applicationId, loanId } = await application.json();
    expect(
      (
        await adminApi.post(`/v1/applications/${applicationId}/approve`, {
          data: {},
          headers: { 'Idempotency-Key': `${tag}-approve-${i}` },
        })
      ).status(),
    ).toBe(200);
    expect(
      (
        await adminApi.post(`/v1/loans/${loanId}/disbursements`, {
          data: {},
          headers: { 'Idempotency-Key': `${tag}-disburse-${i}` },
        })
      ).status(),
    ).toBe(201);
    loans.push(loanId);
  }
  return loans;
}

test('[SECURITY]: SIGKILL mid-repayments on Postgres, then every key retried on a fresh server applies once; ledger:check passes', async () => {
  test.setTimeout(300_000);
  test.skip(
    !(await postgresReachable()),
    `no Postgres reachable at ${BASE.replace(/\/\/[^@]*@/, '//…@')}: the restart test needs one (set TEST_DATABASE_URL)`,
  );
  const tag = crypto.randomBytes(4).toString('hex');
  const dbName = `lending_restart_${tag}`;
  await admin(BASE, (c) => c.query(`create database ${dbName}`));
  const url = new URL(BASE);
  url.pathname = `/${dbName}`;
  const databaseUrl = url.toString();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lending-restart-'));
  let server: Server | undefined;
  try {
    server = await startServer(databaseUrl, dataDir);
    const adminApi = await session(server.baseURL, 'admin@demo.test');
    const officerApi = await session(server.baseURL, 'officer@demo.test');
    const loans = await activeLoans(adminApi, officerApi, tag);
    await officerApi.dispose();
    const key = (i: number) => `restart-${tag}-${i}`;
    const loanOf = (i: number) => loans[i % LOANS];
    const amountOf = (i: number) => `${1 + (i % 7)}.${String(i % 100).padStart(2, '0')}`;
    const repay = (api: APIRequestContext, i: number) =>
      api.post(`/v1/loans/${loanOf(i)}/repayments`, {
        data: { amount: amountOf(i) },
        headers: { 'Idempotency-Key': key(i) },
        timeout: 60_000,
      });

    // Fire every repayment at once; kill the server hard once some have answered and others are running.
    const answered = new Map<number, { status: number; text: string }>();
    let killed = false;
    const flights = Array.from({ length: KEYS }, (_, i) =>
      repay(adminApi, i).then(
        async (r) => {
          if (!killed) answered.set(i, { status: r.status(), text: await r.text() });
        },
        () => undefined,
      ),
    );
    for (const started = Date.now(); answered.size < 5 && Date.now() - started < 60_000;)
      await new Promise((r) => setTimeout(r, 5));
    killed = true;
    server.child.kill('SIGKILL');
    await Promise.all(flights);
    await new Promise((resolve) =>
      server!.child.exitCode !== null || server!.child.signalCode !== null
        ? resolve(null)
        : server!.child.once('exit', resolve),
    );
    const seenBeforeKill = new Map([...answered].filter(([, a]) => a.status === 201));
    expect(seenBeforeKill.size, 'some repayments answered before the kill').toBeGreaterThan(0);
    expect(seenBeforeKill.size, 'some repayments were still running at the kill').toBeLessThan(KEYS);
    await adminApi.dispose();

    // A fresh server on the same database: every key, retried, is answered 201 — applied now or replayed.
    server = await startServer(databaseUrl, dataDir);
    const again = await session(server.baseURL, 'admin@demo.test');
    const retries = await Promise.all(
      Array.from({ length: KEYS }, (_, i) =>
        repay(again, i).then(async (r) => ({
          status: r.status(),
          text: await r.text(),
          replayed: r.headers()['idempotent-replayed'],
        })),
      ),
    );
    for (const [i, retry] of retries.entries()) {
      expect(retry.status, `${key(i)}: ${retry.text}`).toBe(201);
      const before = seenBeforeKill.get(i);
      if (before) expect(retry, key(i)).toMatchObject({ text: before.text, replayed: 'true' });
    }
    // And once more: everything is a replay now.
    const replays = await Promise.all(Array.from({ length: KEYS }, (_, i) => repay(again, i)));
    for (const r of replays) expect(r.headers()['idempotent-replayed']).toBe('true');
    await again.dispose();
    await stopServer(server, 'SIGTERM');

    // Exactly one repayment and one balanced journal entry per key, with the key's amount.
    const rows = await admin(databaseUrl, async (c) => {
      const keys = await c.query<{ key: string; status: string; response_body: string }>(
        `select key, status, response_body from idempotency_keys where key like $1`,
        [`restart-${tag}-%`],
      );
      const repayments = await c.query<{ id: string; loan_id: string; amount: string }>(
        `select id::text, loan_id::text, amount::text from loan_transactions where type = 'REPAYMENT' and loan_id = any($1::uuid[])`,
        [loans],
      );
      const entries = await c.query<{ transaction_id: string; entries: number; debits: string; credits: string }>(
        `select e.transaction_id::text, count(distinct e.id)::int as entries, sum(l.debit)::text as debits, sum(l.credit)::text as credits
           from journal_entries e join journal_lines l on l.entry_id = e.id and l.tenant_id = e.tenant_id
          where e.transaction_id = any($1::uuid[]) group by e.transaction_id`,
        [repayments.rows.map((r) => r.id)],
      );
      return { keys: keys.rows, repayments: repayments.rows, entries: entries.rows };
    });
    expect(rows.keys).toHaveLength(KEYS);
    for (const k of rows.keys) expect(k.status).toBe('completed');
    expect(rows.repayments).toHaveLength(KEYS);
    const transactionOfKey = new Map(
      rows.keys.map((k) => [k.key, JSON.parse(k.response_body).transaction.id as string]),
    );
    expect(new Set(transactionOfKey.values()).size).toBe(KEYS);
    const repaymentById = new Map(rows.repayments.map((r) => [r.id, r]));
    for (let i = 0; i < KEYS; i++) {
      const repayment = repaymentById.get(transactionOfKey.get(key(i))!);
      expect(repayment, key(i)).toBeDefined();
      expect(repayment!.loan_id).toBe(loanOf(i));
      expect(Number(repayment!.amount)).toBe(Math.round(Number(amountOf(i)) * 100));
    }
    expect(rows.entries).toHaveLength(KEYS);
    for (const e of rows.entries) {
      expect(e.entries).toBe(1);
      expect(e.debits).toBe(e.credits);
    }

    const ledger = spawnSync('npm', ['run', '-s', 'ledger:check'], {
      env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
      encoding: 'utf8',
    });
    expect(ledger.status, `${ledger.stdout}\n${ledger.stderr}`).toBe(0);
  } finally {
    if (server) await stopServer(server, 'SIGKILL').catch(() => undefined);
    await admin(BASE, (c) => c.query(`drop database if exists ${dbName} with (force)`)).catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
