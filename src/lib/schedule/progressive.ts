import {
  abs,
  add,
  cmp,
  type Dec,
  divScale,
  divSig,
  fromInt,
  fromMinor,
  isZero,
  mul,
  ONE,
  parseDec,
  roundSig,
  signum,
  sub,
} from './decimal.ts';
import { dueDateSequence } from './due-dates.ts';
import { downPaymentAmount, row } from './cumulative.ts';
import { applyFixedLength } from './fixed.ts';
import { minus, roundMoney, type MoneyContext, plus, roundToMultiple, zero } from './fineract-money.ts';
import { PRECISION, progressiveRateFactor, type ProgressiveRateTerms } from './rates.ts';
import type { ScheduleInstallment, ScheduleTerms, WorkingCalendar } from './types.ts';

/**
 * The progressive generator: ProgressiveLoanScheduleGenerator + ProgressiveEMICalculator.
 * Repayment periods run from the schedule start; the (single) disbursement splits the first period
 * into interest periods: [start, disbursement] on a zero balance, then [disbursement, due]. Every
 * product and quotient uses MathContext(12); interest per interest period is balance × rate
 * factor rounded to the currency.
 */

export type InterestPeriod = { from: string; to: string; rateFactor: Dec; disbursement: Dec };
export type Period = { from: string; due: string; interestPeriods: InterestPeriod[]; rateFactorPlus1: Dec };
type Walked = { interest: Dec; principal: Dec; balanceAfter: Dec }[];

function sig(d: Dec, ctx: MoneyContext): Dec {
  return roundSig(d, PRECISION, ctx.mode);
}

/** Interest and principal of each period for the given EMIs (RepaymentPeriod/InterestPeriod getters). */
export function walk(ctx: MoneyContext, periods: Period[], emis: Dec[]): Walked {
  const out: Walked = [];
  let carry = zero(ctx);
  let unrecognized = zero(ctx);
  periods.forEach((period, i) => {
    let balance = carry;
    let calculatedInterest = zero(ctx);
    period.interestPeriods.forEach((ip, j) => {
      if (j > 0) balance = plus(ctx, balance, period.interestPeriods[j - 1].disbursement);
      calculatedInterest = plus(ctx, calculatedInterest, roundMoney(ctx, mul(balance, ip.rateFactor)));
    });
    calculatedInterest = plus(ctx, calculatedInterest, unrecognized);
    const last = period.interestPeriods[period.interestPeriods.length - 1];
    const endBalance = plus(ctx, balance, last.disbursement);
    const calculatedPrincipal = minus(ctx, emis[i], calculatedInterest);
    // RepaymentPeriod.getDueInterest: with nothing paid, interest is recognised only while the EMI covers it.
    const dueInterest = signum(calculatedPrincipal) < 0 ? zero(ctx) : calculatedInterest;
    unrecognized = minus(ctx, calculatedInterest, dueInterest);
    const rawPrincipal = minus(ctx, emis[i], dueInterest);
    let principal = signum(rawPrincipal) < 0 ? zero(ctx) : rawPrincipal;
    // Never more principal than is outstanding, and the last period takes exactly what remains. For
    // sane terms this is what Fineract's residual EMI gives anyway; it only differs where an EMI
    // rounded to a large multiple exceeds the whole balance, which Fineract would over-schedule.
    if (cmp(principal, endBalance) > 0 || i === periods.length - 1)
      principal = signum(endBalance) < 0 ? zero(ctx) : endBalance;
    carry = minus(ctx, endBalance, principal);
    out.push({ interest: dueInterest, principal, balanceAfter: signum(carry) < 0 ? zero(ctx) : carry });
  });
  return out;
}

/** calculateLastUnpaidRepaymentPeriodEMI: the last EMI absorbs disbursed + interest − Σ EMI. */
export function absorbResidual(ctx: MoneyContext, periods: Period[], emis: Dec[], disbursed: Dec): Dec[] {
  const walked = walk(ctx, periods, emis);
  const totalInterest = walked.reduce((s, w) => plus(ctx, s, w.interest), zero(ctx));
  const totalEmi = emis.reduce((s, e) => plus(ctx, s, e), zero(ctx));
  const diff = minus(ctx, plus(ctx, disbursed, totalInterest), totalEmi);
  const result = [...emis];
  result[result.length - 1] = plus(ctx, result[result.length - 1], diff);
  return result;
}

export function applyMultiple(ctx: MoneyContext, emi: Dec): Dec {
  return ctx.installmentMultiple !== null ? roundToMultiple(ctx, emi, ctx.installmentMultiple) : emi;
}

/** The EMI over all periods: balance × Π(1 + r_i) / F, F = 1, then F ← 1 + F × (1 + r_k) from period 2. */
export function progressiveEmi(ctx: MoneyContext, rateFactorsPlus1: Dec[], balance: Dec): Dec {
  const product = rateFactorsPlus1.reduce((acc, r) => sig(mul(acc, r), ctx), ONE);
  const fn = rateFactorsPlus1.slice(1).reduce((acc, r) => sig(add(ONE, sig(mul(acc, r), ctx)), ctx), ONE);
  const raw = divSig(sig(mul(product, balance), ctx), fn, PRECISION, ctx.mode);
  return applyMultiple(ctx, roundMoney(ctx, raw));
}

