import type { ProductFee, ProductPenalty } from '../../lending/product-admin.ts';

/**
 * Charge definitions the simulator gives a product (issue 17), so the demo and the large runs
 * exercise charges end to end: a disbursement fee (collected out of the disbursed funds by
 * disburseLoan, a REPAYMENT_AT_DISBURSEMENT transaction) and an overdue penalty that the daily close
 * charges (src/lib/close/penalties.ts), here a percentage of the overdue principal and interest after
 * a grace period, recurring every `recurEveryWeeks` weeks when given.
 *
 * Merge the result into the product input: `{ ...input, ...simulatorCharges({ ... }) }`. The
 * penalties replace the product's own list; pass `keepPenalties` to add to it instead.
 */
export type SimulatorChargeOptions = {
  /** Disbursement fee, percent of the principal (default "1"). */
  disbursementFeePercent?: string;
  /** Overdue penalty, percent of the installment's overdue principal + interest (default "2"). */
  penaltyPercent?: string;
  /** Days an installment may be overdue before the penalty (default 3). */
  graceDays?: number;
  /** Charge the penalty again every this many weeks while overdue; default once. */
  recurEveryWeeks?: number;
  /** Penalties the product already has, kept before the new one. */
  keepPenalties?: unknown[];
};

export function simulatorCharges(options: SimulatorChargeOptions = {}): { fees: ProductFee[]; penalties: unknown[] } {
  const fee: ProductFee = {
    code: 'SIM-OPEN',
    name: 'Opening fee',
    timing: 'DISBURSEMENT',
    calculation: 'PERCENT_OF_AMOUNT',
    amount: options.disbursementFeePercent ?? '1',
  };
  const penalty: ProductPenalty = {
    code: 'SIM-OVERDUE',
    name: 'Overdue penalty',
    kind: 'PERCENT_OF_OVERDUE_PRINCIPAL_AND_INTEREST',
    trigger: 'OVERDUE',
    percent: options.penaltyPercent ?? '2',
    graceDays: options.graceDays ?? 3,
    ...(options.recurEveryWeeks ? { frequency: 'WEEKS' as const, interval: options.recurEveryWeeks } : {}),
  };
  return { fees: [fee], penalties: [...(options.keepPenalties ?? []), penalty] };
}
