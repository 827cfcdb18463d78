import { AppError } from '../errors/app-error.ts';
import { parseAmount } from '../money/parse.ts';
import { isValidDate } from './dates.ts';
import {
  abs,
  add,
  cmp,
  type Dec,
  divScale,
  fromInt,
  fromMinor,
  isZero,
  mul,
  ONE,
  parseDec,
  signum,
  sub,
} from './decimal.ts';
import { dueDateSequence } from './due-dates.ts';
import { minor, minus, plus, roundMoney, type MoneyContext, zero } from './fineract-money.ts';
import { row } from './cumulative.ts';
import {
  absorbResidual,
  applyMultiple,
  type InterestPeriod,
  type Period,
  progressiveEmi,
  walk,
} from './progressive.ts';
import { progressiveRateFactor, type ProgressiveRateTerms } from './rates.ts';
import type { ScheduleInstallment, ScheduleTerms, Tranche, WorkingCalendar } from './types.ts';

/**
 * Multi-disbursement ("tranches"): a loan approved for `principal` and paid out in several
 * disbursements on different dates. The terms carry the expected tranches; this module validates
 * them and computes the progressive schedule that results. The cumulative generator handles
 * tranches inside its own period loop (cumulative.ts, `trancheState`), like Fineract's
 * AbstractCumulativeLoanScheduleGenerator does with its disbursement map.
 *
 * Progressive (after ProgressiveEMICalculator.addDisbursement): the tranches are added one after the
 * other, in date order. Each one closes the interest period it falls in at its date (or joins the
 * interest period ending on that date), and the EMI is recomputed for the repayment period that holds
 * the tranche and every later one, starting from the previous period's outstanding balance plus what
 * is disbursed in that period. A tranche paid out on a due date is carried by the next period's EMI.
 * Earlier periods keep their EMI; the last EMI absorbs the rounding residual and the usual single
 * adjustment attempt is made over the recomputed periods.
 */

type Obj = Record<string, unknown>;

function bad(field: string, message: string): never {
  throw new AppError('BAD_REQUEST', `${field}: ${message}`, { field });
}

function money(value: unknown, field: string, digits: number): bigint {
  const parsed = parseAmount(value, { digits });
  if (!parsed.ok) bad(field, `must be an amount with at most ${digits} decimals, such as "100.00"`);
  if (parsed.minor <= 0n) bad(field, 'must be greater than 0');
  return parsed.minor;
}

/**
 * Reads `disbursements`, `maxOutstandingBalance` and `fixedEmiAmount` from the terms JSON. Without
 * them the terms come back unchanged (one disbursement of the principal, as before).
 */
