// `npm run bench:engine [-- --full] [--customers N]`: lending engine benchmarks on Postgres
// (BENCH_DATABASE_URL, default the local server). Each run works in fresh databases it creates and
// drops. Measures: schedules per second (24-month EMI), repayments per second through the API
// endpoint (Idempotency-Key included), daily close time per 10,000 active loans, simulator time for
// 10,000 customers and, with --full, 100,000 customers. Writes bench/results/engine.json.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openPostgres, setDb, type Db } from '#lib/db/index.ts';
import { migrate } from '#lib/db/migrate.ts';
import { generateSchedule, parseTerms, previewSchedule } from '#lib/schedule/index.ts';
import { simulatePortfolio, type SimulateResult } from '#lib/simulator/simulate.ts';
import { runDailyClose } from '#lib/close/daily-close.ts';
import { checkLedger } from '#lib/lending/ledger/check-ledger.ts';
import type { Principal } from '#lib/auth/principal.ts';

process.env.LOG_LEVEL ??= 'warn';
const { values } = parseArgs({
  options: {
    full: { type: 'boolean', default: false },
    customers: { type: 'string', default: '10000' },
    months: { type: 'string', default: '24' },
  },
});
const base = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const root = path.resolve(import.meta.dirname, '..');
const log = (message: string) => process.stderr.write(`bench: ${message}\n`);
/** Loans worked on at once by the simulator (`npm run seed -- --concurrency`, default 12). */
const SIM_CONCURRENCY = 16;

async function admin(sql: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** VACUUM (ANALYZE) outside a transaction, on the database of `db` (see SimulateOptions.vacuum). */
const dbUrls = new WeakMap<Db, string>();
function vacuumHook(db: Db) {
  const url = dbUrls.get(db);
  if (!url) return undefined;
  return async (tables: readonly string[]) => {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`vacuum (analyze) ${tables.join(', ')}`);
    } finally {
      await client.end();
    }
  };
}

