import { auditActor, recordAudit } from '../audit/record-audit.ts';
import type { Db, Tx } from '../db/index.ts';
import { mapOutcome, recordDecision, type MappedOutcome } from '../decisioning/decisions.ts';
import { decisionInputsPage, type DecisionInput } from '../decisioning/inputs.ts';
import { getVersion } from '../decisioning/models.ts';
import { evaluateJdm } from '../decisioning/zen.ts';
import { AppError } from '../errors/app-error.ts';
import type { Actor } from '../lending/actor.ts';
import { assertUuid } from '../lending/loans.ts';
import { createOffer } from '../lending/offers.ts';
import { getProduct, type ProductRow } from '../lending/products.ts';
import { logger } from '../observability/log.ts';
import { addDays } from '../schedule/dates.ts';
import { classRow, offerFor, strategyTermsSchema, type OfferDecision, type StrategyTerms } from './terms.ts';

/**
 * Origination: every live strategy (or the one named) offers its product to the tenant's customers.
 * For each customer, in keyset pages of the decision input (one transaction per page, never one over
 * the whole tenant), the pinned model version decides, `mapOutcome` reads its answer and `offerFor`
 * (the one way from a model answer to an offer) gives the offer or the reason there is none.
 *
 * Skipped without evaluation: customers already originated for this strategy and business date (the
 * `strategy_originations` row, claimed in the same transaction as the offer: re-running a day makes
 * no duplicate), customers with an open offer (to propose, pending, requested) of this strategy, and
 * opted-out customers.
 *
 * An offer is created through `createOffer` (product limits, audit) linked to the strategy version and
 * its decision (point offer_generation, subject the offer). A refusal is recorded as a decision about
 * the customer (so the profile says why there is no offer), but only once per customer, strategy
 * version and reason (offerFor's reason and the first fired rule, e.g. `model_reject:late`): the same
 * refusal repeated every day adds nothing. Every evaluated customer gets its origination row for the
 * day (offer or refused), with the reason.
 *
 * Force eligibility: an open override of the customer (for this strategy or any) turns a refusal into
 * an offer at the strategy's terms for the customer's class — the model's limit when it gave one, else
 * the class maximum — recorded with the override's reason and author, and the override is used.
 * Opted-out customers are never forced (their consent is not the model's to override).
 */

const PAGE = 500;
const OPEN_OFFER = `('to_propose', 'pending', 'requested')`;

export type OriginationCounts = { created: number; refused: number; skipped: number; forced: number };
/**
 * One strategy's run: `success`, `stopped` (it stopped being live at this version while running; the
 * pages already committed stay) or `failed` (`error` says why; audited as failed, the others went on).
 */
export type StrategyOrigination = {
  strategyId: string;
  version: number;
  counts: OriginationCounts;
  outcome: 'success' | 'stopped' | 'failed';
  error?: string;
};
export type OriginationResult = OriginationCounts & { strategies: StrategyOrigination[] };

const zeroCounts = (): OriginationCounts => ({ created: 0, refused: 0, skipped: 0, forced: 0 });
function addCounts(into: OriginationCounts, from: OriginationCounts): void {
  into.created += from.created;
  into.refused += from.refused;
  into.skipped += from.skipped;
  into.forced += from.forced;
}

type LiveStrategy = { id: string; name: string; status: string; live_version: number | null; terms: unknown };

type Override = { id: string; customer_id: string; strategy_id: string | null; reason: string; created_by: string };

function isDb(x: Db | Tx): x is Db {
  return typeof (x as Db).tenant === 'function';
}

/** The live strategies of the tenant (or the one named), with their implemented version's terms. */
async function liveStrategies(tx: Tx, strategyId?: string): Promise<LiveStrategy[]> {
  return tx.query<LiveStrategy>(
    `select s.id, s.name, s.status, s.live_version, v.terms
       from strategies s
       join strategy_versions v on v.tenant_id = s.tenant_id and v.strategy_id = s.id and v.version = s.live_version
      where s.status = 'live' and v.stage = 'implemented' and v.terms is not null
        and ($1::uuid is null or s.id = $1::uuid)
      order by s.name, s.id`,
    [strategyId ?? null],
  );
}