export function parseTrancheTerms(o: Obj, terms: ScheduleTerms): ScheduleTerms {
  const raw = o.disbursements;
  const maxRaw = o.maxOutstandingBalance;
  const emiRaw = o.fixedEmiAmount;
  if ((raw === undefined || raw === null) && (maxRaw === undefined || maxRaw === null) && (emiRaw ?? null) === null) {
    return terms;
  }
  const result: ScheduleTerms = { ...terms };
  if (raw !== undefined && raw !== null) {
    if (!Array.isArray(raw) || raw.length === 0) bad('disbursements', 'must be a non-empty list of { date, amount }');
    if (raw.length > 100) bad('disbursements', 'at most 100 tranches');
    const tranches: Tranche[] = raw.map((item: unknown, i: number) => {
      const field = `disbursements[${i}]`;
      if (typeof item !== 'object' || item === null || Array.isArray(item)) bad(field, 'must be { date, amount }');
      const { date, amount } = item as Obj;
      if (typeof date !== 'string' || !isValidDate(date)) bad(`${field}.date`, 'must be a calendar date YYYY-MM-DD');
      return { date, amount: money(amount, `${field}.amount`, terms.digits) };
    });
    for (let i = 1; i < tranches.length; i++) {
      if (tranches[i].date < tranches[i - 1].date) bad(`disbursements[${i}].date`, 'tranches must be in date order');
    }
    if (tranches[0].date !== terms.disbursementDate) {
      bad('disbursements[0].date', `the first tranche is the disbursement: it must be on ${terms.disbursementDate}`);
    }
    if (terms.downPaymentPercent !== null) bad('downPaymentPercent', 'is not supported with disbursements');
    if (terms.interestMethod === 'FLAT' && Number(terms.annualInterestRate) !== 0) {
      bad('interestMethod', 'disbursements need a DECLINING_BALANCE schedule (FLAT only at a zero rate)');
    }
    if (terms.scheduleType === 'CUMULATIVE' && terms.expectedDisbursementDate !== terms.disbursementDate) {
      bad('expectedDisbursementDate', 'a CUMULATIVE schedule with disbursements starts on the first tranche');
    }
    result.disbursements = tranches;
  }
  result.maxOutstandingBalance =
    maxRaw === undefined || maxRaw === null ? null : money(maxRaw, 'maxOutstandingBalance', terms.digits);
  if (emiRaw !== undefined && emiRaw !== null) {
    if (terms.scheduleType !== 'CUMULATIVE' || terms.amortization !== 'EQUAL_INSTALLMENTS') {
      bad('fixedEmiAmount', 'only for a CUMULATIVE EQUAL_INSTALLMENTS schedule');
    }
    if (terms.interestMethod !== 'DECLINING_BALANCE') bad('fixedEmiAmount', 'only for DECLINING_BALANCE');
    result.fixedEmiAmount = money(emiRaw, 'fixedEmiAmount', terms.digits);
  } else {
    result.fixedEmiAmount = null;
  }
  const tranches = result.disbursements;
  if (tranches && result.maxOutstandingBalance !== null && result.maxOutstandingBalance !== undefined) {
    const total = tranches.reduce((s, t) => s + t.amount, 0n);
    // Without repayments in the terms, the schedule's outstanding can reach the sum of the tranches.
    if (total > result.maxOutstandingBalance && terms.scheduleType === 'PROGRESSIVE') {
      bad('disbursements', 'the tranches add up to more than maxOutstandingBalance');
    }
  }
  return result;
}

/** Refuses a tranche that would take the outstanding principal above the cap (MultiDisbursementOutstandingAmoutException). */
export function checkMaxOutstanding(t: ScheduleTerms, outstandingMinor: bigint, tranche: Tranche): void {
  const max = t.maxOutstandingBalance;
  if (max !== null && max !== undefined && outstandingMinor + tranche.amount > max) {
    bad('maxOutstandingBalance', `the tranche of ${tranche.date} takes the outstanding principal above the maximum`);
  }
}

/** The cumulative generator's view of the tranches: the first-day amount and the ones still to come. */
export function trancheState(t: ScheduleTerms): { initial: bigint; pending: Tranche[] } | null {
  if (!t.disbursements) return null;
  const start = t.expectedDisbursementDate;
  const initial = t.disbursements.filter((d) => d.date === start).reduce((s, d) => s + d.amount, 0n);
  return { initial, pending: t.disbursements.filter((d) => d.date !== start).map((d) => ({ ...d })) };
}

/** Interest period of a repayment period that a disbursement on `date` closes (insertInterestPeriod). */
function addToPeriod(period: Period, date: string, amount: Dec, ctx: MoneyContext): void {
  const ending = period.interestPeriods.find((ip) => ip.to === date);
  if (ending) {
    ending.disbursement = plus(ctx, ending.disbursement, amount);
    return;
  }
  const target: InterestPeriod =
    date > period.from
      ? period.interestPeriods[period.interestPeriods.length - 1]
      : (period.interestPeriods.filter((ip) => date > ip.from && date <= ip.to).pop() ?? period.interestPeriods[0]);
  const originalTo = target.to;
  target.to = date < target.from ? target.from : date > target.to ? target.to : date;
  target.disbursement = plus(ctx, target.disbursement, amount);
  period.interestPeriods.push({ from: target.to, to: originalTo, rateFactor: zero(ctx), disbursement: zero(ctx) });
}

