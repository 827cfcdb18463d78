import type { Tx } from '../db/index.ts';
import type { DecisionsRow } from '../db/schema.generated.ts';
import { AppError } from '../errors/app-error.ts';
import type { Actor } from '../lending/actor.ts';
import { MAX_AMOUNT_MINOR } from '../money/money.ts';
import { markVersionUsed } from './models.ts';
import type { Evaluation, TraceStep } from './zen.ts';

/**
 * Stored decisions: one row per model evaluation that decided something (an application's outcome,
 * a customer's eligibility for an offer), immutable, with the inputs, the model version, the output,
 * the engine's trace and the fired rules in words. Recording a decision marks its model version as
 * used, so the version can never change afterwards.
 */

export const DECISION_POINTS = ['application_submitted', 'offer_generation', 'review'] as const;
export type DecisionPoint = (typeof DECISION_POINTS)[number];
export const OUTCOMES = ['approve', 'refer', 'reject'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/**
 * How a model's output becomes a decision: which output field holds the verdict and which of its
 * values mean approve, refer or reject (anything else is a refer: a person looks at it); which field
 * (if any) holds the limit (major units) and the annual rate (percent).
 */
export type OutcomeMapping = {
  outcomeField: string;
  approve: string[];
  refer: string[];
  reject: string[];
  limitField?: string | null;
  rateField?: string | null;
};
export const DEFAULT_MAPPING: OutcomeMapping = {
  outcomeField: 'decision',
  approve: ['approve', 'approved', 'eligible', 'accept'],
  refer: ['refer', 'review', 'manual'],
  reject: ['reject', 'rejected', 'ineligible', 'decline'],
  limitField: 'limit',
  rateField: 'rate',
};

/** Reads a dotted path (`offer.limit`) in a model result. */
export function pick(result: Record<string, unknown>, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), result);
}

export type MappedOutcome = { outcome: Outcome; limit: number | null; rate: number | null };

/**
 * The largest model limit taken as a limit (major units): above the largest amount any currency can
 * hold ({@link MAX_AMOUNT_MINOR} read at 0 decimals) it caps nothing, so it reads as no limit. This also
 * keeps `limit.toFixed(digits)` a plain decimal (it writes "1e+21" from 10^21 up) wherever a limit is converted.
 */
export const MAX_MODEL_LIMIT = Number(MAX_AMOUNT_MINOR);
/** Rates are stored as numeric(9, 6): a model rate of 1000 % or more is no rate (the product's applies). */
export const MAX_MODEL_RATE_EXCLUSIVE = 1000;

export function mapOutcome(result: Record<string, unknown>, mapping: OutcomeMapping = DEFAULT_MAPPING): MappedOutcome {
  const raw = pick(result, mapping.outcomeField);
  const value =
    typeof raw === 'boolean'
      ? raw
        ? 'approve'
        : 'reject'
      : String(raw ?? '')
          .trim()
          .toLowerCase();
  const inList = (list: string[]) => list.some((v) => v.trim().toLowerCase() === value);
  const outcome: Outcome = inList(mapping.approve) ? 'approve' : inList(mapping.reject) ? 'reject' : 'refer';
  const num = (field: string | null | undefined) => {
    if (!field) return null;
    const v = pick(result, field);
    const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
    return Number.isFinite(n) && n >= 0 ? n : null;
  };
  const limit = num(mapping.limitField);
  const rate = num(mapping.rateField);
  return {
    outcome,
    limit: limit !== null && limit <= MAX_MODEL_LIMIT ? limit : null,
    // Rounded to the 6 decimals a rate keeps; 1000 % or more is not a rate.
    rate: rate !== null && rate < MAX_MODEL_RATE_EXCLUSIVE ? Math.round(rate * 1e6) / 1e6 : null,
  };
}

/** One fired rule in words: the node, the rule's description (or its conditions) and what it set. */
export type Reason = {
  node: string;
  ruleId: string | null;
  text: string;
  conditions: { field: string; test: string }[];
};