export function generateProgressive(
  t: ScheduleTerms,
  ctx: MoneyContext,
  calendar?: WorkingCalendar,
): ScheduleInstallment[] {
  return progressiveSchedule(t, ctx, calendar);
}

/**
 * The progressive schedule, optionally with several disbursements inside the first period (dates in
 * order, amounts in minor units, summing to the principal net of any down payment). The contract uses
 * one disbursement; several let tests reproduce Fineract's own multi-disbursement EMI assertions.
 */
export function progressiveSchedule(
  t: ScheduleTerms,
  ctx: MoneyContext,
  calendar?: WorkingCalendar,
  firstPeriodDisbursements?: { date: string; amount: bigint }[],
): ScheduleInstallment[] {
  const rc = { mode: ctx.mode };
  const start = t.expectedDisbursementDate;
  const rateTerms: ProgressiveRateTerms = {
    annualRate: parseDec(t.annualInterestRate),
    frequency: t.repaymentFrequency,
    every: t.repaymentEvery,
    daysInYear: t.daysInYear,
    daysInMonth: t.daysInMonth,
  };

  const dueAt = dueDateSequence(
    start,
    t.firstRepaymentDate,
    t.repaymentFrequency,
    t.repaymentEvery,
    calendar,
    t.disbursementDate,
  );
  const dueDates = applyFixedLength(
    t,
    Array.from({ length: t.numberOfRepayments }, (_, i) => dueAt(i)),
    calendar,
  );

  const principal = roundMoney(ctx, fromMinor(t.principal, t.digits));
  const down = downPaymentAmount(ctx, principal, t.downPaymentPercent);
  const disbursed = minus(ctx, principal, down);

  const periods: Period[] = dueDates.map((due, i) => {
    const from = i === 0 ? start : dueDates[i - 1];
    let interestPeriods: InterestPeriod[];
    if (i === 0) {
      // insertInterestPeriod: each disbursement closes the interest period before it (the first one on a
      // zero balance); disbursements on the same date share one interest period.
      const tranches = firstPeriodDisbursements?.map((d) => ({
        date: d.date,
        amount: fromMinor(d.amount, t.digits),
      })) ?? [{ date: t.disbursementDate, amount: disbursed }];
      interestPeriods = [];
      let cursor = from;
      for (const tranche of tranches) {
        const last = interestPeriods[interestPeriods.length - 1];
        if (last && last.to === tranche.date) {
          last.disbursement = plus(ctx, last.disbursement, tranche.amount);
          continue;
        }
        interestPeriods.push({
          from: cursor,
          to: tranche.date,
          rateFactor: progressiveRateFactor(rc, rateTerms, cursor, tranche.date, from, due),
          disbursement: tranche.amount,
        });
        cursor = tranche.date;
      }
      interestPeriods.push({
        from: cursor,
        to: due,
        rateFactor: progressiveRateFactor(rc, rateTerms, cursor, due, from, due),
        disbursement: zero(ctx),
      });
    } else {
      interestPeriods = [
        {
          from,
          to: due,
          rateFactor: progressiveRateFactor(rc, rateTerms, from, due, from, due),
          disbursement: zero(ctx),
        },
      ];
    }
    const rateFactorPlus1 = interestPeriods.reduce((acc, ip) => add(acc, ip.rateFactor), ONE);
    return { from, due, interestPeriods, rateFactorPlus1 };
  });

  const emi = progressiveEmi(
    ctx,
    periods.map((p) => p.rateFactorPlus1),
    disbursed,
  );
  let emis = absorbResidual(
    ctx,
    periods,
    periods.map(() => emi),
    disbursed,
  );

  // checkAndAdjustEmiIfNeededOnRelatedRepaymentPeriods: one attempt to spread the last-EMI gap.
  const n = periods.length;
  const lowerHalf = Math.floor(n / 2);
  if (n >= 2) {
    const gap = sub(emis[n - 1], emis[n - 2]);
    if (!isZero(gap) && lowerHalf > 0 && cmp(mul(abs(gap), fromInt(100)), fromInt(lowerHalf)) > 0) {
      const original = emis[n - 2];
      const adjustment = roundMoney(ctx, divScale(gap, fromInt(n), t.digits, ctx.mode));
      const adjusted = applyMultiple(ctx, plus(ctx, original, adjustment));
      if (cmp(adjusted, original) !== 0) {
        const candidate = absorbResidual(
          ctx,
          periods,
          periods.map(() => adjusted),
          disbursed,
        );
        const newGap = sub(candidate[n - 1], candidate[n - 2]);
        if (cmp(abs(newGap), abs(gap)) < 0) emis = candidate;
      }
    }
  }

  const walked = walk(ctx, periods, emis);
  const installments: ScheduleInstallment[] = [];
  if (t.downPaymentPercent !== null) {
    installments.push(row(ctx, 1, t.disbursementDate, t.disbursementDate, down, zero(ctx), disbursed, true));
  }
  periods.forEach((p, i) => {
    installments.push(
      row(
        ctx,
        installments.length + 1,
        p.from,
        p.due,
        walked[i].principal,
        walked[i].interest,
        walked[i].balanceAfter,
        false,
      ),
    );
  });
  return installments;
}