/** The progressive schedule of a multi-disbursement loan (tranches in date order, amounts in minor units). */
export function progressiveTrancheSchedule(
  t: ScheduleTerms,
  ctx: MoneyContext,
  tranches: Tranche[],
  calendar?: WorkingCalendar,
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
  const periods: Period[] = Array.from({ length: t.numberOfRepayments }, (_, i) => {
    const from = i === 0 ? start : dueAt(i - 1);
    const due = dueAt(i);
    return {
      from,
      due,
      interestPeriods: [{ from, to: due, rateFactor: zero(ctx), disbursement: zero(ctx) }],
      rateFactorPlus1: ONE,
    };
  });
  const refreshRates = (p: Period) => {
    for (const ip of p.interestPeriods)
      ip.rateFactor = progressiveRateFactor(rc, rateTerms, ip.from, ip.to, p.from, p.due);
    p.rateFactorPlus1 = p.interestPeriods.reduce((acc, ip) => add(acc, ip.rateFactor), ONE);
  };
  periods.forEach(refreshRates);

  const n = periods.length;
  let emis: Dec[] = periods.map(() => zero(ctx));
  let disbursed = zero(ctx);
  for (const tranche of tranches) {
    const k = periods.findIndex((p, i) =>
      i === 0 ? tranche.date >= p.from && tranche.date <= p.due : tranche.date > p.from && tranche.date <= p.due,
    );
    if (k < 0) bad('disbursements', `the tranche of ${tranche.date} falls outside the repayment periods`);
    const before = walk(ctx, periods, emis);
    const outstandingBefore = disbursedMinusPrincipal(ctx, disbursed, before, periods, tranche.date);
    checkMaxOutstanding(t, minor(ctx, outstandingBefore), tranche);
    const amount = fromMinor(tranche.amount, t.digits);
    addToPeriod(periods[k], tranche.date, amount, ctx);
    refreshRates(periods[k]);
    disbursed = plus(ctx, disbursed, amount);

    // getEffectiveRepaymentDueDate: a tranche on a due date is carried by the next period.
    const first = periods[k].due === tranche.date && k + 1 < n ? k + 1 : k;
    const walked = walk(ctx, periods, emis);
    const previousBalance = first === 0 ? zero(ctx) : walked[first - 1].balanceAfter;
    const inPeriod = periods[first].interestPeriods.reduce((s, ip) => plus(ctx, s, ip.disbursement), zero(ctx));
    const related = periods.slice(first);
    const emi = progressiveEmi(
      ctx,
      related.map((p) => p.rateFactorPlus1),
      plus(ctx, previousBalance, inPeriod),
    );
    emis = emis.map((e, i) => (i >= first ? emi : e));
    emis = absorbResidual(ctx, periods, emis, disbursed);
    emis = adjustOnce(ctx, periods, emis, disbursed, first, t.digits);
  }

  const walked = walk(ctx, periods, emis);
  return periods.map((p, i) =>
    row(ctx, i + 1, p.from, p.due, walked[i].principal, walked[i].interest, walked[i].balanceAfter, false),
  );
}

/** checkAndAdjustEmiIfNeededOnRelatedRepaymentPeriods over the periods from `first`. */
function adjustOnce(
  ctx: MoneyContext,
  periods: Period[],
  emis: Dec[],
  disbursed: Dec,
  first: number,
  digits: number,
): Dec[] {
  const n = periods.length;
  const relatedCount = n - first;
  if (relatedCount < 2) return emis;
  const lowerHalf = Math.floor(relatedCount / 2);
  const gap = sub(emis[n - 1], emis[n - 2]);
  if (isZero(gap) || lowerHalf === 0) return emis;
  if (cmp(mul(abs(gap), fromInt(100)), fromInt(lowerHalf)) <= 0) return emis;
  const original = emis[n - 2];
  const adjustment = roundMoney(ctx, divScale(gap, fromInt(relatedCount), digits, ctx.mode));
  const adjusted = applyMultiple(ctx, plus(ctx, original, adjustment));
  if (cmp(adjusted, original) === 0) return emis;
  const candidate = absorbResidual(
    ctx,
    periods,
    emis.map((e, i) => (i >= first ? adjusted : e)),
    disbursed,
  );
  const newGap = sub(candidate[n - 1], candidate[n - 2]);
  return cmp(abs(newGap), abs(gap)) < 0 ? candidate : emis;
}

/** Principal outstanding on `date` by the schedule so far: disbursed minus principal due on or before it. */
function disbursedMinusPrincipal(
  ctx: MoneyContext,
  disbursed: Dec,
  walked: ReturnType<typeof walk>,
  periods: Period[],
  date: string,
): Dec {
  let out = disbursed;
  periods.forEach((p, i) => {
    if (p.due < date) out = minus(ctx, out, walked[i].principal);
  });
  return signum(out) < 0 ? zero(ctx) : out;
}
