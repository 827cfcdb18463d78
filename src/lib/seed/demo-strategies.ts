import type { Db, Tx } from '../db/index.ts';
import { createModel, markVersionUsed } from '../decisioning/models.ts';
import { demoPolicyModel, demoPolicyTestCases } from '../decisioning/samples.ts';
import type { Actor } from '../lending/actor.ts';
import { originate } from '../strategies/origination.ts';
import { strategyTermsSchema, type StrategyTerms } from '../strategies/terms.ts';
import { businessDate } from '../tenancy/tenant.ts';

/**
 * Demo strategies, written as rows: the strategy lifecycle's commands (requested → encoded →
 * simulated → validated by the provider and by the client → implemented) live on another branch of
 * issue 12, so the seed writes the data that lifecycle would leave — both signatures by two different
 * people, and a finished simulation row inserted directly (its figures empty: "seeded, not computed").
 * Replace these with the lifecycle commands once they exist.
 */

export type SeedSigners = { strategist: string; provider: string };

/** The demo credit policy as a decision model ("Demo credit policy", with its test cases). */
export async function seedDemoPolicyModel(tx: Tx, actor: Actor, name = 'Demo credit policy') {
  return createModel(tx, actor, {
    name,
    kind: 'table',
    description: 'First-hit table over days past due, write-offs, debt-service ratio and income.',
    content: demoPolicyModel(),
    testCases: demoPolicyTestCases(),
  });
}

/** Terms offering one product under the demo policy: every class at `maxPrincipal` over 12 months. */
export function demoTerms(modelId: string, modelVersionId: string, productId: string, maxPrincipal = '8000') {
  return strategyTermsSchema.parse({
    modelId,
    modelVersionId,
    productId,
    offerValidityDays: 30,
    classes: [{ riskClass: '*', maxPrincipal, numberOfRepayments: 12, annualInterestRate: null }],
  });
}

/**
 * A live strategy as the lifecycle leaves it: version 1 implemented and validated live, signed by the
 * strategist (client) and the provider, with a finished simulation. Returns its id.
 */
export async function seedLiveStrategyRows(
  tx: Tx,
  tenantId: string,
  input: { name: string; description?: string; terms: StrategyTerms; signers: SeedSigners; businessDate: string },
): Promise<string> {
  const { strategist, provider } = input.signers;
  const [strategy] = await tx.query<{ id: string }>(
    `insert into strategies (tenant_id, name, description, status, live_version, requested_by)
     values ($1, $2, $3, 'live', 1, $4) returning id`,
    [tenantId, input.name, input.description ?? '', strategist],
  );
  const [simulation] = await tx.query<{ id: string }>(
    `insert into strategy_simulations (tenant_id, strategy_id, strategy_version, status, business_date, results, requested_by, started_at, finished_at)
     values ($1, $2, 1, 'done', $3, '{"seeded": true}'::jsonb, $4, now(), now()) returning id`,
    [tenantId, strategy.id, input.businessDate, provider],
  );
  await tx.query(
    `insert into strategy_versions (tenant_id, strategy_id, version, stage, request_note, terms, encoded_by, encoded_at, simulation_id,
       provider_validated_by, provider_validated_at, client_validated_by, client_validated_at, implemented_by, implemented_at,
       live_validated_by, live_validated_at)
     values ($1, $2, 1, 'implemented', 'Seeded demo strategy', $3::jsonb, $4, now(), $5, $4, now(), $6, now(), $6, now(), $4, now())`,
    [tenantId, strategy.id, JSON.stringify(input.terms), provider, simulation.id, strategist],
  );
  // As encoding and implementing do: the live strategy's model version is immutable from now on.
  await markVersionUsed(tx, input.terms.modelVersionId);
  return strategy.id;
}

