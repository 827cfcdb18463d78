import { describe, expect, it } from 'vitest';
import { annualisedYield, dpdBand, parMinBand, parRate, parThreshold, ratio } from './portfolio-math.ts';

describe('portfolio maths', () => {
  it('puts days past due into the bands of the facts (0, 1–30, 31–60, 61–90, 91+)', () => {
    expect([0, 1, 30, 31, 60, 61, 90, 91, 400].map((d) => dpdBand(d))).toEqual([0, 1, 1, 2, 2, 3, 3, 4, 4]);
    expect(dpdBand(120, false)).toBe(0);
    expect(dpdBand(-3)).toBe(0);
  });

  it('counts in PARn the bands strictly beyond n days', () => {
    expect([1, 30, 60, 90].map((d) => parMinBand(d as 1 | 30 | 60 | 90))).toEqual([1, 2, 3, 4]);
    // A loan 30 days late is in PAR1, not PAR30; 31 days: both.
    expect(dpdBand(30) >= parMinBand(30)).toBe(false);
    expect(dpdBand(31) >= parMinBand(30)).toBe(true);
  });

  it('divides the principal at risk by the principal outstanding, rounded to 1/10,000', () => {
    expect(parRate(25_000n, 100_000n)).toBe(0.25);
    expect(parRate(1n, 3n)).toBe(0.3333);
    expect(parRate(2n, 3n)).toBe(0.6667);
    expect(parRate(0n, 100n)).toBe(0);
    expect(parRate(0n, 0n)).toBeNull();
    expect(ratio(5n, 0n)).toBeNull();
  });

  it('annualises the yield: income over the average month-end outstanding, times 12 / months', () => {
    // 3 months, average outstanding 1,000.00, income 30.00 → 3 % a quarter → 12 % a year.
    expect(annualisedYield(3_000n, [90_000n, 100_000n, 110_000n])).toBe(0.12);
    // One month: 10.00 collected on 1,000.00 → 1 % a month → 12 %.
    expect(annualisedYield(1_000n, [100_000n])).toBe(0.12);
    // Twelve equal months of 1 %.
    expect(annualisedYield(12_000n, Array(12).fill(100_000n))).toBe(0.12);
    expect(annualisedYield(500n, [])).toBeNull();
    expect(annualisedYield(500n, [0n, 0n])).toBeNull();
  });
});

describe('PAR thresholds', () => {
  it('agree with the bands: a loan is in PARn exactly when its band is at least parMinBand(n)', () => {
    for (const n of [1, 30, 60, 90] as const)
      for (let d = 0; d <= 200; d++) expect(d > parThreshold(n)).toBe(dpdBand(d) >= parMinBand(n));
  });
});
