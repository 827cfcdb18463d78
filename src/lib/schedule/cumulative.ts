import { AppError } from '../errors/app-error.ts';
import { addDays, daysBetween, maxDate } from './dates.ts';
import {
  cmp,
  type Dec,
  divScale,
  divSig,
  fromDouble,
  fromInt,
  fromMinor,
  isZero,
  mul,
  parseDec,
  roundSig,
  setScale,
  signum,
  toNumber,
} from './decimal.ts';
import { dueDateSequence, unadjustedDueDates } from './due-dates.ts';
import { minus, minor, roundMoney, type MoneyContext, plus, roundToMultiple, zero } from './fineract-money.ts';
import {
  cumulativePeriodicRate,
  type CumulativeRateTerms,
  periodsBetweenDates,
  periodsInOneYear,
  pmtDouble,
  pmtPeriod,
} from './rates.ts';
import type { ScheduleInstallment, ScheduleTerms, WorkingCalendar } from './types.ts';
import { repaymentsAfterVariations, variationPlan, variedEndDate } from './variations.ts';
import { checkMaxOutstanding, trancheState } from './tranches.ts';

/**
 * The cumulative ("classic") generator: AbstractCumulativeLoanScheduleGenerator with the
 * declining-balance and flat period calculators, and LoanApplicationTerms for the arithmetic.
 * Interest recalculation, multi-disbursement and term variations are out of scope: they only change
 * a schedule after disbursement.
 */

const HUNDRED = fromInt(100);

export function downPaymentAmount(ctx: MoneyContext, principal: Dec, percent: string | null): Dec {
  if (percent === null) return zero(ctx);
  // MathUtil.percentageOf(value, percent, 19): value × (percent / 100), both at 19 significant digits.
  const share = divSig(parseDec(percent), HUNDRED, 19, ctx.mode);
  let amount = roundMoney(ctx, roundSig(mul(principal, share), 19, ctx.mode));
  if (ctx.installmentMultiple !== null) amount = roundToMultiple(ctx, amount, ctx.installmentMultiple);
  if (cmp(amount, principal) >= 0) {
    throw new AppError(
      'BAD_REQUEST',
      'downPaymentPercent: the down payment, rounded to installmentAmountInMultiplesOf, leaves nothing to repay',
      {
        field: 'downPaymentPercent',
      },
    );
  }
  return amount;
}