/** A draft strategy, encoded and waiting for its simulation. Returns its id. */
export async function seedDraftStrategyRows(
  tx: Tx,
  tenantId: string,
  input: { name: string; description?: string; terms: StrategyTerms; signers: SeedSigners },
): Promise<string> {
  const [strategy] = await tx.query<{ id: string }>(
    `insert into strategies (tenant_id, name, description, status, requested_by) values ($1, $2, $3, 'draft', $4) returning id`,
    [tenantId, input.name, input.description ?? '', input.signers.strategist],
  );
  await tx.query(
    `insert into strategy_versions (tenant_id, strategy_id, version, stage, request_note, terms, encoded_by, encoded_at)
     values ($1, $2, 1, 'encoded', 'Seeded draft: waiting for its simulation', $3::jsonb, $4, now())`,
    [tenantId, strategy.id, JSON.stringify(input.terms), input.signers.provider],
  );
  await markVersionUsed(tx, input.terms.modelVersionId); // encoded terms pin their version, as encoding does
  return strategy.id;
}

/**
 * The demo tenant's strategies: the "Demo credit policy" model, a live strategy offering the monthly
 * personal loan (SIM-EMI) by risk class, a draft strategy encoded and waiting for its simulation, and
 * the live strategy's first origination at the business date (so the demo offers carry a strategy, a
 * decision and its why). Signed by the demo strategist (client) and provider; a tenant without both
 * gets the model only. Returns the live strategy's id (null when none).
 */
export async function seedDemoStrategies(db: Db, tenantId: string): Promise<string | null> {
  const seeded = await db.tenant(tenantId, async (tx) => {
    const users = await tx.query<{ id: string; email: string }>(
      `select id, email from users where email like 'strategist@%' or email like 'provider@%' or email like 'admin@%' order by email`,
    );
    const byPrefix = (p: string) => users.find((u) => u.email.startsWith(p))?.id ?? null;
    const admin = byPrefix('admin@');
    const strategist = byPrefix('strategist@');
    const provider = byPrefix('provider@');
    if (!admin) return null;
    const actor: Actor = { tenantId, userId: admin, isAdmin: true, kind: 'system' };
    const { model, version } = await seedDemoPolicyModel(tx, actor);
    const [product] = await tx.query<{
      id: string;
      currency: string;
      max_principal: bigint;
      digits_after_decimal: number;
    }>(
      `select id, currency, max_principal, digits_after_decimal from loan_products
        where is_active and repayment_frequency = 'MONTHS' order by (code = 'SIM-EMI') desc, code limit 1`,
    );
    if (!product || !strategist || !provider) return null;
    const signers = { strategist, provider };
    const base = demoTerms(model.id, version.id, product.id);
    const terms: StrategyTerms = {
      ...base,
      classes: [
        { riskClass: 'A', maxPrincipal: '12000', numberOfRepayments: 24, annualInterestRate: null, excluded: false },
        { riskClass: 'B', maxPrincipal: '8000', numberOfRepayments: 18, annualInterestRate: null, excluded: false },
        { riskClass: 'C', maxPrincipal: '4000', numberOfRepayments: 12, annualInterestRate: '16', excluded: false },
        { riskClass: 'D', maxPrincipal: '1000', numberOfRepayments: 6, annualInterestRate: null, excluded: true },
        { riskClass: '*', maxPrincipal: '3000', numberOfRepayments: 12, annualInterestRate: null, excluded: false },
      ],
    };
    const today = await businessDate(tx, tenantId);
    const live = await seedLiveStrategyRows(tx, tenantId, {
      name: 'Personal loans — core',
      description: 'Pre-approved personal loans for customers with a regular income, by risk class.',
      terms,
      signers,
      businessDate: today,
    });
    await seedDraftStrategyRows(tx, tenantId, {
      name: 'Personal loans — young professionals',
      description: 'Draft: a larger limit for salaried customers under 35, waiting for its simulation.',
      terms: { ...terms, segments: ['salaried'] },
      signers,
    });
    return { live, actor, today };
  });
  if (!seeded) return null;
  await originate(db, seeded.actor, { strategyId: seeded.live, businessDate: seeded.today });
  return seeded.live;
}
