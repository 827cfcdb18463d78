// `npm run seed -- --tenant <slug> --customers N [--months M] [--seed S] [--concurrency C] [--bank-months B]`
// Simulates a lender's history through the lending engine (src/lib/simulator) into the tenant with that
// slug, created (id '<slug>-t1', --currency, default EUR) when there is none; the tenant must have no loans yet.
// Uses DATABASE_URL (Postgres) or the embedded PGlite in DATA_DIR, like the server; PGlite is
// single-process, so stop the server first when using it.
import { parseArgs } from 'node:util';
import { env } from '#lib/config/env.ts';
import { openDatabase } from '#lib/db/index.ts';
import { simulatePortfolio } from '#lib/simulator/simulate.ts';

/** Adds a server option (`-c name=value`) to a postgres:// URL's `options` parameter. */
function withSessionOption(url: string, option: string): string {
  const u = new URL(url);
  const current = u.searchParams.get('options');
  u.searchParams.set('options', current ? `${current} ${option}` : option);
  return u.toString();
}

function fail(message: string): never {
  process.stderr.write(`seed: ${message}\n`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    tenant: { type: 'string' },
    customers: { type: 'string' },
    months: { type: 'string', default: '24' },
    seed: { type: 'string', default: '1' },
    concurrency: { type: 'string', default: '12' },
    today: { type: 'string' },
    currency: { type: 'string', default: 'EUR' },
    'bank-months': { type: 'string', default: '3' },
  },
});
if (!values.tenant) fail('--tenant <slug> is required');
const customers = Number(values.customers);
if (!Number.isInteger(customers) || customers < 1) fail('--customers must be a whole number ≥ 1');
const months = Number(values.months);
if (!Number.isInteger(months) || months < 1 || months > 120) fail('--months must be a whole number from 1 to 120');
const bankMonths = Number(values['bank-months']);
if (!Number.isInteger(bankMonths) || bankMonths < 1 || bankMonths > 60)
  fail('--bank-months must be a whole number from 1 to 60');
if (values.today && !/^\d{4}-\d{2}-\d{2}$/.test(values.today)) fail('--today must be a date YYYY-MM-DD');

const config = env();
const concurrency = Number(values.concurrency);
if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
  fail('--concurrency must be a whole number from 1 to 64');
// Seeding is a bulk load: its own connections commit without waiting for the WAL flush
// (synchronous_commit=off — a crash could lose the last few commits of the run, never make one half
// applied; the numbers are unchanged; no JIT compilation of the close's one-off statements) and the
// pool holds one connection per loan in flight plus the close.
const databaseUrl = config.databaseUrl
  ? withSessionOption(config.databaseUrl, '-c synchronous_commit=off -c jit=off')
  : undefined;
if (databaseUrl && !process.env.DATABASE_POOL_MAX) process.env.DATABASE_POOL_MAX = String(concurrency + 2);
let db;
try {
  db = await openDatabase({ databaseUrl, dataDir: config.dataDir });
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
try {
  let [tenant] = await db.system((tx) =>
    tx.query<{ id: string }>('select id from tenants where slug = $1 or id = $1', [values.tenant]),
  );
  if (!tenant) {
    // A new lender for the simulation: id '<slug>-t1', business date today (UTC).
    if (!/^[a-z][a-z0-9-]{1,30}$/.test(values.tenant!))
      fail('--tenant must be a slug: lower-case letters, digits and dashes');
    if (!/^[A-Z]{3}$/.test(values.currency!)) fail('--currency must be an ISO 4217 code such as EUR');
    [tenant] = await db.system((tx) =>
      tx.query<{ id: string }>(
        `insert into tenants (id, slug, name, currency, business_date) values ($1, $2, $3, $4, $5) returning id`,
        [
          `${values.tenant}-t1`,
          values.tenant,
          `Simulated lender ${values.tenant}`,
          values.currency,
          values.today ?? new Date().toISOString().slice(0, 10),
        ],
      ),
    );
    process.stderr.write(`seed: created tenant ${tenant.id}\n`);
  }
  const started = Date.now();
  // VACUUM cannot run inside a transaction: a plain connection of its own (Postgres only).
  const vacuum = databaseUrl
    ? async (tables: readonly string[]) => {
        const { default: pg } = await import('pg');
        const client = new pg.Client({ connectionString: databaseUrl });
        await client.connect();
        try {
          await client.query(`vacuum (analyze) ${tables.join(', ')}`);
        } finally {
          await client.end();
        }
      }
    : undefined;
  const result = await simulatePortfolio(db, {
    vacuum,
    tenantId: tenant.id,
    customers,
    months,
    seed: values.seed,
    today: values.today,
    concurrency,
    bankMonths,
    onProgress: ({ day, done, total, commandsMs, closeMs, loans, repayments }) =>
      process.stderr.write(
        `  ${day}  ${done}/${total} days  ${Math.round((Date.now() - started) / 1000)} s  (commands ${Math.round(commandsMs / 1000)} s, close ${Math.round(closeMs / 1000)} s; ${loans} loans, ${repayments} repayments)\n`,
      ),
  });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} catch (error) {
  process.stderr.write(`seed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await db.close();
}