function minusUnits(date: string, t: ScheduleTerms): string {
  if (t.repaymentFrequency === 'DAYS') return addDays(date, -t.repaymentEvery);
  if (t.repaymentFrequency === 'WEEKS') return addDays(date, -7 * t.repaymentEvery);
  const [y, m, d] = date.split('-').map(Number);
  const index = y * 12 + (m - 1) - t.repaymentEvery;
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(Math.min(d, last)).padStart(2, '0')}`;
}

export function generateCumulative(
  t: ScheduleTerms,
  ctx: MoneyContext,
  calendar?: WorkingCalendar,
): ScheduleInstallment[] {
  const rc = { mode: ctx.mode };
  // Inserted / deleted installments change the number of repayments (variations.ts).
  const n = repaymentsAfterVariations(t);
  const plan = t.variations?.length ? variationPlan(t, calendar) : null;
  const g = t.graceOnPrincipalPeriods;
  const gi = t.graceOnInterestPaymentPeriods;
  const k = t.interestFreePeriods;
  const start = t.expectedDisbursementDate;
  // A disbursement after the schedule start is Fineract's "interest charged from" date.
  const interestChargedFrom = t.disbursementDate > start ? t.disbursementDate : null;
  const seed = t.firstRepaymentDate ?? start;
  const rateTerms: CumulativeRateTerms = {
    annualRate: parseDec(t.annualInterestRate),
    frequency: t.repaymentFrequency,
    every: t.repaymentEvery,
    method: t.interestCalculationPeriod,
    allowPartialPeriodInterest: t.allowPartialPeriodInterest,
    daysInYear: t.daysInYear,
    daysInMonth: t.daysInMonth,
    seedDate: seed,
  };
  const dueAt = dueDateSequence(
    start,
    t.firstRepaymentDate,
    t.repaymentFrequency,
    t.repaymentEvery,
    calendar,
    t.disbursementDate,
  );
  const unadjustedAt = (i: number) =>
    unadjustedDueDates(start, t.firstRepaymentDate, i + 1, t.repaymentFrequency, t.repaymentEvery)[i];
  const firstRepaymentDate = unadjustedAt(0);
  const idealDisbursementDate = minusUnits(firstRepaymentDate, t);
  // The loan end date (flat interest over the term) counts the repayments before inserts / deletes,
  // then follows a due-date change of that last date (Fineract's loanEndDate with variations).
  const loanEndDate = variedEndDate(t, dueAt(t.numberOfRepayments - 1));

  const principal = roundMoney(ctx, fromMinor(t.principal, t.digits));
  const down = downPaymentAmount(ctx, principal, t.downPaymentPercent);
  const scheduled = minus(ctx, principal, down);
  // Multi-disbursement: the EMI is still computed on `principal`; the balance starts with the first
  // tranche and every later tranche joins it in the period that holds its date (tranches.ts).
  const tranches = trancheState(t);
  let principalToDate = tranches ? fromMinor(tranches.initial, t.digits) : scheduled;

  const installments: ScheduleInstallment[] = [];
  if (t.downPaymentPercent !== null) {
    installments.push(row(ctx, 1, t.disbursementDate, t.disbursementDate, down, zero(ctx), scheduled, true));
  }

  // Flat interest over the whole term (calculateTotalFlatInterestDueWithoutGrace).
  let totalFlat = zero(ctx);
  let flatPerInstallment = zero(ctx);
  let totalInterestDue = zero(ctx);
  if (t.interestMethod === 'FLAT') {
    let periodsInTerm: Dec;
    if (t.interestCalculationPeriod === 'DAILY') {
      periodsInTerm = fromInt(daysBetween(maxDate(start, interestChargedFrom ?? start), loanEndDate));
    } else if (t.allowPartialPeriodInterest) {
      periodsInTerm = periodsBetweenDates(interestChargedFrom ?? start, loanEndDate, t.repaymentFrequency, seed);
    } else {
      periodsInTerm = fromInt(t.numberOfRepayments * t.repaymentEvery);
    }
    const perYear = fromInt(periodsInOneYear(rateTerms));
    const termRate = mul(
      divSig(divSig(rateTerms.annualRate, perYear, 12, ctx.mode), HUNDRED, 12, ctx.mode),
      periodsInTerm,
    );
    // On the disbursed principal, down payment included (Fineract's disbursedPrincipal): 1000 with a 25%
    // down payment at 1% a month is charged 10 a month while 750 is amortised.
    totalFlat = roundMoney(ctx, setScale(mul(principal, termRate), t.digits, ctx.mode));
    flatPerInstallment = roundMoney(ctx, divScale(totalFlat, fromInt(n), t.digits, ctx.mode));
    totalInterestDue = minus(
      ctx,
      totalFlat,
      roundMoney(ctx, setScale(mul(flatPerInstallment, fromInt(k)), t.digits, ctx.mode)),
    );
  }

  // The annuity, computed once up front in floating point (LoanApplicationTerms.paymentPerPeriod).
  let emi: Dec | null = null;
  let fixedPrincipal: Dec | null = null;
  const annuity = (balance: Dec, periods: number): Dec => {
    const [ps, pe] = pmtPeriod(start, t.repaymentFrequency, t.repaymentEvery);
    const rate = cumulativePeriodicRate(rc, rateTerms, ps, pe, true);
    const payment = pmtDouble(toNumber(rate), periods, -toNumber(balance));
    let amount = fromDouble(payment);
    if (t.installmentAmountInMultiplesOf !== null) {
      const m = fromInt(t.installmentAmountInMultiplesOf);
      amount = mul(divScale(amount, m, 0, ctx.mode), m);
    }
    return roundMoney(ctx, amount);
  };
  const givenEmi = t.fixedEmiAmount ? fromMinor(t.fixedEmiAmount, t.digits) : null;
  if (t.interestMethod === 'DECLINING_BALANCE' && t.amortization === 'EQUAL_INSTALLMENTS') {
    emi = givenEmi ?? annuity(scheduled, n - g);
  } else if (t.interestMethod === 'DECLINING_BALANCE') {
    fixedPrincipal = roundMoney(ctx, divScale(scheduled, fromInt(n - g), t.digits, ctx.mode));
  }

  let outstanding = principalToDate;
  let cumulativePrincipal = zero(ctx);
  let cumulativeInterest = zero(ctx);
  let reducePrincipal = zero(ctx);
  let interestDueToGrace = zero(ctx);
  let periodStart = start;
  let flatAdjust = zero(ctx);
  let number = installments.length + 1;
  const maxPeriods = n + 600;

  for (let p = 1; !isZero(outstanding) || (tranches?.pending.length ?? 0) > 0; p++) {
    if (p > maxPeriods) throw new Error('schedule does not converge');
    const slot = plan ? plan.next() : null;
    const dueDate = slot ? slot.dueDate : dueAt(p - 1);
    const slotAmount = slot?.amount != null ? fromMinor(slot.amount, t.digits) : null;
    // processDisbursements: a tranche in (period start, due date] adds to the balance now, but interest
    // this period is still on the balance before it (outstandingBalanceAsPerRest moves at the due date).
    const interestBase = outstanding;
    while (tranches && tranches.pending.length > 0 && tranches.pending[0].date <= dueDate) {
      const tranche = tranches.pending.shift()!;
      checkMaxOutstanding(t, minor(ctx, outstanding), tranche);
      outstanding = plus(ctx, outstanding, fromMinor(tranche.amount, t.digits));
      principalToDate = plus(ctx, principalToDate, fromMinor(tranche.amount, t.digits));
    }
    const isLast = p === n;
    const isPrincipalGrace = p <= g;
    const isInterestPaymentGrace = p <= gi;
    const isInterestFree = p <= k;

    let interestStart = periodStart;
    if (periodStart < idealDisbursementDate || periodStart < firstRepaymentDate) {
      if (interestChargedFrom !== null) {
        if (periodStart === start || periodStart < interestChargedFrom) interestStart = interestChargedFrom;
      } else if (periodStart === start) {
        interestStart = idealDisbursementDate;
      }
    }

    let interest: Dec;
    let principalPart: Dec;
    const bfIn = interestDueToGrace;
    if (t.interestMethod === 'FLAT') {
      if (t.amortization === 'EQUAL_INSTALLMENTS') {
        if (isInterestPaymentGrace || isInterestFree) interest = zero(ctx);
        else {
          const real = minus(ctx, totalFlat, roundMoney(ctx, mul(flatPerInstallment, fromInt(k))));
          interest = roundMoney(ctx, divScale(real, fromInt(n - gi - k), t.digits, ctx.mode));
        }
      } else {
        interest = flatPerInstallment;
        if (isInterestPaymentGrace) {
          interestDueToGrace = plus(ctx, interestDueToGrace, interest);
          interest = zero(ctx);
        } else if (isInterestFree) {
          interest = zero(ctx);
        } else if (p === gi + 1) {
          interest = plus(ctx, bfIn, interest);
          interestDueToGrace = zero(ctx);
        }
      }
      principalPart = isPrincipalGrace
        ? zero(ctx)
        : plus(
            ctx,
            roundMoney(ctx, divScale(minus(ctx, scheduled, zero(ctx)), fromInt(n - g), t.digits, ctx.mode)),
            flatAdjust,
          );
      if (!isPrincipalGrace && slotAmount !== null) {
        // A fixed principal spreads its difference from the regular one over the remaining periods.
        if (n - p > 0) {
          const spread = divScale(minus(ctx, principalPart, slotAmount), fromInt(n - p), t.digits, ctx.mode);
          flatAdjust = plus(ctx, flatAdjust, roundMoney(ctx, spread));
        }
        principalPart = slotAmount;
      }
      if (t.installmentAmountInMultiplesOf !== null) {
        const rp = roundToMultiple(ctx, principalPart, t.installmentAmountInMultiplesOf);
        const ri = roundToMultiple(ctx, interest, t.installmentAmountInMultiplesOf);
        principalPart = minus(ctx, plus(ctx, rp, ri), interest);
      }
      principalPart = adjustLastPrincipal(
        ctx,
        principalPart,
        minus(ctx, cumulativePrincipal, reducePrincipal),
        principalToDate,
        isLast,
      );
      // adjustInterestIfLastRepaymentPeriod
      const cumulativeInterestToDate = plus(ctx, cumulativeInterest, interest);
      const remainingInterest = minus(ctx, totalInterestDue, cumulativeInterestToDate);
      if (signum(remainingInterest) < 0) interest = minus(ctx, interest, neg(remainingInterest));
      else if (isLast) interest = plus(ctx, interest, remainingInterest);
      if (signum(interest) < 0) interest = plus(ctx, interest, interest); // Fineract's own (odd) correction, kept.
    } else {
      const rate = cumulativePeriodicRate(rc, rateTerms, interestStart, dueDate, false);
      const beforeGrace = roundMoney(ctx, setScale(mul(interestBase, rate), t.digits, ctx.mode));
      const afterGrace = isInterestPaymentGrace || isInterestFree ? zero(ctx) : beforeGrace;
      if (signum(afterGrace) > 0) {
        interest = plus(ctx, interestDueToGrace, afterGrace);
        interestDueToGrace = zero(ctx);
      } else if (isInterestFree) {
        interest = zero(ctx);
      } else {
        interestDueToGrace = plus(ctx, interestDueToGrace, beforeGrace);
        interest = afterGrace;
      }
      const interestForPeriod =
        signum(interest) > 0 ? minus(ctx, interest, bfIn) : minus(ctx, interestDueToGrace, bfIn);
      if (emi !== null) {
        const due = slotAmount ?? emi;
        if ((givenEmi !== null || slotAmount !== null) && cmp(due, interest) < 0) {
          // Fineract refuses a fixed installment amount that does not cover the period's interest.
          const field = slotAmount !== null ? 'variations' : 'fixedEmiAmount';
          throw new AppError(
            'BAD_REQUEST',
            `${field}: the installment of ${dueDate} must at least cover its interest`,
            {
              field,
            },
          );
        }
        principalPart = isPrincipalGrace ? zero(ctx) : minus(ctx, due, interestForPeriod);
      } else principalPart = isPrincipalGrace ? zero(ctx) : (slotAmount ?? (fixedPrincipal as Dec));
      principalPart =
        givenEmi !== null
          ? adjustLastPrincipalFixedEmi(
              ctx,
              principalPart,
              minus(ctx, cumulativePrincipal, reducePrincipal),
              principalToDate,
              // Fineract's default principalThresholdForLastInstalment: 50 on multi-disbursement loans, else 0.
              t.principalThresholdForLastInstallment ?? (tranches ? 50 : 0),
            )
          : adjustLastPrincipal(
              ctx,
              principalPart,
              minus(ctx, cumulativePrincipal, reducePrincipal),
              principalToDate,
              isLast,
            );
    }

    // updatePrincipalPortionBasedOnPreviousEarlyPayments: a non-positive principal is carried forward.
    if (cmp(principalPart, reducePrincipal) > 0) {
      principalPart = minus(ctx, principalPart, reducePrincipal);
      reducePrincipal = zero(ctx);
    } else {
      reducePrincipal = minus(ctx, reducePrincipal, principalPart);
      principalPart = zero(ctx);
    }
    outstanding = minus(ctx, outstanding, principalPart);
    if (signum(outstanding) < 0) {
      principalPart = plus(ctx, principalPart, outstanding);
      outstanding = zero(ctx);
    }
    installments.push(row(ctx, number, periodStart, dueDate, principalPart, interest, outstanding, false));
    cumulativePrincipal = plus(ctx, cumulativePrincipal, principalPart);
    cumulativeInterest = plus(ctx, cumulativeInterest, interest);
    periodStart = dueDate;
    number++;
    // After an installment with a user-fixed amount, the EMI (or equal principal) is recomputed over the
    // remaining periods for the principal still to schedule (adjustInstallmentOrPrincipalAmount).
    const left = minus(ctx, scheduled, cumulativePrincipal);
    if (slotAmount !== null && n - p > 0 && signum(left) > 0) {
      if (emi !== null && givenEmi === null) emi = annuity(left, n - p);
      else if (fixedPrincipal !== null)
        fixedPrincipal = roundMoney(ctx, divScale(left, fromInt(n - p), t.digits, ctx.mode));
    }
  }

  // Interest deferred by grace and never paid goes to the last installment.
  if (signum(interestDueToGrace) > 0) {
    const last = installments[installments.length - 1];
    last.interest += minor(ctx, interestDueToGrace);
    last.total = last.principal + last.interest + last.fees + last.penalties;
  }
  return installments;
}

function neg(d: Dec): Dec {
  return { u: -d.u, s: d.s };
}

/**
 * adjustPrincipalIfLastRepaymentPeriod with a user-given EMI: no fixed last period; the schedule runs
 * until the principal is repaid, and an installment takes the rest when what would remain after it is
 * below `threshold` percent of its principal (principalThresholdForLastInstalment).
 */
function adjustLastPrincipalFixedEmi(
  ctx: MoneyContext,
  principalPart: Dec,
  cumulativeBefore: Dec,
  scheduled: Dec,
  threshold: number,
): Dec {
  const remaining = minus(ctx, scheduled, plus(ctx, cumulativeBefore, principalPart));
  if (signum(remaining) < 0) return minus(ctx, principalPart, neg(remaining));
  const limit = roundMoney(ctx, divScale(mul(principalPart, fromInt(threshold)), fromInt(100), ctx.digits, ctx.mode));
  if (cmp(remaining, limit) < 0) return plus(ctx, principalPart, remaining);
  return principalPart;
}

/** LoanApplicationTerms.adjustPrincipalIfLastRepaymentPeriod (no fixed EMI given by the user). */
function adjustLastPrincipal(
  ctx: MoneyContext,
  principalPart: Dec,
  cumulativeBefore: Dec,
  scheduled: Dec,
  isLast: boolean,
): Dec {
  const cumulativeToDate = plus(ctx, cumulativeBefore, principalPart);
  const remaining = minus(ctx, scheduled, cumulativeToDate);
  if (signum(remaining) < 0) return minus(ctx, principalPart, neg(remaining));
  if (isLast) return plus(ctx, principalPart, remaining);
  return principalPart;
}

export function row(
  ctx: MoneyContext,
  number: number,
  fromDate: string,
  dueDate: string,
  principal: Dec,
  interest: Dec,
  balance: Dec,
  isDownPayment: boolean,
): ScheduleInstallment {
  const p = minor(ctx, principal);
  const i = minor(ctx, interest);
  return {
    number,
    fromDate,
    dueDate,
    principal: p,
    interest: i,
    fees: 0n,
    penalties: 0n,
    total: p + i,
    balance: minor(ctx, balance),
    isDownPayment,
  };
}
