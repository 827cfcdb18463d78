import { add, cmp, type Dec, divScale, fromInt, isZero, mul, ONE, parseDec, signum, sub, abs } from './decimal.ts';
import { minus, plus, roundMoney, zero, type MoneyContext } from './fineract-money.ts';
import { progressiveEmi } from './progressive.ts';
import { progressiveRateFactor, type ProgressiveRateTerms } from './rates.ts';
import type { ScheduleTerms } from './types.ts';

/**
 * The progressive loan's interest schedule as a living model (Fineract's
 * ProgressiveLoanInterestScheduleModel with its RepaymentPeriod / InterestPeriod and the
 * ProgressiveEMICalculator operations on it), written for interest recalculation:
 *
 * - every repayment period holds one or more interest periods; a balance change (disbursement,
 *   principal paid early, overdue principal carried on) splits the period at its date, so interest
 *   runs day by day on the balance actually outstanding;
 * - the EMI stays as computed at disbursement; what a change saves or costs lands on the last unpaid
 *   period (its EMI absorbs disbursed + due interest − Σ EMI);
 * - paid principal and interest are recorded per period: an early payment fixes that period's
 *   interest at what was paid (nothing more is recognised on it).
 *
 * All amounts are Decs at the currency scale; rate factors carry 12 significant digits (rates.ts).
 */

export type InterestPeriod = {
  from: string;
  due: string;
  rateFactor: Dec;
  disbursement: Dec;
  correction: Dec;
  /** Balance the period's interest is charged on (set by updateBalances). */
  balance: Dec;
};

export type RepaymentPeriod = {
  from: string;
  due: string;
  interestPeriods: InterestPeriod[];
  emi: Dec;
  paidPrincipal: Dec;
  paidInterest: Dec;
};

export type PeriodFigures = {
  calculatedInterest: Dec;
  dueInterest: Dec;
  duePrincipal: Dec;
  unrecognized: Dec;
};

export type Payable = { emi: Dec; principal: Dec; interest: Dec; outstandingBalance: Dec };

function maxDec(a: Dec, b: Dec): Dec {
  return cmp(a, b) >= 0 ? a : b;
}

export class InterestScheduleModel {
  readonly periods: RepaymentPeriod[];
  private readonly ctx: MoneyContext;
  private readonly rateTerms: ProgressiveRateTerms;

  constructor(ctx: MoneyContext, rateTerms: ProgressiveRateTerms, dates: { from: string; due: string }[]) {
    this.ctx = ctx;
    this.rateTerms = rateTerms;
    const z = zero(ctx);
    this.periods = dates.map((d) => ({
      from: d.from,
      due: d.due,
      interestPeriods: [
        { from: d.from, due: d.due, rateFactor: fromInt(0), disbursement: z, correction: z, balance: z },
      ],
      emi: z,
      paidPrincipal: z,
      paidInterest: z,
    }));
  }

  static forTerms(t: ScheduleTerms, ctx: MoneyContext, dates: { from: string; due: string }[]): InterestScheduleModel {
    return new InterestScheduleModel(
      ctx,
      {
        annualRate: parseDec(t.annualInterestRate),
        frequency: t.repaymentFrequency,
        every: t.repaymentEvery,
        daysInYear: t.daysInYear,
        daysInMonth: t.daysInMonth,
      },
      dates,
    );
  }

  private z(): Dec {
    return zero(this.ctx);
  }

  // ------------------------------------------------------------------------------------------
  // Derived figures (RepaymentPeriod getters), one forward pass: each period only depends on the
  // ones before it (unrecognised interest is carried forward).

  /** Figures for every period; `override` replaces one period's interest periods (payable details). */
  figures(override?: { index: number; interestPeriods: InterestPeriod[] }): PeriodFigures[] {
    const out: PeriodFigures[] = [];
    let carried = this.z();
    this.periods.forEach((p, i) => {
      const ips = override && override.index === i ? override.interestPeriods : p.interestPeriods;
      const fig = this.figureOf(p, ips, i > 0 ? carried : null);
      carried = fig.unrecognized;
      out.push(fig);
    });
    // The principal due never adds up to more than was disbursed: a rounding cent the EMIs would
    // still ask for comes off the last periods (never below what they already had paid).
    const c = this.ctx;
    let excess = minus(
      c,
      out.reduce((s, f) => plus(c, s, f.duePrincipal), this.z()),
      this.disbursedTotal(),
    );
    for (let i = out.length - 1; i >= 0 && signum(excess) > 0; i--) {
      const room = minus(c, out[i].duePrincipal, this.periods[i].paidPrincipal);
      const cut = cmp(room, excess) < 0 ? room : excess;
      if (signum(cut) <= 0) continue;
      out[i] = { ...out[i], duePrincipal: minus(c, out[i].duePrincipal, cut) };
      excess = minus(c, excess, cut);
    }
    return out;
  }

