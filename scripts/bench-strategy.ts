// `npm run bench:strategy`: a strategy simulation over a big Postgres tenant (the target:
// 100,000 customers in under a minute) and the time a model evaluation adds to a request (p95 of
// `evaluateVersion` for one customer's input, target under 5 ms).
//
//   DATABASE_URL=postgres://… npm run bench:strategy -- [--customers 100000] [--runs 1] [--page 5000]
//
// The tenant 'bench-strategy' is filled once by set-based SQL with N customers (risk classes A–D,
// segments, opt-outs) and ~0.6 loans each (some written off or 90+ days late, so the expected loss has
// history); a live strategy and a draft of another one, both on the demo credit policy, are set up
// through the same tables the commands write. Results go to bench/results/strategy.json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase, type Db } from '#lib/db/index.ts';
import { decisionInputsPage } from '#lib/decisioning/inputs.ts';
import { createModel, evaluateVersion, markVersionUsed } from '#lib/decisioning/models.ts';
import { demoPolicyModel } from '#lib/decisioning/samples.ts';
import type { Actor } from '#lib/lending/actor.ts';
import { runSimulation } from '#lib/strategies/simulation.ts';
import type { StrategyTerms } from '#lib/strategies/terms.ts';

const { values } = parseArgs({
  options: {
    customers: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '1' },
    page: { type: 'string' },
    out: { type: 'string', default: 'bench/results/strategy.json' },
  },
});
const url = process.env.DATABASE_URL;
if (!url) {
  process.stderr.write('bench:strategy needs DATABASE_URL (a real Postgres).\n');
  process.exit(2);
}
const TENANT = 'bench-strategy';
const DATE = '2026-06-15';
const customers = Number(values.customers);
const actor: Actor = {
  tenantId: TENANT,
  userId: '00000000-0000-4000-8000-00000000be01',
  isAdmin: true,
  kind: 'system',
};