/** The strategy named by an on-demand origination: unknown → 404, not live → 409. */
export async function assertLiveStrategy(tx: Tx, strategyId: string): Promise<void> {
  assertUuid(strategyId, 'strategyId');
  const rows = await tx.query<{ status: string }>(`select status from strategies where id = $1`, [strategyId]);
  if (!rows[0]) throw new AppError('NOT_FOUND', 'Strategy not found', { field: 'strategyId' });
  if (rows[0].status !== 'live' || !(await liveStrategies(tx, strategyId)).length)
    throw new AppError('CONFLICT', 'Only a live strategy generates offers', {
      field: 'strategyId',
      details: { status: rows[0].status },
    });
}

/**
 * The offer a forced customer gets: the strategy's terms for their class (its own row, else '*', else
 * the first), even when the class is excluded or the segment not targeted, at the model's limit when it
 * gave one (above zero), else the class maximum. Still through offerFor, with the model's answer read
 * as an approval.
 */
export function forcedOfferFor(
  terms: StrategyTerms,
  product: ProductRow,
  customer: { riskClass: string | null },
  mapped: MappedOutcome,
): OfferDecision {
  const row = classRow(terms, customer.riskClass) ?? terms.classes[0];
  const forcedTerms: StrategyTerms = { ...terms, segments: [], classes: [{ ...row, riskClass: '*', excluded: false }] };
  return offerFor(
    forcedTerms,
    product,
    { riskClass: customer.riskClass, segment: null, optedIn: true },
    {
      outcome: 'approve',
      limit: mapped.limit !== null && mapped.limit > 0 ? mapped.limit : null,
      rate: mapped.rate !== null && mapped.rate > 0 ? mapped.rate : null,
    },
  );
}

/**
 * Runs origination for the tenant's live strategies (or `strategyId`) at `businessDate`, over every
 * customer or only `customerIds`. Given a Db it commits each page on its own; given a Tx everything
 * happens in it (seeds, tests, a caller's own transaction). Refuses (404/409) a named strategy that
 * does not exist or is not live.
 *
 * One strategy failing (broken terms, a product gone, a model error) does not stop the others: its
 * failure is audited (`strategy.originate`, outcome failed, with the reason), returned in its
 * `strategies[]` entry, and the run goes on. Given a Db, the pages it committed before failing stay
 * (their customers are done for the day); given a Tx, a savepoint undoes the failed strategy's work.
 */
export async function originate(
  dbOrTx: Db | Tx,
  actor: Actor,
  options: { strategyId?: string; businessDate: string; customerIds?: string[] },
): Promise<OriginationResult> {
  const inTx = <T>(fn: (tx: Tx) => Promise<T>): Promise<T> =>
    isDb(dbOrTx) ? dbOrTx.tenant(actor.tenantId, fn) : fn(dbOrTx);
  // A strategy offers to the whole tenant: whoever starts the run (a strategist limited to a branch,
  // the close) is recorded as its author, but the run is not limited to their branch.
  actor = { ...actor, dataPermissions: undefined };
  const strategies = await inTx(async (tx) => {
    if (options.strategyId) await assertLiveStrategy(tx, options.strategyId);
    return liveStrategies(tx, options.strategyId);
  });
  const result: OriginationResult = { ...zeroCounts(), strategies: [] };
  const tx = isDb(dbOrTx) ? null : dbOrTx;
  for (const strategy of strategies) {
    const counts = zeroCounts();
    const version = strategy.live_version as number;
    let outcome: StrategyOrigination['outcome'] = 'success';
    try {
      if (tx) await tx.query(`savepoint originate_strategy`);
      const terms = strategyTermsSchema.parse(strategy.terms);
      let afterId: string | null = null;
      for (;;) {
        const page: PageResult = await inTx((tx) =>
          originatePage(tx, actor, { strategy: strategy.id, version, terms }, options, afterId),
        );
        // Counted once the page committed (a retried transaction counts again from zero).
        addCounts(counts, page.counts);
        if (page.stopped) {
          outcome = 'stopped';
          break;
        }
        if (!page.last) break;
        afterId = page.last;
      }
      if (tx) await tx.query(`release savepoint originate_strategy`);
    } catch (error) {
      const message = (error instanceof Error ? error.message : String(error)).slice(0, 500);
      if (tx) {
        await tx.query(`rollback to savepoint originate_strategy`);
        Object.assign(counts, zeroCounts()); // undone with the savepoint
      }
      logger.error('origination of a strategy failed', {
        tenant: actor.tenantId,
        strategy: strategy.id,
        error: message,
      });
      await inTx((tx) =>
        recordAudit(tx, {
          ...auditActor(actor),
          action: 'strategy.originate',
          outcome: 'failed',
          reason: message,
          objectType: 'strategy',
          objectId: strategy.id,
          after: { version, businessDate: options.businessDate, ...counts },
        }),
      );
      result.strategies.push({ strategyId: strategy.id, version, counts, outcome: 'failed', error: message });
      addCounts(result, counts);
      continue;
    }
    await inTx((tx) =>
      recordAudit(tx, {
        ...auditActor(actor),
        action: 'strategy.originate',
        outcome: 'success',
        objectType: 'strategy',
        objectId: strategy.id,
        after: {
          version,
          businessDate: options.businessDate,
          ...counts,
          ...(outcome === 'stopped' ? { stopped: 'no_longer_live' } : {}),
        },
      }),
    );
    result.strategies.push({ strategyId: strategy.id, version, counts, outcome });
    addCounts(result, counts);
  }
  return result;
}