  /** Everything disbursed into the model so far. */
  disbursedTotal(): Dec {
    const c = this.ctx;
    return this.periods.reduce(
      (s, p) => p.interestPeriods.reduce((s2, ip) => plus(c, s2, ip.disbursement), s),
      this.z(),
    );
  }

  /** One period's figures given the interest not recognised by the period before (null for the first). */
  private figureOf(p: RepaymentPeriod, ips: InterestPeriod[], carried: Dec | null): PeriodFigures {
    let calculated = this.z();
    for (const ip of ips) calculated = plus(this.ctx, calculated, roundMoney(this.ctx, mul(ip.balance, ip.rateFactor)));
    if (carried) calculated = plus(this.ctx, calculated, carried);
    const calculatedPrincipal = minus(this.ctx, p.emi, calculated);
    // An early payoff or prepayment fixes the interest at what was paid.
    const dueInterest = maxDec(
      cmp(p.paidPrincipal, calculatedPrincipal) > 0 ? p.paidInterest : calculated,
      p.paidInterest,
    );
    const duePrincipal = maxDec(minus(this.ctx, p.emi, dueInterest), p.paidPrincipal);
    return {
      calculatedInterest: calculated,
      dueInterest,
      duePrincipal,
      unrecognized: minus(this.ctx, calculated, dueInterest),
    };
  }

  isFullyPaid(p: RepaymentPeriod): boolean {
    return cmp(p.emi, add(p.paidPrincipal, p.paidInterest)) === 0;
  }

  // ------------------------------------------------------------------------------------------
  // Balances and rate factors

  /** InterestPeriod.updateOutstandingLoanBalance over the whole model, in order. */
  updateBalances(): void {
    const c = this.ctx;
    let previous: PeriodFigures | null = null;
    for (let i = 0; i < this.periods.length; i++) {
      const p = this.periods[i];
      p.interestPeriods.forEach((ip, j) => {
        if (j === 0) {
          if (i === 0 || !previous) return;
          const prev = this.periods[i - 1];
          const prevLast = prev.interestPeriods[prev.interestPeriods.length - 1];
          ip.balance = plus(
            c,
            minus(
              c,
              plus(c, plus(c, prevLast.balance, prevLast.disbursement), prevLast.correction),
              previous.duePrincipal,
            ),
            prev.paidPrincipal,
          );
        } else {
          const before = p.interestPeriods[j - 1];
          ip.balance = plus(c, plus(c, before.balance, before.correction), before.disbursement);
        }
      });
      // This period's figures depend only on it and the ones before, all up to date now.
      previous = this.figureOf(p, p.interestPeriods, previous ? previous.unrecognized : null);
    }
  }

  private rateFactorsFor(p: RepaymentPeriod, ips: InterestPeriod[] = p.interestPeriods): void {
    for (const ip of ips) {
      ip.rateFactor = progressiveRateFactor({ mode: this.ctx.mode }, this.rateTerms, ip.from, ip.due, p.from, p.due);
    }
  }

  private rateFactorPlus1(p: RepaymentPeriod): Dec {
    return p.interestPeriods.reduce((acc, ip) => add(acc, ip.rateFactor), ONE);
  }

  /**
   * calculateLastUnpaidRepaymentPeriodEMI: the last unpaid period absorbs disbursed + interest − Σ EMI.
   * Repeated until nothing is left to absorb: a larger EMI can make that period recognise interest it
   * did not before (its principal paid is no longer beyond its computed principal), which one pass
   * would leave out of the principal due (a cent short of what was lent, seen after late tranches).
   */
  absorbIntoLastUnpaid(): void {
    for (let pass = 0; pass < 4; pass++) {
      if (!this.absorbOnce()) return;
    }
  }

