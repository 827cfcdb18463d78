import { addDays, daysBetween, daysInMonthOf, daysInYearOf, makeDate, parts } from './dates.ts';
import { add, type Dec, divSig, fromDouble, fromInt, mul, ONE, roundSig, ZERO } from './decimal.ts';
import type { DaysInMonth, DaysInYear, InterestCalculationPeriod, RepaymentFrequency, RoundingMode } from './types.ts';

/**
 * Interest-rate arithmetic mirrored from Fineract. Fineract rounds intermediate divisions and
 * products to 12 significant digits (MoneyHelper MathContext, precision 12, the configured rounding
 * mode); each `sig()` below sits where Fineract passes that MathContext, and every multiplication
 * without it is exact, as in BigDecimal.multiply(x).
 */
export const PRECISION = 12;

export type RateContext = { mode: RoundingMode };

const HUNDRED = fromInt(100);

function sig(ctx: RateContext, d: Dec): Dec {
  return roundSig(d, PRECISION, ctx.mode);
}

function div(ctx: RateContext, a: Dec, b: Dec): Dec {
  return divSig(a, b, PRECISION, ctx.mode);
}

/** java.time ChronoUnit.MONTHS.between for dates. */
export function monthsBetween(start: string, end: string): number {
  const s = parts(start);
  const e = parts(end);
  let months = (e.year - s.year) * 12 + (e.month - s.month);
  const days = e.day - s.day;
  if (months > 0 && days < 0) months--;
  else if (months < 0 && days > 0) months++;
  return months;
}

/** java.time LocalDate.plusMonths (clamps to the month's last day). */
function plusMonths(date: string, months: number): string {
  const { year, month, day } = parts(date);
  const index = year * 12 + (month - 1) + months;
  const y = Math.floor(index / 12);
  const m = (index % 12) + 1;
  return makeDate(y, m, Math.min(day, daysInMonthOf(y, m)));
}

/**
 * LoanApplicationTerms.calculatePeriodsBetweenDates: whole repayment units plus the remaining days as
 * a fraction of the next unit. The fraction is a Java double ((double) days / daysInPeriod) turned
 * into a decimal with BigDecimal.valueOf, so it carries the double's shortest digits — mirrored here.
 */
export function periodsBetweenDates(start: string, end: string, frequency: RepaymentFrequency, seedDate: string): Dec {
  if (frequency === 'DAYS') return fromDouble(daysBetween(start, end));
  if (frequency === 'WEEKS') {
    const weeks = Math.trunc(daysBetween(start, end) / 7);
    const left = daysBetween(addDays(start, weeks * 7), end);
    return add(fromInt(weeks), fromDouble(left / 7));
  }
  const months = monthsBetween(start, end);
  const from = adjustToSeed(plusMonths(start, months), seedDate);
  const to = adjustToSeed(plusMonths(start, months + 1), seedDate);
  return add(fromInt(months), fromDouble(daysBetween(from, end) / daysBetween(from, to)));
}

/** CalendarUtils.adjustDate for monthly schedules. */
function adjustToSeed(date: string, seedDate: string): string {
  const seedDay = parts(seedDate).day;
  const { year, month, day } = parts(date);
  if (seedDay > 28 && day >= 28) return makeDate(year, month, Math.min(daysInMonthOf(year, month), seedDay));
  return date;
}

export type CumulativeRateTerms = {
  annualRate: Dec;
  frequency: RepaymentFrequency;
  every: number;
  method: InterestCalculationPeriod;
  allowPartialPeriodInterest: boolean;
  daysInYear: DaysInYear;
  daysInMonth: DaysInMonth;
  seedDate: string;
};

/**
 * LoanApplicationTerms.calculatePeriodsInOneYear. Quirk kept on purpose: with DAILY and ACTUAL days
 * in year the divisor is a fixed 365, even in leap years.
 */
export function periodsInOneYear(t: CumulativeRateTerms): number {
  let periods: number;
  if (t.frequency === 'DAYS' && t.daysInYear !== 'ACTUAL') periods = t.daysInYear;
  else periods = t.frequency === 'DAYS' ? 365 : t.frequency === 'WEEKS' ? 52 : 12;
  if (t.method === 'DAILY') periods = t.daysInYear === 'ACTUAL' ? 365 : t.daysInYear;
  return periods;
}

/**
 * LoanApplicationTerms.periodicInterestRate for the cumulative engine.
 * `isForPmt` is the "standard period" used for the annuity: DAYS_30 forced for monthly DAILY rates
 * and the repayment frequency as the period count.
 */