async function fill(db: Db): Promise<void> {
  await db.owner((tx) =>
    tx.query(
      `insert into tenants (id, slug, name, currency, business_date) values ($1, $1, 'Bench strategy', 'EUR', $2)
       on conflict (id) do nothing`,
      [TENANT, DATE],
    ),
  );
  const [{ n }] = await db.tenant(TENANT, (tx) => tx.query<{ n: number }>('select count(*)::int as n from customers'));
  if (n >= customers) return fillMetrics(db);
  const started = Date.now();
  await db.tenant(TENANT, async (tx) => {
    await tx.query(
      `insert into loan_products (tenant_id, code, name, currency, digits_after_decimal, min_principal, max_principal,
         min_repayments, max_repayments, annual_interest_rate, repayment_frequency)
       values ($1, 'CASH', 'Cash loan', 'EUR', 2, 10000, 2000000, 3, 24, 14, 'MONTHS') on conflict do nothing`,
      [TENANT],
    );
    await tx.query(
      `insert into customers (tenant_id, first_name, last_name, national_id, segment, risk_class, opt_in_status, date_of_birth, created_at)
       select $1, 'Client', 'N' || g, 'BS' || lpad(g::text, 9, '0'),
              (array['retail','salaried','self_employed'])[1 + g % 3], (array['A','B','C','D'])[1 + (g / 3) % 4],
              case when g % 23 = 0 then 'opted_out' else 'opted_in' end, date '1960-01-01' + (g % 15000),
              timestamptz '2023-01-01' + g * interval '3 minutes'
         from generate_series($2::int + 1, $3::int) g`,
      [TENANT, n, customers],
    );
    await tx.query(
      `insert into loans (tenant_id, account_no, customer_id, product_id, status, currency, principal, number_of_repayments,
         annual_interest_rate, terms, submitted_on, disbursed_on, written_off_on, closed_on)
       select $1, 'S' || lpad(row_number() over (order by c.id)::text, 9, '0'), c.id, p.id,
              case when h % 40 = 0 then 'CLOSED_WRITTEN_OFF' when h % 3 = 0 then 'CLOSED_OBLIGATIONS_MET' else 'ACTIVE' end,
              'EUR', 100000 + (h % 30) * 10000, 12, 14, '{}'::jsonb, date '2026-06-15' - (h % 500), date '2026-06-15' - (h % 500),
              case when h % 40 = 0 then date '2026-06-15' - (h % 30) end,
              case when h % 40 = 0 or h % 3 = 0 then date '2026-06-15' - (h % 30) end
         from customers c cross join lateral (select abs(hashtext(c.id::text)) as h) x, loan_products p
        where p.code = 'CASH' and h % 10 < 6 and not exists (select 1 from loans l where l.customer_id = c.id)`,
      [TENANT],
    );
    await tx.query(
      `insert into loan_delinquency (tenant_id, loan_id, as_of, past_due_days)
       select $1, l.id, $2, (abs(hashtext(l.id::text)) % 200) from loans l
        where l.status = 'ACTIVE' and abs(hashtext(l.id::text)) % 5 = 0
       on conflict do nothing`,
      [TENANT, DATE],
    );
  });
  await fillMetrics(db);
  process.stdout.write(`filled ${customers - n} customers in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

/** Six months of bank-statement metrics for customers without any (inflows from 300 to 6,000 a month), then fresh statistics. */
async function fillMetrics(db: Db): Promise<void> {
  await db.tenant(TENANT, (tx) =>
    tx.query(
      `insert into customer_transaction_metrics (tenant_id, customer_id, month, currency, inflow, outflow, net_flow,
         closing_balance, min_balance, transaction_count)
       select $1, c.id, (date '2026-06-01' - make_interval(months => m))::date, 'EUR', x.inflow, x.inflow * 9 / 10,
              x.inflow / 10, x.inflow, x.inflow / 5, 20
         from customers c cross join lateral (select 30000 + (abs(hashtext(c.id::text)) % 58) * 10000 as inflow) x,
              generate_series(1, 6) m
        where not exists (select 1 from customer_transaction_metrics t where t.customer_id = c.id)`,
      [TENANT],
    ),
  );
  // Fresh statistics after a bulk load (as the owner: the runtime role may not analyze).
  await db.owner((tx) => tx.query('analyze'));
}

/** The demo policy as a model; a live strategy and a draft of another, both on it; a queued simulation of the draft. */
async function setup(db: Db): Promise<{ simulationId: () => Promise<string>; versionId: string }> {
  return db.tenant(TENANT, async (tx) => {
    await tx.query(`delete from strategy_simulation_changes`);
    await tx.query(`delete from strategy_simulations`);
    await tx.query(`delete from strategy_versions`);
    await tx.query(`delete from strategies`);
    const [existing] = await tx.query<{ id: string; model_id: string }>(
      `select v.id, v.model_id from decision_model_versions v join decision_models m on m.id = v.model_id
        where m.name = 'Bench policy' order by v.version desc limit 1`,
    );
    const version = existing
      ? { id: existing.id, modelId: existing.model_id }
      : await createModel(tx, actor, { name: 'Bench policy', kind: 'table', content: demoPolicyModel() }).then((m) => ({
          id: m.version.id,
          modelId: m.model.id,
        }));
    await markVersionUsed(tx, version.id);
    const [product] = await tx.query<{ id: string }>(`select id from loan_products where code = 'CASH'`);
    const terms = (maxA: string): StrategyTerms => ({
      modelId: version.modelId,
      modelVersionId: version.id,
      mapping: {
        outcomeField: 'decision',
        approve: ['approve'],
        refer: ['refer'],
        reject: ['reject'],
        limitField: 'limit',
        rateField: 'rate',
      },
      productId: product.id,
      offerValidityDays: 30,
      segments: [],
      classes: [
        { riskClass: 'A', maxPrincipal: maxA, numberOfRepayments: 12, annualInterestRate: null, excluded: false },
        { riskClass: 'B', maxPrincipal: '3000', numberOfRepayments: 12, annualInterestRate: '16', excluded: false },
        { riskClass: 'C', maxPrincipal: '1500', numberOfRepayments: 6, annualInterestRate: '20', excluded: false },
        { riskClass: '*', maxPrincipal: '500', numberOfRepayments: 6, annualInterestRate: null, excluded: true },
      ],
    });
    const strategy = async (name: string, status: 'live' | 'draft', t: StrategyTerms) => {
      const [s] = await tx.query<{ id: string }>(
        `insert into strategies (tenant_id, name, status, live_version, requested_by) values ($1, $2, $3, $4, $5) returning id`,
        [TENANT, name, status, status === 'live' ? 1 : null, actor.userId],
      );
      await tx.query(
        `insert into strategy_versions (tenant_id, strategy_id, version, stage, terms) values ($1, $2, 1, $3, $4::jsonb)`,
        [TENANT, s.id, status === 'live' ? 'implemented' : 'encoded', JSON.stringify(t)],
      );
      return s.id;
    };
    await strategy('Live policy', 'live', terms('4000'));
    const draftId = await strategy('Draft policy', 'draft', terms('8000'));
    return {
      versionId: version.id,
      simulationId: () =>
        db.tenant(TENANT, async (t2) => {
          const [sim] = await t2.query<{ id: string }>(
            `insert into strategy_simulations (tenant_id, strategy_id, strategy_version, business_date, requested_by)
             values ($1, $2, 1, $3, $4) returning id`,
            [TENANT, draftId, DATE, actor.userId],
          );
          await t2.query(`update strategy_versions set simulation_id = $2, stage = 'encoded' where strategy_id = $1`, [
            draftId,
            sim.id,
          ]);
          return sim.id;
        }),
    };
  });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

const db = await openDatabase({ databaseUrl: url });
try {
  await fill(db);
  const { simulationId, versionId } = await setup(db);
  const runs: { ms: number; customers: number; changed: number; draftOffers: number; liveOffers: number }[] = [];
  for (let i = 0; i < Number(values.runs); i++) {
    const id = await simulationId();
    const started = performance.now();
    const r = await runSimulation(db, TENANT, id, { pageSize: values.page ? Number(values.page) : undefined });
    const ms = Math.round(performance.now() - started);
    runs.push({
      ms,
      customers: r.customers,
      changed: r.changed,
      draftOffers: r.draft.offers,
      liveOffers: r.live.offers,
    });
    process.stdout.write(
      `simulation: ${r.customers} customers in ${(ms / 1000).toFixed(1)} s (draft ${r.draft.offers} offers, live ${r.live.offers}, ${r.changed} changed)\n`,
    );
  }
  // A model evaluation inside a request: read the version, evaluate one customer's input (compiled cache warm, as in a server).
  const inputs = await db.tenant(TENANT, (tx) => decisionInputsPage(tx, DATE, { limit: 1000 }));
  const times: number[] = [];
  await db.tenant(TENANT, async (tx) => {
    for (const input of inputs.slice(0, 50)) await evaluateVersion(tx, versionId, input); // warm: compiled once per server
    for (const input of inputs) {
      const t0 = performance.now();
      await evaluateVersion(tx, versionId, input);
      times.push(performance.now() - t0);
    }
  });
  times.sort((a, b) => a - b);
  const evaluation = { n: times.length, medianMs: percentile(times, 0.5), p95Ms: percentile(times, 0.95) };
  process.stdout.write(
    `evaluateVersion (one customer, in a request): median ${evaluation.medianMs.toFixed(2)} ms, p95 ${evaluation.p95Ms.toFixed(2)} ms\n`,
  );
  const out = path.resolve(values.out);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(
    out,
    JSON.stringify(
      {
        at: new Date().toISOString(),
        machine: { cpus: os.cpus().length, node: process.version },
        customers,
        runs,
        evaluation,
      },
      null,
      2,
    ) + '\n',
  );
} finally {
  await db.close();
}