  /** One absorption; false when there was nothing to absorb. */
  private absorbOnce(): boolean {
    const c = this.ctx;
    const figs = this.figures();
    const totalInterest = figs.reduce((s, f) => plus(c, s, f.dueInterest), this.z());
    const totalEmi = this.periods.reduce((s, p) => plus(c, s, p.emi), this.z());
    const disbursed = this.periods.reduce(
      (s, p) => p.interestPeriods.reduce((s2, ip) => plus(c, s2, ip.disbursement), s),
      this.z(),
    );
    const diff = minus(c, plus(c, disbursed, totalInterest), totalEmi);
    if (isZero(diff)) return false;
    for (let i = this.periods.length - 1; i >= 0; i--) {
      if (!this.isFullyPaid(this.periods[i])) {
        this.periods[i].emi = plus(c, this.periods[i].emi, diff);
        return true;
      }
    }
    // Every period paid yet money still owed: a tranche paid out after the last installments were
    // prepaid (its EMI was computed on the balance net of those prepayments). The last period carries
    // it, or that principal would be lent and never scheduled.
    const last = this.periods[this.periods.length - 1];
    if (last && signum(diff) > 0) {
      last.emi = plus(c, last.emi, diff);
      return true;
    }
    return false;
  }

  // ------------------------------------------------------------------------------------------
  // Balance changes

  private periodIndexForChange(date: string): number {
    return this.periods.findIndex((p, i) =>
      i === 0 ? date >= p.from && date <= p.due : date > p.from && date <= p.due,
    );
  }

  /** changeOutstandingBalanceAndUpdateInterestPeriods; returns the changed period's index or -1. */
  private changeBalance(date: string, disbursement: Dec, correction: Dec): number {
    const index = this.periodIndexForChange(date);
    if (index < 0) return -1;
    const c = this.ctx;
    const p = this.periods[index];
    const existing = p.interestPeriods.find((ip) => ip.due === date);
    if (existing) {
      existing.disbursement = plus(c, existing.disbursement, disbursement);
      existing.correction = plus(c, existing.correction, correction);
      return index;
    }
    // Fineract splits the last interest period when the date is after the period start, otherwise the
    // one holding the date (or the first); the new interest period is appended.
    let previous: InterestPeriod;
    if (date > p.from) previous = p.interestPeriods[p.interestPeriods.length - 1];
    else {
      const holding = p.interestPeriods.filter((ip) => date > ip.from && date <= ip.due);
      previous = holding.length ? holding[holding.length - 1] : p.interestPeriods[0];
    }
    const originalDue = previous.due;
    previous.due = date < previous.from ? previous.from : date > previous.due ? previous.due : date;
    previous.disbursement = plus(c, previous.disbursement, disbursement);
    previous.correction = plus(c, previous.correction, correction);
    const z = this.z();
    p.interestPeriods.push({
      from: previous.due,
      due: originalDue,
      rateFactor: fromInt(0),
      disbursement: z,
      correction: z,
      balance: z,
    });
    return index;
  }

  /** addDisbursement: splits the period and recalculates the EMI of the periods from then on. */
  addDisbursement(date: string, amount: Dec): void {
    const index = this.changeBalance(date, amount, this.z());
    if (index < 0) return;
    let fromIndex = index;
    if (this.periods[index].due === date && index + 1 < this.periods.length) fromIndex = index + 1;
    this.recalculateEmi(fromIndex);
  }

  /** addBalanceCorrection: the EMI stays; the period's interest is re-split, the last unpaid EMI absorbs. */
  addBalanceCorrection(date: string, amount: Dec): void {
    const index = this.changeBalance(date, this.z(), amount);
    if (index < 0) return;
    this.rateFactorsFor(this.periods[index]);
    this.updateBalances();
    this.absorbIntoLastUnpaid();
  }

  payPrincipal(dueDate: string, transactionDate: string, amount: Dec): void {
    const p = this.periods.find((x) => x.due === dueDate);
    if (p) p.paidPrincipal = plus(this.ctx, p.paidPrincipal, amount);
    // A late payment counts from the period's due date (the overdue part is handled by the processor).
    const correctionDate = dueDate < transactionDate ? dueDate : transactionDate;
    this.addBalanceCorrection(correctionDate, minus(this.ctx, this.z(), amount));
  }

  payInterest(dueDate: string, amount: Dec): void {
    const p = this.periods.find((x) => x.due === dueDate);
    if (p) p.paidInterest = plus(this.ctx, p.paidInterest, amount);
    this.updateBalances();
    this.absorbIntoLastUnpaid();
  }

