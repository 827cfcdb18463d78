// `npm run bench:data-quality`: time of one data-quality run (src/lib/data-quality) on a big tenant, rule
// by rule, and of the reads behind the availability, resource usage and data-flow pages.
//
//   DATABASE_URL=postgres://… npm run bench:data-quality -- --tenant bench-lists [--runs 3]
//
// The tenant is the one `npm run bench:lists -- --bulk 100000` fills ('bench-lists') or one
// `npm run seed` simulated. Each run is started and executed here (no server, no worker); its job is
// cancelled afterwards so no server runs it again. Results go to bench/results/data-quality.json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase } from '#lib/db/index.ts';
import { cancelJob, getJob } from '#lib/jobs/queue.ts';
import { executeRun, startRun } from '#lib/data-quality/run.ts';
import { RULES } from '#lib/data-quality/rules.ts';
import { readAvailability, readFlow, readUsage } from '#lib/data-flow/read.ts';

const { values } = parseArgs({
  options: {
    tenant: { type: 'string', default: 'bench-lists' },
    runs: { type: 'string', default: '3' },
    out: { type: 'string', default: 'bench/results/data-quality.json' },
  },
});
const url = process.env.DATABASE_URL;
if (!url) {
  process.stderr.write('bench:data-quality needs DATABASE_URL (a real Postgres holding a big tenant).\n');
  process.exit(2);
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (n: number) => Math.round(n * 10) / 10;

const db = await openDatabase({ databaseUrl: url });
try {
  const [tenant] = await db.system((tx) =>
    tx.query<{ id: string }>('select id from tenants where slug = $1 or id = $1', [values.tenant]),
  );
  if (!tenant) throw new Error(`no tenant ${values.tenant}`);
  const tenantId = tenant.id;
  const [size] = await db.tenant(tenantId, (tx) =>
    tx.query<{ customers: number; loans: number }>(
      'select (select count(*) from customers)::int as customers, (select count(*) from loans)::int as loans',
    ),
  );
  const totals: number[] = [];
  const perRule: Record<string, number[]> = Object.fromEntries(RULES.map((r) => [r.id, []]));
  for (let i = 0; i < Math.max(1, Number(values.runs)); i++) {
    const { run } = await db.tenant(tenantId, (tx) => startRun(tx, tenantId, { trigger: 'manual' }));
    const job = (await getJob(db, run.job_id!))!;
    const started = performance.now();
    let last = started;
    const outcome = await executeRun({
      db,
      job: { ...job, attempts: 1 },
      tenantId,
      payload: job.payload,
      signal: new AbortController().signal,
      progress: async (done) => {
        const now = performance.now();
        perRule[RULES[Number(done) - 1].id].push(now - last);
        last = now;
      },
    });
    totals.push(performance.now() - started);
    await cancelJob(db, job.id);
    process.stdout.write(`run ${i + 1}: ${round(totals.at(-1)!)} ms, score ${outcome.score}\n`);
  }
  const time = async (fn: () => Promise<unknown>) => {
    const xs: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      await fn();
      xs.push(performance.now() - t0);
    }
    return round(median(xs));
  };
  const pages = {
    availability: await time(() => db.tenant(tenantId, (tx) => readAvailability(tx))),
    usage: await time(() => db.tenant(tenantId, (tx) => readUsage(tx, tenantId))),
    flow: await time(() => db.tenant(tenantId, (tx) => readFlow(tx))),
  };
  const result = {
    date: new Date().toISOString(),
    host: { cpus: os.cpus().length, load: os.loadavg().map(round) },
    tenant: { id: tenantId, ...size },
    runMs: { median: round(median(totals)), all: totals.map(round) },
    ruleMs: Object.fromEntries(Object.entries(perRule).map(([k, xs]) => [k, round(median(xs))])),
    readsMs: pages,
  };
  fs.mkdirSync(path.dirname(values.out!), { recursive: true });
  fs.writeFileSync(values.out!, JSON.stringify(result, null, 2) + '\n');
  process.stdout.write(JSON.stringify(result, null, 2) + '\n');
} finally {
  await db.close();
}
