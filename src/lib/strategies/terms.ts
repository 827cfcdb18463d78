import { z } from 'zod';
import type { MappedOutcome, OutcomeMapping } from '../decisioning/decisions.ts';
import { DEFAULT_MAPPING, MAX_MODEL_LIMIT, MAX_MODEL_RATE_EXCLUSIVE } from '../decisioning/decisions.ts';
import type { ProductRow } from '../lending/products.ts';
import { decodeMinor } from '../money/money.ts';

/**
 * A strategy version's terms: which decision model version decides, how its output reads, which
 * product is offered, to whom, and the limits and pricing by risk class. One function
 * (`offerFor`) turns a model's answer into an offer, used by the simulation and by origination alike.
 */
const decimal = z.string().regex(/^\d{1,13}(\.\d{1,6})?$/, 'a decimal number such as 5000 or 12.5');

/** A rate in percent as offers store it (numeric(9, 6)): the rule of submit-application. */
const rate = z.string().regex(/^\d{1,3}(\.\d{1,6})?$/, 'a rate in percent below 1000, such as 12.5');

const classTerms = z.object({
  /** The customer's risk class this row prices ('*' = any class without its own row). */
  riskClass: z.string().trim().min(1).max(40),
  /** The most this class is offered (major units); the model's limit and the product's maximum cap it too. */
  maxPrincipal: decimal,
  numberOfRepayments: z.number().int().min(1).max(600),
  /** Annual rate in percent; null = the model's rate, else the product's. */
  annualInterestRate: rate.nullable(),
  /** Refuse this class outright. */
  excluded: z.boolean().default(false),
});

export const strategyTermsSchema = z.object({
  modelId: z.uuid(),
  modelVersionId: z.uuid(),
  mapping: z
    .object({
      outcomeField: z.string().trim().min(1).max(100),
      approve: z.array(z.string().max(60)).max(20),
      refer: z.array(z.string().max(60)).max(20),
      reject: z.array(z.string().max(60)).max(20),
      limitField: z.string().trim().max(100).nullable().optional(),
      rateField: z.string().trim().max(100).nullable().optional(),
    })
    .default(DEFAULT_MAPPING),
  productId: z.uuid(),
  /** Days an offer stays open. */
  offerValidityDays: z.number().int().min(1).max(365),
  /** Only customers of these segments (empty = every segment). */
  segments: z.array(z.string().trim().min(1).max(60)).max(50).default([]),
  /** Customers opted out never get an offer; a customer with an open offer of this strategy gets no second one. */
  classes: z.array(classTerms).min(1).max(50),
});
export type StrategyTerms = z.infer<typeof strategyTermsSchema>;
export type ClassTerms = z.infer<typeof classTerms>;

export type OfferDecision =
  | { offer: true; principal: bigint; numberOfRepayments: number; annualInterestRate: string; reason: string }
  | { offer: false; reason: string };

/** The row of the terms for a risk class: its own, else '*', else none. */
export function classRow(terms: StrategyTerms, riskClass: string | null): ClassTerms | null {
  return (
    terms.classes.find((c) => riskClass !== null && c.riskClass === riskClass) ??
    terms.classes.find((c) => c.riskClass === '*') ??
    null
  );
}

/**
 * The offer a customer gets under these terms, from the model's mapped answer: only an approve
 * gives an offer; the amount is the least of the model's limit, the class maximum and the product
 * maximum, rounded down to whole currency units, and must reach the product's minimum; the rate is
 * the class rate, else the model's, else the product's; the term is the class term within the product's range.
 * The model's limit and rate come through `mapOutcome`, which already dropped a limit no currency can
 * hold (no limit: the class and product maxima cap) and a rate of 1000 % or more (the product's rate
 * applies), and rounded the rate to 6 decimals, so both convert safely here.
 */
export function offerFor(
  terms: StrategyTerms,
  product: ProductRow,
  customer: { riskClass: string | null; segment: string | null; optedIn: boolean },
  mapped: MappedOutcome,
): OfferDecision {
  if (!customer.optedIn) return { offer: false, reason: 'opted_out' };
  if (terms.segments.length && (!customer.segment || !terms.segments.includes(customer.segment)))
    return { offer: false, reason: 'segment' };
  const row = classRow(terms, customer.riskClass);
  if (!row || row.excluded) return { offer: false, reason: 'risk_class' };
  if (mapped.outcome !== 'approve') return { offer: false, reason: `model_${mapped.outcome}` };
  const digits = product.digits_after_decimal;
  let cap = decodeMinor(row.maxPrincipal, digits);
  if (mapped.limit !== null && mapped.limit <= MAX_MODEL_LIMIT) {
    const modelLimit = decodeMinor(mapped.limit.toFixed(digits), digits);
    if (modelLimit < cap) cap = modelLimit;
  }
  if (product.max_principal < cap) cap = product.max_principal;
  const unit = 10n ** BigInt(digits);
  cap -= cap % unit; // whole currency units: an offer of 5234.57 reads as a computation, not a limit
  if (cap < product.min_principal) return { offer: false, reason: 'limit_below_minimum' };
  const rate =
    row.annualInterestRate ??
    (mapped.rate !== null && mapped.rate < MAX_MODEL_RATE_EXCLUSIVE
      ? mapped.rate.toFixed(6)
      : product.annual_interest_rate);
  const n = Math.min(Math.max(row.numberOfRepayments, product.min_repayments), product.max_repayments);
  return { offer: true, principal: cap, numberOfRepayments: n, annualInterestRate: String(rate), reason: 'approved' };
}

export type { OutcomeMapping };
