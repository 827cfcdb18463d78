/**
 * The schedule engine's public surface. Pure functions: no database, no clock, no Astro.
 *
 *   parseTerms(input)                  validates the terms JSON; throws AppError('BAD_REQUEST', …, { field })
 *   parseCalendar(input)               validates an optional { holidays, nonWorkingWeekdays, rule }
 *   generateSchedule(terms, calendar?) the repayment schedule (bigint minor units)
 *   scheduleToJson(schedule)           the contract JSON (decimal strings)
 *   previewSchedule(input)             parse + generate + JSON in one call (CLI and endpoint)
 *   allocatePayment(input)             splits a payment over installments by the product strategy
 *   loanDelinquency(input)             days past due, delinquent days, bucket, installment level
 *   classifyDays(days, ranges)         the range holding a number of delinquent days
 */
export type * from './types.ts';
export { parseTerms, parseCalendar } from './terms.ts';
export { generateSchedule, previewSchedule } from './generator.ts';
export { scheduleToJson } from './json.ts';
export {
  allocatePayment,
  ALLOCATION_STRATEGY_CODES,
  DEFAULT_ADVANCED_ALLOCATION,
  isInterestFirstStrategy,
} from './allocation.ts';
export { loanDelinquency, classifyDays, overdueInstallments, DEFAULT_DELINQUENCY_RANGES } from './delinquency.ts';
export { reAgeInstallments, reAmortizeInstallments, validateReAgeRequest, RE_AGE_FREQUENCIES } from './reage.ts';
export {
  parseCharges,
  applyCharges,
  chargeAmount,
  installmentHolding,
  lastRegularDueDate,
  overduePenaltyOccurrences,
  overduePenaltyAmount,
  chargeMoneyContext,
} from './charges.ts';
export {
  recalculateSchedule,
  preClosureAmount,
  parseRecalculationTerms,
  parseInterestRecalculation,
  recalculatedToJson,
} from './recalculation.ts';
export type {
  InterestRecalculation,
  RecalculatedSchedule,
  RecalculatedInstallment,
  LoanTransactionInput,
  PreClosure,
} from './recalculation.ts';
import './recalculation-cumulative.ts';
