import type { ProductInput } from '../../lending/products.ts';
import type { Rng } from '../prng.ts';
import type { LoanPlan } from '../simulate.ts';
import { bnplProduct } from './reage.ts';

/**
 * Fixed length for the simulator (issue 17): a "pay in four" whose term is a number of days rather
 * than a number of periods (Fineract `fixedLength`, progressive and interest-free only). The merchant
 * promises "paid off within 40 days": the down payment at purchase, then installments every 15 days,
 * the last one on day 40 instead of day 45. The engine shortens the last period
 * (src/lib/schedule/fixed.ts); repayments, penalties and the close treat it as any other loan.
 */
export const FIXED_LENGTH_PRODUCT_CODE = 'SIM-BNPL40';
export const FIXED_LENGTH_DAYS = 40;

/** A whole product input for the simulator's tenant: SIM-BNPL with a 40-day fixed length. */
export function fixedLengthProduct(currency: string, digitsAfterDecimal: number): ProductInput {
  return {
    ...bnplProduct(currency, digitsAfterDecimal),
    code: FIXED_LENGTH_PRODUCT_CODE,
    name: 'Pay in four within 40 days — interest-free',
    fixedLength: FIXED_LENGTH_DAYS,
  };
}

/**
 * Pure and deterministic, from its own random stream: a third of the "pay in four" purchases that no
 * re-age is planned for are taken on the fixed-length product instead; the borrowers keep their
 * behaviour (on time, late, defaulted, paid early).
 */
export function planFixedLength(rng: Rng, plans: LoanPlan[]): void {
  for (const plan of plans) {
    if (plan.product !== 'bnpl' || plan.reAge !== undefined || !rng.chance(1 / 3)) continue;
    plan.product = 'bnplFixed';
  }
}