  /** calculateEMIValueAndRateFactors for the periods from `fromIndex` on. */
  private recalculateEmi(fromIndex: number): void {
    const c = this.ctx;
    const related = this.periods.slice(fromIndex);
    for (const p of related) this.rateFactorsFor(p);
    this.updateBalances();
    const start = related[0];
    let initial = this.z();
    if (fromIndex > 0) {
      const prev = this.periods[fromIndex - 1];
      const last = prev.interestPeriods[prev.interestPeriods.length - 1];
      const fig = this.figures()[fromIndex - 1];
      initial = plus(
        c,
        minus(c, plus(c, plus(c, last.balance, last.correction), last.disbursement), fig.duePrincipal),
        prev.paidPrincipal,
      );
      if (signum(initial) < 0) initial = this.z();
    }
    initial = start.interestPeriods.reduce((s, ip) => plus(c, s, ip.disbursement), initial);
    const emi = progressiveEmi(
      c,
      related.map((p) => this.rateFactorPlus1(p)),
      initial,
    );
    for (const p of related) p.emi = emi;
    this.updateBalances();
    this.absorbIntoLastUnpaid();
    this.adjustEmiIfBetter(fromIndex);
  }

  /** checkAndAdjustEmiIfNeededOnRelatedRepaymentPeriods: one attempt to spread the last-EMI gap. */
  private adjustEmiIfBetter(fromIndex: number): void {
    const c = this.ctx;
    const related = this.periods.slice(fromIndex);
    const n = related.length;
    if (n < 2) return;
    const gap = minus(c, related[n - 1].emi, related[n - 2].emi);
    const lowerHalf = Math.floor(n / 2);
    if (isZero(gap) || lowerHalf === 0) return;
    const original = related[n - 2].emi;
    if (cmp(mul(abs(gap), fromInt(100)), fromInt(lowerHalf)) <= 0) return;
    const adjustment = roundMoney(c, divScale(gap, fromInt(n), c.digits, c.mode));
    let adjusted = plus(c, original, adjustment);
    if (c.installmentMultiple !== null) {
      const m = fromInt(c.installmentMultiple);
      adjusted = roundMoney(c, mul(divScale(adjusted, m, 0, c.mode), m));
    }
    if (cmp(adjusted, original) === 0) return;
    const saved = this.snapshot();
    const firstDue = related[0].due;
    for (const p of this.periods) if (p.due >= firstDue) p.emi = adjusted;
    this.updateBalances();
    this.absorbIntoLastUnpaid();
    const all = this.periods;
    const newGap = minus(c, all[all.length - 1].emi, all[all.length - 2].emi);
    if (cmp(abs(newGap), abs(gap)) < 0) {
      this.updateBalances();
      return;
    }
    this.restore(saved);
  }

  private snapshot(): RepaymentPeriod[] {
    return this.periods.map((p) => ({ ...p, interestPeriods: p.interestPeriods.map((ip) => ({ ...ip })) }));
  }

  private restore(saved: RepaymentPeriod[]): void {
    saved.forEach((p, i) => (this.periods[i] = p));
  }

  // ------------------------------------------------------------------------------------------
  // Reading

  /**
   * getPayableDetails: what is payable on `targetDate` for the period due on `dueDate`: interest up
   * to that date (the period cut there), the principal that completes the EMI, and the balance then.
   */
  payable(dueDate: string, targetDate: string): Payable {
    const c = this.ctx;
    const index = this.periods.findIndex((p) => p.due === dueDate);
    if (index < 0) throw new Error(`no repayment period due on ${dueDate}`);
    const p = this.periods[index];
    const copies = p.interestPeriods.map((ip) => ({ ...ip }));
    let cut: number;
    let target = targetDate;
    if (targetDate <= p.from) {
      cut = 0;
      target = p.from;
    } else if (targetDate > p.due) {
      cut = copies.length - 1;
      target = p.due;
    } else {
      cut = copies.findIndex((ip) => targetDate > ip.from && targetDate <= ip.due);
      if (cut < 0) throw new Error(`no interest period holds ${targetDate}`);
    }
    const ip = copies[cut];
    ip.due = target;
    const kept = copies.slice(0, cut + 1);
    this.rateFactorsFor(p, kept);
    const fig = this.figures({ index, interestPeriods: kept })[index];
    const interest = targetDate < p.from ? this.z() : fig.dueInterest;
    const outstanding = plus(c, ip.balance, ip.disbursement);
    let emi = p.emi;
    if (cmp(plus(c, outstanding, interest), emi) < 0) {
      emi = plus(c, plus(c, plus(c, outstanding, interest), p.paidInterest), p.paidPrincipal);
    }
    return { emi, principal: minus(c, emi, interest), interest, outstandingBalance: outstanding };
  }

  dueFigures(): PeriodFigures[] {
    return this.figures();
  }

  /** Σ principal scheduled so far minus paid, for diagnostics. */
  totalEmi(): Dec {
    return this.periods.reduce((s, p) => plus(this.ctx, s, p.emi), this.z());
  }
}

export function subMoney(ctx: MoneyContext, a: Dec, b: Dec): Dec {
  return roundMoney(ctx, sub(a, b));
}