/** The rules that fired, from the engine's trace (decision tables report the rule they matched). */
export function reasonsFromTrace(trace: TraceStep[]): Reason[] {
  const reasons: Reason[] = [];
  for (const step of trace) {
    for (const rule of step.rules) {
      const conditions: { field: string; test: string }[] = [];
      for (const [key, value] of Object.entries(rule)) {
        if (key.startsWith('_') || typeof value !== 'string' || !value.trim()) continue;
        conditions.push({ field: key.replace(/\[[^\]]*\]$/, ''), test: value });
      }
      const description =
        typeof rule._description === 'string' && rule._description.trim() ? rule._description.trim() : null;
      reasons.push({
        node: step.name,
        ruleId: typeof rule._id === 'string' ? rule._id : null,
        text:
          description ??
          (conditions.length ? conditions.map((c) => `${c.field} ${c.test}`).join(', ') : 'default rule'),
        conditions,
      });
    }
  }
  return reasons;
}

export type DecisionRow = Omit<DecisionsRow, 'point' | 'subject_type' | 'outcome' | 'reasons'> & {
  point: DecisionPoint;
  subject_type: 'application' | 'customer' | 'offer';
  outcome: Outcome;
  reasons: Reason[];
};

export type NewDecision = {
  point: DecisionPoint;
  subjectType: 'application' | 'customer' | 'offer';
  subjectId: string;
  customerId: string;
  evaluation: Evaluation & { modelId: string; versionId: string; version: number };
  inputs: unknown;
  outcome: Outcome;
  currency?: string | null;
  /** Minor units. */
  limitAmount?: bigint | null;
  annualInterestRate?: string | null;
  bindingId?: string | null;
  strategyId?: string | null;
  strategyVersion?: number | null;
  forcedReason?: string | null;
  /** Who forced it (the override's author); default the actor. */
  forcedBy?: string | null;
  businessDate: string;
};

export async function recordDecision(tx: Tx, actor: Actor, d: NewDecision): Promise<DecisionRow> {
  await markVersionUsed(tx, d.evaluation.versionId);
  const [row] = await tx.query<DecisionRow>(
    `insert into decisions (tenant_id, point, subject_type, subject_id, customer_id, model_id, model_version_id, model_version,
       binding_id, strategy_id, strategy_version, inputs, output, trace, reasons, outcome, currency, limit_amount,
       annual_interest_rate, forced_by, forced_reason, business_date, created_by)
     values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12::jsonb,$13::jsonb,$14::jsonb,$15::jsonb,$16,$17,$18,$19,$20,$21,$22,$23)
     returning *`,
    [
      actor.tenantId,
      d.point,
      d.subjectType,
      d.subjectId,
      d.customerId,
      d.evaluation.modelId,
      d.evaluation.versionId,
      d.evaluation.version,
      d.bindingId ?? null,
      d.strategyId ?? null,
      d.strategyVersion ?? null,
      JSON.stringify(d.inputs ?? {}),
      JSON.stringify(d.evaluation.result),
      JSON.stringify(d.evaluation.trace),
      JSON.stringify(reasonsFromTrace(d.evaluation.trace)),
      d.outcome,
      d.currency ?? null,
      d.limitAmount ?? null,
      d.annualInterestRate ?? null,
      d.forcedReason ? (d.forcedBy ?? actor.userId) : null,
      d.forcedReason ?? null,
      d.businessDate,
      actor.userId,
    ],
  );
  return row;
}

/** Decisions about one subject (an application, an offer) or one customer, newest first. */
export async function listDecisions(
  tx: Tx,
  filter: { subjectType: 'application' | 'customer' | 'offer'; subjectId: string } | { customerId: string },
  limit = 50,
): Promise<(DecisionRow & { model_name: string })[]> {
  const bySubject = 'subjectId' in filter;
  const id = bySubject ? filter.subjectId : filter.customerId;
  if (!/^[0-9a-f-]{36}$/i.test(id)) throw new AppError('NOT_FOUND', 'Not found');
  return tx.query(
    `select d.*, m.name as model_name from decisions d join decision_models m on m.tenant_id = d.tenant_id and m.id = d.model_id
      where ${bySubject ? 'd.subject_type = $1 and d.subject_id = $2' : '$1::text is null and d.customer_id = $2'}
      order by d.created_at desc, d.id limit $3`,
    [bySubject ? filter.subjectType : null, id, limit],
  );
}
