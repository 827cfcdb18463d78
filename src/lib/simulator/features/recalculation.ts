import type { ProductInput } from '../../lending/products.ts';
import { simulatorProductBase } from './product.ts';

/**
 * Interest recalculation for the simulator (issue 17): the product-terms fragment of a recalculating
 * product, to spread over a `createProduct` input. A progressive, declining-balance product whose
 * repayments recompute the later installments (src/lib/schedule/recalculation.ts): early payers then
 * pay less interest, late payers more, and pay-offs close the loan at the engine's quote.
 *
 * The engine recalculates progressive schedules only (no down payment, no grace), daily rests or
 * rests at the repayment period, without compounding; the fragment sets exactly that.
 */
export const RECALCULATION_PRODUCT_CODE = 'SIM-RECALC';

export const recalculationProductTerms = {
  scheduleType: 'PROGRESSIVE',
  interestMethod: 'DECLINING_BALANCE',
  amortization: 'EQUAL_INSTALLMENTS',
  interestCalculationPeriod: 'DAILY',
  daysInYear: '360',
  daysInMonth: '30',
  downPaymentPercent: null,
  graceOnPrincipalPeriods: 0,
  graceOnInterestPaymentPeriods: 0,
  interestFreePeriods: 0,
  interestRecalculation: true,
  recalculationRestFrequency: 'DAILY',
  recalculationCompounding: 'NONE',
  recalculationRescheduleStrategy: 'ADJUST_LAST_UNPAID_PERIOD',
  preClosureStrategy: 'TILL_PRE_CLOSURE_DATE',
} satisfies Partial<ProductInput>;

/** A whole product input for the simulator's tenant (amounts in the currency's minor units). */
export function recalculationProduct(currency: string, digitsAfterDecimal: number): ProductInput {
  return {
    ...simulatorProductBase(
      RECALCULATION_PRODUCT_CODE,
      'Recalculating EMI (simulation)',
      currency,
      digitsAfterDecimal,
      {
        min: 100n,
        max: 20_000n,
      },
    ),
    minRepayments: 3,
    maxRepayments: 24,
    annualInterestRate: '18',
    repaymentFrequency: 'MONTHS',
    ...recalculationProductTerms,
  };
}
