import type { ProductInput } from '../../lending/products.ts';
import { monthlyAnnuityTerms, simulatorProductBase } from './product.ts';

/**
 * Cumulative interest recalculation for the simulator (issue 17): a monthly personal loan on the
 * cumulative (Fineract "cumulative") schedule, declining balance, whose interest is recomputed from
 * the balance of every day (DAILY rest) with unpaid interest compounded into the balance on each due
 * date (src/lib/schedule/recalculation-cumulative.ts). A repayment ahead of time lowers the next
 * installments (REDUCE_EMI_AMOUNT); a late one costs interest on interest. Pay-offs close the loan at
 * the engine's pre-closure quote.
 *
 * The cumulative recalculation takes no grace and no charge that depends on the loan's interest; the
 * product has neither (and no late fee: lateness already costs compounded interest).
 */
export const CUMULATIVE_RECALCULATION_PRODUCT_CODE = 'SIM-CRECALC';

/** A whole product input for the simulator's tenant (amounts in the currency's minor units). */
export function cumulativeRecalculationProduct(currency: string, digitsAfterDecimal: number): ProductInput {
  return {
    ...simulatorProductBase(
      CUMULATIVE_RECALCULATION_PRODUCT_CODE,
      'Personal loan — daily interest, compounded (simulation)',
      currency,
      digitsAfterDecimal,
      { min: 500n, max: 20_000n },
    ),
    minRepayments: 3,
    maxRepayments: 24,
    defaultRepayments: 12,
    annualInterestRate: '18',
    ...monthlyAnnuityTerms,
    daysInYear: '365',
    daysInMonth: 'ACTUAL',
    graceOnArrearsAgeing: 3,
    interestRecalculation: true,
    recalculationRestFrequency: 'DAILY',
    recalculationRestInterval: 1,
    recalculationCompounding: 'INTEREST',
    recalculationCompoundingFrequency: 'SAME_AS_REPAYMENT_PERIOD',
    recalculationCompoundingInterval: 1,
    recalculationRescheduleStrategy: 'REDUCE_EMI_AMOUNT',
    preClosureStrategy: 'TILL_PRE_CLOSURE_DATE',
  };
}
