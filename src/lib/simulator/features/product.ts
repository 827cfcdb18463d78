import type { ProductInput } from '../../lending/products.ts';

/**
 * The part every simulator product input shares: code, name, currency and the principal range, given in
 * whole currency units (the product input takes minor units).
 */
export function simulatorProductBase(
  code: string,
  name: string,
  currency: string,
  digitsAfterDecimal: number,
  principalMajor: { min: bigint; max: bigint },
): Pick<ProductInput, 'code' | 'name' | 'currency' | 'digitsAfterDecimal' | 'minPrincipal' | 'maxPrincipal'> {
  const unit = 10n ** BigInt(digitsAfterDecimal);
  return {
    code,
    name,
    currency,
    digitsAfterDecimal,
    minPrincipal: principalMajor.min * unit,
    maxPrincipal: principalMajor.max * unit,
  };
}

/**
 * The terms the simulator's monthly personal loans share (SIM-EMI, SIM-CRECALC): the cumulative
 * (annuity) schedule on the declining balance, interest counted by the day, monthly installments.
 */
export const monthlyAnnuityTerms = {
  repaymentFrequency: 'MONTHS',
  scheduleType: 'CUMULATIVE',
  interestMethod: 'DECLINING_BALANCE',
  amortization: 'EQUAL_INSTALLMENTS',
  interestCalculationPeriod: 'DAILY',
} satisfies Partial<ProductInput>;
