/**
 * The portfolio measures' arithmetic (documented in src/lib/analytics/README.md, "Portfolio and risk"):
 * days-past-due bands, PAR and the annualised yield. Pure functions; money stays bigint minor units.
 */

/** The PAR thresholds the boards show: PARn counts loans more than n days past due (PAR1: more than 0). */
export const PAR_DAYS = [1, 30, 60, 90] as const;
export type ParDays = (typeof PAR_DAYS)[number];

/**
 * The days-past-due band of a month-end fact: 0 = current (and every loan not active), 1 = 1–30,
 * 2 = 31–60, 3 = 61–90, 4 = 91+. The SQL of the month-end writer uses the same bounds (`DPD_BAND_SQL`).
 */
export function dpdBand(pastDueDays: number, isActive = true): 0 | 1 | 2 | 3 | 4 {
  if (!isActive || pastDueDays <= 0) return 0;
  if (pastDueDays <= 30) return 1;
  if (pastDueDays <= 60) return 2;
  if (pastDueDays <= 90) return 3;
  return 4;
}

/** Days past due a loan must exceed to be in PARn: 0 for PAR1, n otherwise. */
export function parThreshold(days: ParDays): number {
  return days === 1 ? 0 : days;
}

/** The bands counted by PARn: more than n days past due (PAR1: more than 0). */
export function parMinBand(days: ParDays): 1 | 2 | 3 | 4 {
  return days === 1 ? 1 : days === 30 ? 2 : days === 60 ? 3 : 4;
}

/** A share as a fraction rounded to 1/10,000 (0.0123 = 1.23 %), or null when the whole is zero. */
export function ratio(part: bigint, whole: bigint): number | null {
  if (whole <= 0n) return null;
  return Number((part * 10_000n + whole / 2n) / whole) / 10_000;
}

/** PARn = principal outstanding of active loans more than n days past due / total principal outstanding. */
export function parRate(atRisk: bigint, outstandingPrincipal: bigint): number | null {
  return ratio(atRisk, outstandingPrincipal);
}

/**
 * Annualised portfolio yield over k months: the interest, fees and penalties collected in those
 * months divided by the average of the k month-end principal outstanding balances, times 12 / k.
 * Null when there is no month or no outstanding to divide by.
 */
export function annualisedYield(income: bigint, monthEndOutstanding: readonly bigint[]): number | null {
  const k = monthEndOutstanding.length;
  if (k === 0) return null;
  const sum = monthEndOutstanding.reduce((a, b) => a + b, 0n);
  if (sum <= 0n) return null;
  // income / (sum / k) × 12 / k = income × 12 / sum
  return ratio(income * 12n, sum);
}