export function cumulativePeriodicRate(
  ctx: RateContext,
  t: CumulativeRateTerms,
  periodStart: string,
  periodEnd: string,
  isForPmt: boolean,
): Dec {
  const perYear = fromInt(periodsInOneYear(t));
  let loanTermFrequency: Dec;
  if (isForPmt) loanTermFrequency = fromInt(t.every);
  else if (t.method === 'DAILY' || t.allowPartialPeriodInterest)
    loanTermFrequency = periodsBetweenDates(periodStart, periodEnd, t.frequency, t.seedDate);
  else loanTermFrequency = fromInt(t.every);

  if (t.method === 'SAME_AS_REPAYMENT_PERIOD') {
    return mul(div(ctx, div(ctx, t.annualRate, perYear), HUNDRED), loanTermFrequency);
  }
  let days = fromInt(daysBetween(periodStart, periodEnd));
  const oneDay = div(ctx, div(ctx, t.annualRate, perYear), HUNDRED);
  const daysInMonth = isForPmt ? 30 : t.daysInMonth;
  if (t.frequency === 'MONTHS' && daysInMonth === 30) days = sig(ctx, mul(loanTermFrequency, fromInt(30)));
  return sig(ctx, mul(oneDay, days));
}

/** Start and end of the "standard period" Fineract uses for the annuity rate (pmtForInstallment). */
export function pmtPeriod(disbursementDate: string, frequency: RepaymentFrequency, every: number): [string, string] {
  const { year, month } = parts(disbursementDate);
  const start = makeDate(year, month, 1);
  const end =
    frequency === 'DAYS'
      ? addDays(start, every)
      : frequency === 'WEEKS'
        ? addDays(start, 7 * every)
        : plusMonths(start, every);
  return [start, end];
}

/**
 * FinanicalFunctions.pmt, in IEEE doubles exactly as Fineract computes it (Java and JS doubles and
 * Math.pow agree for these inputs): the cumulative EMI is BigDecimal.valueOf(this double).
 */
export function pmtDouble(rate: number, periods: number, principal: number): number {
  if (rate === 0) return -(0 + principal) / periods;
  const r1 = rate + 1;
  return ((0 + principal * Math.pow(r1, periods)) * rate) / (1 * (1 - Math.pow(r1, periods)));
}

// ---------------------------------------------------------------------------------------------
// Progressive engine rate factors (ProgressiveEMICalculator)

export type ProgressiveRateTerms = {
  annualRate: Dec;
  frequency: RepaymentFrequency;
  every: number;
  daysInYear: DaysInYear;
  daysInMonth: DaysInMonth;
};

function yearLength(t: ProgressiveRateTerms, date: string): number {
  return t.daysInYear === 'ACTUAL' ? daysInYearOf(parts(date).year) : t.daysInYear;
}

function monthLength(t: ProgressiveRateTerms, date: string): number {
  if (t.daysInMonth === 30) return 30;
  const { year, month } = parts(date);
  return daysInMonthOf(year, month);
}

/** calculatePeriodFractions: days in each calendar year of the period / that year's length, summed. */
function periodFractions(ctx: RateContext, from: string, to: string): Dec {
  let total = ZERO;
  const endYear = parts(to).year;
  let actual = from;
  for (let year = parts(from).year; year <= endYear; year++) {
    const endOfYear = year === endYear ? to : makeDate(year, 12, 31);
    total = sig(ctx, add(total, div(ctx, fromInt(daysBetween(actual, endOfYear)), fromInt(daysInYearOf(year)))));
    actual = endOfYear;
  }
  return total;
}

/**
 * Rate factor of one interest period [from, to] inside the repayment period [periodFrom, periodTo]:
 *   annualRate/100 × (unitDays × every / daysInYear) × interestDays / repaymentDays,
 * where unitDays is days in the month of `from` (monthly), 7 (weekly) or 1 (daily) and daysInYear
 * is taken at `from`. With ACTUAL days in year and a period crossing 31 December, the fraction is the
 * per-year sum instead (calculatePeriodFractions), multiplied by `every`.
 */
export function progressiveRateFactor(
  ctx: RateContext,
  t: ProgressiveRateTerms,
  from: string,
  to: string,
  periodFrom: string,
  periodTo: string,
): Dec {
  const rate = div(ctx, t.annualRate, HUNDRED);
  if (t.daysInYear === 'ACTUAL' && parts(to).year - parts(from).year > 0) {
    const fraction = mul(fromInt(t.every), periodFractions(ctx, from, to));
    return div(ctx, sig(ctx, mul(sig(ctx, mul(rate, fraction)), ONE)), ONE);
  }
  const unitDays = t.frequency === 'MONTHS' ? monthLength(t, from) : t.frequency === 'WEEKS' ? 7 : 1;
  const perPeriod = div(ctx, sig(ctx, mul(fromInt(unitDays), fromInt(t.every))), fromInt(yearLength(t, from)));
  const actualDays = fromInt(daysBetween(from, to));
  const calculatedDays = fromInt(daysBetween(periodFrom, periodTo));
  return div(ctx, sig(ctx, mul(sig(ctx, mul(rate, perPeriod)), actualDays)), calculatedDays);
}