async function freshDb(): Promise<{ db: Db; plainUrl: string; drop: () => Promise<void> }> {
  const name = `lending_bench_${crypto.randomBytes(4).toString('hex')}`;
  await admin(`create database ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  const plainUrl = url.toString();
  // Bulk loading, like `npm run seed`: commits do not wait for the WAL flush, no JIT (see scripts/seed.ts).
  url.searchParams.set('options', '-c synchronous_commit=off -c jit=off');
  const db = await openPostgres(url.toString(), { max: SIM_CONCURRENCY + 2 });
  dbUrls.set(db, url.toString());
  await migrate(db);
  return {
    db,
    plainUrl,
    async drop() {
      await db.close();
      await admin(`drop database if exists ${name} with (force)`);
    },
  };
}

/** Terms-JSON in, contract JSON out (what `npm run schedule` and POST /v1/schedules/preview do), for ~3 s. */
function benchPreview(json: Record<string, unknown>): { perSecond: number; installments: number } {
  let n = 0;
  let installments = 0;
  const started = performance.now();
  while (performance.now() - started < 3000) {
    installments = previewSchedule(json).installments.length;
    n++;
  }
  return { perSecond: Math.round(n / ((performance.now() - started) / 1000)), installments };
}

const EMI_24 = {
  principal: '25000.00',
  currency: 'EUR',
  annualInterestRate: '12',
  numberOfRepayments: 24,
  disbursementDate: '2026-01-15',
  interestCalculationPeriod: 'DAILY',
};

/** The engine's depth (issue 17): charges, tranches and interest recalculation over 24 months. */
function benchDepth() {
  const monthly = (k: number) => {
    const d = new Date(Date.UTC(2026, k, 15));
    return d.toISOString().slice(0, 10);
  };
  return {
    withCharges: benchPreview({
      ...EMI_24,
      charges: [
        { type: 'FEE', timing: 'DISBURSEMENT', calculation: 'PERCENT_OF_AMOUNT', amount: '1' },
        { type: 'FEE', timing: 'INSTALLMENT', calculation: 'PERCENT_OF_AMOUNT_AND_INTEREST', amount: '0.5' },
        { type: 'FEE', timing: 'SPECIFIED_DUE_DATE', calculation: 'FLAT', amount: '15', dueDate: '2026-07-01' },
      ],
    }),
    withTranches: benchPreview({
      ...EMI_24,
      disbursements: [
        { date: '2026-01-15', amount: '15000.00' },
        { date: '2026-04-10', amount: '10000.00' },
      ],
    }),
    withRecalculation: benchPreview({
      ...EMI_24,
      scheduleType: 'PROGRESSIVE',
      daysInYear: 360,
      daysInMonth: 30,
      interestRecalculation: { restFrequency: 'DAILY', compounding: 'NONE' },
      // Twelve monthly repayments: on time, one early (extra principal), one late.
      transactions: Array.from({ length: 12 }, (_, k) => ({
        type: 'REPAYMENT',
        date: k === 5 ? '2026-07-25' : monthly(k + 1),
        amount: k === 3 ? '3000.00' : '1200.00',
      })),
      asOf: '2027-01-20',
    }),
  };
}

function benchSchedules(): { perSecond: number; installments: number } {
  const terms = parseTerms({
    principal: '25000.00',
    currency: 'EUR',
    annualInterestRate: '12',
    numberOfRepayments: 24,
    repaymentEvery: 1,
    repaymentFrequency: 'MONTHS',
    disbursementDate: '2026-01-15',
    scheduleType: 'CUMULATIVE',
    interestMethod: 'DECLINING_BALANCE',
    amortization: 'EQUAL_INSTALLMENTS',
    interestCalculationPeriod: 'DAILY',
    daysInYear: 'ACTUAL',
    daysInMonth: 'ACTUAL',
  });
  let n = 0;
  let installments = 0;
  const started = performance.now();
  while (performance.now() - started < 3000) {
    installments = generateSchedule(terms).installments.length;
    n++;
  }
  return { perSecond: Math.round(n / ((performance.now() - started) / 1000)), installments };
}

async function simulate(db: Db, customers: number, months: number): Promise<SimulateResult> {
  await db.owner((tx) =>
    tx.query(
      `insert into tenants (id, slug, name, currency, time_zone, business_date) values ('bench-t1', 'bench', 'Bench Lender', 'EUR', 'Europe/Paris', current_date)`,
    ),
  );
  const started = Date.now();
  return simulatePortfolio(db, {
    vacuum: vacuumHook(db),
    tenantId: 'bench-t1',
    customers,
    months,
    seed: 'bench',
    concurrency: SIM_CONCURRENCY,
    onProgress: ({ day, done, total }) =>
      log(
        `  simulating ${customers} customers: ${day} (${done}/${total} days, ${Math.round((Date.now() - started) / 1000)} s)`,
      ),
  });
}

async function benchClose(db: Db): Promise<{ activeLoans: number; runs: number[]; msPer10kActiveLoans: number }> {
  const runs: number[] = [];
  let active = 0;
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    const result = await runDailyClose(db, 'bench-t1');
    runs.push(Math.round(performance.now() - started));
    active = result.stats.activeLoans;
  }
  const median = [...runs].sort((a, b) => a - b)[2];
  return { activeLoans: active, runs, msPer10kActiveLoans: active ? Math.round((median * 10_000) / active) : 0 };
}

/** Repayments through the real endpoint function (authorisation, Idempotency-Key, validation, command, stored answer). */
async function benchRepayments(
  db: Db,
  count: number,
): Promise<{ repayments: number; perSecond: number; concurrency: number; replayedIdentical: boolean }> {
  setDb(db);
  const { POST } = await import('../src/pages/v1/loans/[id]/repayments.ts');
  const [user] = await db.tenant('bench-t1', (tx) =>
    tx.query<{ id: string }>(`select id from users order by email limit 1`),
  );
  const principal: Principal = {
    tenantId: 'bench-t1',
    userId: user.id,
    displayName: 'Bench',
    email: 'bench@example.com',
    isAdmin: true,
    authorities: [],
    dataPermissions: [],
    language: 'en-US',
    via: 'token',
    sessionId: null,
    passwordChangeRequired: false,
    sessionTimeout: 3600,
    idleTimeout: 3600,
  };
  const loans = await db.tenant('bench-t1', (tx) =>
    tx.query<{ id: string }>(`select id from loans where status = 'ACTIVE' order by account_no limit $1`, [
      Math.min(count, 2000),
    ]),
  );
  const call = async (loanId: string, key: string) => {
    const response = await (POST as (ctx: unknown) => Promise<Response>)({
      request: new Request(`http://bench.local/v1/loans/${loanId}/repayments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ amount: '1.00' }),
      }),
      params: { id: loanId },
      locals: { principal, requestId: crypto.randomUUID() },
      clientAddress: '127.0.0.1',
    });
    const body = await response.text();
    if (response.status !== 201) throw new Error(`repayment answered ${response.status}: ${body}`);
    return { body, isReplayed: response.headers.get('idempotent-replayed') === 'true' };
  };
  const concurrency = 8;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        await call(loans[i % loans.length].id, `bench-${i}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const first = await call(loans[0].id, 'bench-0');
  const again = await call(loans[0].id, 'bench-0');
  return {
    repayments: count,
    perSecond: Math.round(count / seconds),
    concurrency,
    replayedIdentical: first.isReplayed && again.isReplayed && first.body === again.body,
  };
}

const pgVersion = await (async () => {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  const { rows } = await client.query('show server_version');
  await client.end();
  return rows[0].server_version as string;
})();

const results: Record<string, unknown> = {
  measuredAt: new Date().toISOString(),
  machine: {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    postgres: pgVersion,
  },
};
const file = path.join(root, 'bench', 'results', 'engine.json');
const previous = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};

log('schedules per second (24-month EMI)…');
results.schedules = benchSchedules();
log(`  ${JSON.stringify(results.schedules)}`);
log('schedules per second with charges, tranches and interest recalculation (terms JSON → contract JSON)…');
results.schedulesDepth = benchDepth();
log(`  ${JSON.stringify(results.schedulesDepth)}`);

const customers = Number(values.customers);
const months = Number(values.months);
{
  const { db, plainUrl, drop } = await freshDb();
  try {
    log(`simulator: ${customers} customers, ${months} months…`);
    const sim = await simulate(db, customers, months);
    const ledger = await checkLedger(db);
    results.simulator10k = {
      ...sim,
      ledgerDifferences: ledger.differences.length,
      seconds: Math.round(sim.ms.total / 1000),
    };
    log(
      `  ${sim.ms.total} ms, ${sim.loans} loans, ${sim.repayments} repayments, ledger differences ${ledger.differences.length}`,
    );
    log('daily close…');
    results.dailyClose = await benchClose(db);
    log(`  ${JSON.stringify(results.dailyClose)}`);
    log('repayments through the API endpoint…');
    // The API path as production runs it: its own pool with the server's default settings
    // (synchronous commit), not the simulator's bulk-loading connections.
    const apiDb = await openPostgres(plainUrl, { max: 10 });
    try {
      results.repayments = await benchRepayments(apiDb, 2000);
    } finally {
      await apiDb.close();
    }
    log(`  ${JSON.stringify(results.repayments)}`);
  } finally {
    await drop();
  }
}
if (values.full) {
  const { db, drop } = await freshDb();
  try {
    log(`simulator: 100000 customers, ${months} months (this takes a while)…`);
    const sim = await simulate(db, 100_000, months);
    const ledger = await checkLedger(db);
    results.simulator100k = {
      ...sim,
      ledgerDifferences: ledger.differences.length,
      seconds: Math.round(sim.ms.total / 1000),
    };
    log(`  ${sim.ms.total} ms, ${sim.loans} loans, ledger differences ${ledger.differences.length}`);
    results.dailyClose100k = await benchClose(db);
    log(`  close: ${JSON.stringify(results.dailyClose100k)}`);
  } finally {
    await drop();
  }
} else if (previous.simulator100k) {
  // Keep the last recorded 100k run (opt-in, long) alongside fresh quick figures.
  results.simulator100k = previous.simulator100k;
  if (previous.dailyClose100k) results.dailyClose100k = previous.dailyClose100k;
}
fs.mkdirSync(path.dirname(file), { recursive: true });
fs.writeFileSync(file, `${JSON.stringify(results, (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`);
log(`written ${path.relative(root, file)}`);
