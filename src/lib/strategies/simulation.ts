import crypto from 'node:crypto';
import type { Db, Tx } from '../db/index.ts';
import { mapOutcome } from '../decisioning/decisions.ts';
import { decisionInputsPage, type DecisionInput } from '../decisioning/inputs.ts';
import { getVersion } from '../decisioning/models.ts';
import { evaluateJdmResult, type JdmContent } from '../decisioning/zen.ts';
import { PermanentJobError, registerJobHandler } from '../jobs/worker.ts';
import { getProduct, type ProductRow } from '../lending/products.ts';
import { formatMinorPlain } from '../money/parse.ts';
import { SIMULATION_JOB } from './simulation-job-name.ts';
import type { SideFigures, SimulationResults, SimulationRow, StrategyVersionRow } from './strategies.ts';
import { offerFor, type OfferDecision, type StrategyTerms } from './terms.ts';

/**
 * A strategy simulation (a background job): the draft's terms over the tenant's current customers,
 * against the live baseline — every live strategy's live version; a customer gets an offer today when
 * any of them would give one (counted once, with the largest amount). "With the draft" is the same
 * with the draft in place of this strategy's own live version (if it is live) or added to them.
 *
 * Expected loss by risk class = offered amount × the class's observed default rate: of the disbursed
 * loans of the tenant's customers of that class, the share written off or 90+ days past due today
 * (loans and loan_delinquency); a class without disbursed loans takes the portfolio's rate.
 *
 * Speed: customers are read in keyset pages of `decisionInputsPage` (one set-based query a page), each
 * page's evaluations run concurrently, without traces (the compiled model is cached by version id and
 * content), and
 * the changed customers of a page go in with one insert.
 */

export const PAGE_SIZE = 5000;
const DEFAULT_DPD = 90;

type Evaluator = { key: string; content: JdmContent };
type Side = { strategyId: string; terms: StrategyTerms; product: ProductRow; evaluator: Evaluator };

async function sideOf(tx: Tx, strategyId: string, terms: StrategyTerms): Promise<Side> {
  const version = await getVersion(tx, terms.modelVersionId);
  const digest = crypto.createHash('sha1').update(JSON.stringify(version.content)).digest('hex').slice(0, 16);
  return {
    strategyId,
    terms,
    product: await getProduct(tx, terms.productId),
    evaluator: { key: `${version.id}@${digest}`, content: version.content },
  };
}

type Rate = { disbursed: number; defaulted: number };

/** Observed default rates by the customers' current risk class ('' = no class). */
export async function defaultRates(tx: Tx): Promise<{ byClass: Map<string, Rate>; portfolio: Rate }> {
  const rows = await tx.query<{ risk_class: string; disbursed: number; defaulted: number }>(
    `select coalesce(c.risk_class, '') as risk_class, count(*)::int as disbursed,
            count(*) filter (where l.written_off_on is not null or coalesce(d.past_due_days, 0) >= $1)::int as defaulted
       from loans l
       join customers c on c.id = l.customer_id
       left join loan_delinquency d on d.loan_id = l.id
      where l.disbursed_on is not null
      group by 1`,
    [DEFAULT_DPD],
  );
  const byClass = new Map(rows.map((r) => [r.risk_class, { disbursed: r.disbursed, defaulted: r.defaulted }]));
  const portfolio = rows.reduce(
    (a, r) => ({ disbursed: a.disbursed + r.disbursed, defaulted: a.defaulted + r.defaulted }),
    {
      disbursed: 0,
      defaulted: 0,
    },
  );
  return { byClass, portfolio };
}

class Tally {
  private classes = new Map<string, { offers: number; amount: bigint }>();
  add(riskClass: string, amount: bigint) {
    const c = this.classes.get(riskClass) ?? { offers: 0, amount: 0n };
    c.offers += 1;
    c.amount += amount;
    this.classes.set(riskClass, c);
  }
  figures(rates: { byClass: Map<string, Rate>; portfolio: Rate }, digits: number): SideFigures {
    let offers = 0;
    let amount = 0n;
    let loss = 0n;
    const byClass = [...this.classes.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([riskClass, c]) => {
        const own = rates.byClass.get(riskClass);
        const rate = own && own.disbursed > 0 ? own : rates.portfolio;
        const expected = rate.disbursed > 0 ? (c.amount * BigInt(rate.defaulted)) / BigInt(rate.disbursed) : 0n;
        offers += c.offers;
        amount += c.amount;
        loss += expected;
        return {
          riskClass,
          offers: c.offers,
          amount: formatMinorPlain(c.amount, digits),
          expectedLoss: formatMinorPlain(expected, digits),
        };
      });
    return {
      offers,
      amount: formatMinorPlain(amount, digits),
      expectedLoss: formatMinorPlain(loss, digits),
      byClass,
    };
  }
}