/** A page's outcome: the last customer id read (null at the end), its own counts, and whether the strategy stopped being live. */
type PageResult = { last: string | null; counts: OriginationCounts; stopped?: boolean };

/** One page of customers for one strategy, in one transaction. */
async function originatePage(
  tx: Tx,
  actor: Actor,
  s: { strategy: string; version: number; terms: StrategyTerms },
  options: { businessDate: string; customerIds?: string[] },
  afterId: string | null,
): Promise<PageResult> {
  // This page's counts, returned to be added once its transaction committed.
  const counts = zeroCounts();
  const inputs = await decisionInputsPage(tx, options.businessDate, {
    afterId,
    limit: PAGE,
    customerIds: options.customerIds ?? null,
  });
  if (!inputs.length) return { last: null, counts };
  // Two runs of one strategy at once (the close and the button) take turns page by page; the second
  // then finds the first's customers done. Deactivated or replaced by a new version meanwhile: stop.
  const [locked] = await tx.query<{ status: string; live_version: number | null }>(
    `select status, live_version from strategies where id = $1 for update`,
    [s.strategy],
  );
  if (!locked || locked.status !== 'live' || locked.live_version !== s.version)
    return { last: null, counts, stopped: true };
  const ids = inputs.map((i) => i.customer.id);
  // Who is already done today, who has an open offer of this strategy, who has an open override.
  const done = await tx.query<{ customer_id: string }>(
    `select customer_id from strategy_originations where strategy_id = $1 and business_date = $2 and customer_id = any($3::uuid[])`,
    [s.strategy, options.businessDate, ids],
  );
  const open = await tx.query<{ customer_id: string }>(
    `select distinct customer_id from offers where strategy_id = $1 and status in ${OPEN_OFFER} and customer_id = any($2::uuid[])`,
    [s.strategy, ids],
  );
  const overrides = await tx.query<Override>(
    `select id, customer_id, strategy_id, reason, created_by from customer_eligibility_overrides
        where used_at is null and (strategy_id is null or strategy_id = $1) and customer_id = any($2::uuid[])
        order by strategy_id nulls last, created_at, id for update`,
    [s.strategy, ids],
  );
  const refusals = await tx.query<{ customer_id: string; reason: string }>(
    `select distinct customer_id, reason from strategy_originations
        where strategy_id = $1 and strategy_version = $2 and outcome = 'refused' and decision_id is not null
          and customer_id = any($3::uuid[])`,
    [s.strategy, s.version, ids],
  );
  const skip = new Set([...done, ...open].map((r) => r.customer_id));
  const overrideOf = new Map<string, Override>();
  for (const o of overrides) if (!overrideOf.has(o.customer_id)) overrideOf.set(o.customer_id, o);
  const recorded = new Set(refusals.map((r) => `${r.customer_id}|${r.reason}`));

  const product = await getProduct(tx, s.terms.productId);
  const version = await getVersion(tx, s.terms.modelVersionId);
  const rows: {
    customerId: string;
    outcome: 'offer' | 'refused';
    reason: string;
    offerId: string | null;
    decisionId: string | null;
  }[] = [];

  for (const input of inputs) {
    const customerId = input.customer.id;
    if (skip.has(customerId) || !input.customer.optedIn) {
      counts.skipped++;
      continue;
    }
    if (!product.is_active) {
      // An inactive product offers nothing: the customer is refused without evaluation or decision.
      counts.refused++;
      rows.push({ customerId, outcome: 'refused', reason: 'product_inactive', offerId: null, decisionId: null });
      continue;
    }
    const evaluation = await evaluateJdm(version.content, input, version.used_at ? version.id : null);
    const mapped = mapOutcome(evaluation.result, s.terms.mapping);
    let decision = offerFor(s.terms, product, input.customer, mapped);
    const override = overrideOf.get(customerId);
    let forced: Override | null = null;
    if (!decision.offer && override) {
      const forcedDecision = forcedOfferFor(s.terms, product, input.customer, mapped);
      if (forcedDecision.offer) {
        decision = forcedDecision;
        forced = override;
      }
    }
    const evaluated = { ...evaluation, modelId: version.model_id, versionId: version.id, version: version.version };
    const common = {
      point: 'offer_generation' as const,
      customerId,
      evaluation: evaluated,
      inputs: input satisfies DecisionInput,
      outcome: mapped.outcome,
      strategyId: s.strategy,
      strategyVersion: s.version,
      businessDate: options.businessDate,
    };
    if (decision.offer) {
      const offer = await createOffer(tx, actor, {
        customerId,
        productId: product.id,
        principal: decision.principal,
        numberOfRepayments: decision.numberOfRepayments,
        annualInterestRate: decision.annualInterestRate,
        expiresOn: addDays(options.businessDate, s.terms.offerValidityDays),
        strategyId: s.strategy,
        strategyVersion: s.version,
      });
      const recordedDecision = await recordDecision(tx, actor, {
        ...common,
        subjectType: 'offer',
        subjectId: offer.id,
        outcome: forced ? 'approve' : mapped.outcome,
        currency: product.currency,
        limitAmount: decision.principal,
        annualInterestRate: decision.annualInterestRate,
        forcedReason: forced?.reason ?? null,
        forcedBy: forced?.created_by ?? null,
      });
      await tx.query(`update offers set decision_id = $2 where id = $1`, [offer.id, recordedDecision.id]);
      if (forced) {
        await tx.query(`update customer_eligibility_overrides set used_at = now(), used_offer_id = $2 where id = $1`, [
          forced.id,
          offer.id,
        ]);
        await recordAudit(tx, {
          ...auditActor(actor),
          action: 'customer.eligibility.use',
          outcome: 'success',
          objectType: 'customer',
          objectId: customerId,
          before: { overrideId: forced.id, usedAt: null },
          after: { overrideId: forced.id, offerId: offer.id, strategyId: s.strategy, decisionId: recordedDecision.id },
        });
        counts.forced++;
      }
      counts.created++;
      rows.push({
        customerId,
        outcome: 'offer',
        reason: forced ? 'forced' : 'approved',
        offerId: offer.id,
        decisionId: recordedDecision.id,
      });
    } else {
      const rule = evaluation.trace.flatMap((t) => t.rules).find((r) => typeof r._id === 'string')?._id;
      const reason = `${decision.reason}${typeof rule === 'string' ? `:${rule}` : ''}`.slice(0, 200);
      let decisionId: string | null = null;
      if (!recorded.has(`${customerId}|${reason}`)) {
        const refusal = await recordDecision(tx, actor, { ...common, subjectType: 'customer', subjectId: customerId });
        decisionId = refusal.id;
      }
      counts.refused++;
      rows.push({ customerId, outcome: 'refused', reason, offerId: null, decisionId });
    }
  }
  if (rows.length)
    await tx.query(
      `insert into strategy_originations (tenant_id, strategy_id, customer_id, business_date, strategy_version, outcome, offer_id, decision_id, reason)
       select $1, $2, r.customer_id, $3, $4, r.outcome, r.offer_id, r.decision_id, r.reason
         from unnest($5::uuid[], $6::text[], $7::uuid[], $8::uuid[], $9::text[]) as r(customer_id, outcome, offer_id, decision_id, reason)`,
      [
        actor.tenantId,
        s.strategy,
        options.businessDate,
        s.version,
        rows.map((r) => r.customerId),
        rows.map((r) => r.outcome),
        rows.map((r) => r.offerId),
        rows.map((r) => r.decisionId),
        rows.map((r) => r.reason),
      ],
    );
  return { last: inputs.length < PAGE ? null : ids[ids.length - 1], counts };
}