/** The best (largest) offer of several strategies' decisions, or none. */
function best(decisions: OfferDecision[]): (OfferDecision & { offer: true }) | null {
  let top: (OfferDecision & { offer: true }) | null = null;
  for (const d of decisions) if (d.offer && (!top || d.principal > top.principal)) top = d;
  return top;
}

export type SimulationOptions = { pageSize?: number; signal?: AbortSignal };

/**
 * Runs a queued simulation to the end (the job's work; the bench calls it directly). Fails the
 * simulation (status failed, error) when its version's terms changed since it was queued.
 */
export async function runSimulation(
  db: Db,
  tenantId: string,
  simulationId: string,
  options: SimulationOptions = {},
): Promise<SimulationResults> {
  const started = performance.now();
  const pageSize = options.pageSize ?? PAGE_SIZE;
  const setup = await db.tenant(tenantId, async (tx) => {
    const [sim] = await tx.query<SimulationRow>(`select * from strategy_simulations where id = $1 for update`, [
      simulationId,
    ]);
    if (!sim) throw new PermanentJobError('Simulation not found');
    const [version] = await tx.query<StrategyVersionRow>(
      `select * from strategy_versions where strategy_id = $1 and version = $2 and simulation_id = $3`,
      [sim.strategy_id, sim.strategy_version, sim.id],
    );
    if (!version?.terms) throw new PermanentJobError('The draft’s terms changed since this simulation was queued');
    const draft = await sideOf(tx, sim.strategy_id, version.terms);
    const liveRows = await tx.query<{ id: string; name: string; version: number; terms: StrategyTerms }>(
      `select s.id, s.name, v.version, v.terms from strategies s
         join strategy_versions v on v.strategy_id = s.id and v.version = s.live_version
        where s.status = 'live' and v.terms is not null
        order by s.id`,
    );
    const live: Side[] = [];
    for (const r of liveRows) live.push(await sideOf(tx, r.id, r.terms));
    const rates = await defaultRates(tx);
    const [{ total }] = await tx.query<{ total: number }>(`select count(*)::int as total from customers`);
    await tx.query(
      `update strategy_simulations set status = 'running', started_at = now(), customers_total = $2, customers_done = 0, error = null
        where id = $1`,
      [sim.id, total],
    );
    await tx.query(`delete from strategy_simulation_changes where simulation_id = $1`, [sim.id]);
    const [t] = await tx.query<{ currency: string }>(`select currency from tenants where id = $1`, [tenantId]);
    return {
      sim,
      draft,
      live,
      liveStrategies: liveRows.map((r) => ({ id: r.id, name: r.name, version: r.version })),
      rates,
      total,
      currency: t.currency.trim(),
    };
  });
  const { sim, draft, live, rates } = setup;
  const others = live.filter((s) => s.strategyId !== sim.strategy_id);
  const evaluators = new Map<string, Evaluator>();
  for (const s of [draft, ...live]) evaluators.set(s.evaluator.key, s.evaluator);
  const digits = draft.product.digits_after_decimal;
  const tallies = { draft: new Tally(), live: new Tally(), withDraft: new Tally() };
  let customers = 0;
  let changed = 0;
  const businessDate = String(sim.business_date).slice(0, 10);

  const load = (after: string | null): Promise<DecisionInput[]> =>
    db.tenant(tenantId, (tx) => decisionInputsPage(tx, businessDate, { afterId: after, limit: pageSize }));
  // The next page is read while this one is evaluated (on Postgres the pool runs both at once).
  let next: Promise<DecisionInput[]> = load(null);
  for (;;) {
    if (options.signal?.aborted) throw new Error('Simulation stopped');
    const page = await next;
    if (page.length === 0) break;
    next = page.length < pageSize ? Promise.resolve([]) : load(page[page.length - 1].customer.id);
    next.catch(() => undefined); // a failure surfaces at the next await; never as an unhandled rejection
    // Every distinct model once per customer, all of the page at once.
    const answers = await Promise.all(
      page.map(async (input) => {
        const byKey = new Map<string, Record<string, unknown>>();
        for (const e of evaluators.values()) byKey.set(e.key, await evaluateJdmResult(e.content, input, e.key));
        return byKey;
      }),
    );
    const change = {
      ids: [] as string[],
      live: [] as string[],
      draft: [] as string[],
      liveAmount: [] as (string | null)[],
      draftAmount: [] as (string | null)[],
      riskClass: [] as (string | null)[],
      reason: [] as string[],
    };
    page.forEach((input, i) => {
      const customer = {
        riskClass: input.customer.riskClass,
        segment: input.customer.segment,
        optedIn: input.customer.optedIn,
      };
      const decide = (s: Side) =>
        offerFor(s.terms, s.product, customer, mapOutcome(answers[i].get(s.evaluator.key)!, s.terms.mapping));
      const draftDecision = decide(draft);
      const otherDecisions = others.map(decide);
      const ownLive = live.find((s) => s.strategyId === sim.strategy_id);
      const liveBest = best(ownLive ? [...otherDecisions, decide(ownLive)] : otherDecisions);
      const withDraftBest = best([...otherDecisions, draftDecision]);
      const cls = input.customer.riskClass ?? '';
      if (draftDecision.offer) tallies.draft.add(cls, draftDecision.principal);
      if (liveBest) tallies.live.add(cls, liveBest.principal);
      if (withDraftBest) tallies.withDraft.add(cls, withDraftBest.principal);
      if ((liveBest?.principal ?? null) !== (withDraftBest?.principal ?? null)) {
        change.ids.push(input.customer.id);
        change.live.push(liveBest ? 'offer' : 'none');
        change.draft.push(withDraftBest ? 'offer' : 'none');
        change.liveAmount.push(liveBest ? String(liveBest.principal) : null);
        change.draftAmount.push(withDraftBest ? String(withDraftBest.principal) : null);
        change.riskClass.push(input.customer.riskClass);
        change.reason.push(draftDecision.reason);
      }
    });
    customers += page.length;
    changed += change.ids.length;
    await db.tenant(tenantId, async (tx) => {
      if (change.ids.length)
        await tx.query(
          `insert into strategy_simulation_changes
             (tenant_id, simulation_id, customer_id, live_outcome, draft_outcome, live_amount, draft_amount, risk_class, reason)
           select $1, $2, c.id, c.live, c.draft, c.live_amount, c.draft_amount, c.risk_class, c.reason
             from unnest($3::uuid[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::text[], $9::text[])
               as c(id, live, draft, live_amount, draft_amount, risk_class, reason)`,
          [
            tenantId,
            sim.id,
            change.ids,
            change.live,
            change.draft,
            change.liveAmount,
            change.draftAmount,
            change.riskClass,
            change.reason,
          ],
        );
      await tx.query(
        `update strategy_simulations set customers_done = $2, customers_total = greatest(customers_total, $2) where id = $1`,
        [sim.id, customers],
      );
    });
  }

  const results: SimulationResults = {
    currency: setup.currency,
    digits,
    customers,
    draft: tallies.draft.figures(rates, digits),
    live: tallies.live.figures(rates, digits),
    withDraft: tallies.withDraft.figures(rates, digits),
    defaultRates: [...rates.byClass.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([riskClass, r]) => ({ riskClass, ...r })),
    portfolioRate: rates.portfolio,
    changed,
    liveStrategies: setup.liveStrategies,
    ms: Math.round(performance.now() - started),
  };
  await db.tenant(tenantId, async (tx) => {
    await tx.query(
      `update strategy_simulations set status = 'done', results = $2::jsonb, finished_at = now(), customers_done = $3,
         customers_total = $3 where id = $1`,
      [sim.id, JSON.stringify(results), customers],
    );
    // These exact terms are simulated now (a re-encode since would have cleared simulation_id).
    await tx.query(`update strategy_versions set stage = 'simulated' where simulation_id = $1 and stage = 'encoded'`, [
      sim.id,
    ]);
  });
  return results;
}

async function failSimulation(db: Db, tenantId: string, simulationId: string, error: unknown): Promise<void> {
  const message = error instanceof Error ? error.message : String(error);
  await db.tenant(tenantId, (tx) =>
    tx.query(`update strategy_simulations set status = 'failed', error = $2, finished_at = now() where id = $1`, [
      simulationId,
      message.slice(0, 1000),
    ]),
  );
}

/** Registers the simulation job's handler (idempotent; the commands' module and the job runtime both call it). */
export function registerSimulationJob(): void {
  registerJobHandler(SIMULATION_JOB, async ({ db, tenantId, payload, progress, signal }) => {
    const simulationId = String(payload.simulationId ?? '');
    if (!tenantId || !simulationId) throw new PermanentJobError('strategies.simulate needs a tenant and a simulation');
    try {
      const results = await runSimulation(db, tenantId, simulationId, { signal });
      await progress(results.customers, results.customers);
      return { customers: results.customers, changed: results.changed, ms: results.ms };
    } catch (error) {
      await failSimulation(db, tenantId, simulationId, error).catch(() => undefined);
      throw error instanceof PermanentJobError
        ? error
        : new PermanentJobError(String((error as Error)?.message ?? error));
    }
  });
}
