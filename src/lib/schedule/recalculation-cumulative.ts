import { AppError } from '../errors/app-error.ts';
import { type Dec, fromDouble, fromMinor, mul, parseDec, setScale, toNumber } from './decimal.ts';
import { generateCumulative } from './cumulative.ts';
import { minor, roundMoney, type MoneyContext } from './fineract-money.ts';
import { cumulativePeriodicRate, type CumulativeRateTerms, pmtDouble, pmtPeriod } from './rates.ts';
import {
  type PreClosure,
  type ProcessedTransaction,
  type RecalculatedInstallment,
  type RecalculatedSchedule,
  type RecalculationTerms,
  registerCumulativeRecalculation,
} from './recalculation.ts';
import type { ScheduleTerms, WorkingCalendar } from './types.ts';

/**
 * Interest recalculation on a cumulative (declining-balance, equal-installment) schedule, after the
 * recalculation branch of Fineract's AbstractCumulativeLoanScheduleGenerator, in the one combination
 * checked against Fineract's assertions: rest SAME_AS_REPAYMENT_PERIOD, compounding NONE,
 * REDUCE_EMI_AMOUNT or REDUCE_NUMBER_OF_INSTALLMENTS.
 *
 * - A repayment lowers the interest-bearing balance from the first due date on or after its date
 *   (the rest date); before `asOf` each period's interest is charged on the principal actually
 *   outstanding at its start (unpaid overdue principal keeps bearing interest), from `asOf` on on the
 *   projected balance (every installment paid when due).
 * - The installment's principal is the EMI less its interest; the last one takes what is left.
 * - A repayment larger than what is due up to its installment pays that installment's principal in
 *   advance; with REDUCE_EMI_AMOUNT the EMI of the remaining installments is worked out again on the
 *   balance left, with REDUCE_NUMBER_OF_INSTALLMENTS the EMI stays and the loan ends earlier.
 */

function bad(field: string, message: string): never {
  throw new AppError('BAD_REQUEST', `${field}: ${message}`, { field });
}

/** Refuses what this engine does not do, naming the field. */
export function checkCumulativeRecalculation(input: RecalculationTerms): void {
  const r = input.recalculation;
  const t = input.terms;
  if (r.restFrequency !== 'SAME_AS_REPAYMENT_PERIOD')
    bad('interestRecalculation.restFrequency', 'cumulative schedules support SAME_AS_REPAYMENT_PERIOD only');
  if (r.compounding !== 'NONE') bad('interestRecalculation.compounding', 'cumulative schedules support NONE only');
  if (r.rescheduleStrategy !== 'REDUCE_EMI_AMOUNT' && r.rescheduleStrategy !== 'REDUCE_NUMBER_OF_INSTALLMENTS')
    bad(
      'interestRecalculation.rescheduleStrategy',
      'cumulative schedules support REDUCE_EMI_AMOUNT and REDUCE_NUMBER_OF_INSTALLMENTS only',
    );
  if (t.amortization !== 'EQUAL_INSTALLMENTS')
    bad('amortization', 'interest recalculation on cumulative schedules needs EQUAL_INSTALLMENTS');
  if (t.graceOnPrincipalPeriods > 0 || t.graceOnInterestPaymentPeriods > 0 || t.interestFreePeriods > 0)
    bad('graceOnPrincipalPeriods', 'grace is not supported with interest recalculation on cumulative schedules');
  if (t.disbursementDate !== t.expectedDisbursementDate)
    bad('disbursementDate', 'must be the expected disbursement date with interest recalculation');
}

type Row = {
  from: string;
  due: string;
  principal: bigint;
  interest: bigint;
  paidPrincipal: bigint;
  paidInterest: bigint;
};

function rateTermsOf(t: ScheduleTerms): CumulativeRateTerms {
  return {
    annualRate: parseDec(t.annualInterestRate),
    frequency: t.repaymentFrequency,
    every: t.repaymentEvery,
    method: t.interestCalculationPeriod,
    allowPartialPeriodInterest: t.allowPartialPeriodInterest,
    daysInYear: t.daysInYear,
    daysInMonth: t.daysInMonth,
    seedDate: t.firstRepaymentDate ?? t.expectedDisbursementDate,
  };
}

function times(c: MoneyContext, amount: bigint, rate: Dec, digits: number): bigint {
  return minor(c, roundMoney(c, setScale(mul(fromMinor(amount, digits), rate), digits, c.mode)));
}

function emiFor(c: MoneyContext, t: ScheduleTerms, balance: bigint, periods: number): bigint {
  const rc = { mode: c.mode };
  const [ps, pe] = pmtPeriod(t.expectedDisbursementDate, t.repaymentFrequency, t.repaymentEvery);
  const rate = cumulativePeriodicRate(rc, rateTermsOf(t), ps, pe, true);
  const payment = pmtDouble(toNumber(rate), periods, -toNumber(fromMinor(balance, t.digits)));
  return minor(c, roundMoney(c, fromDouble(payment)));
}

function moneyOf(t: ScheduleTerms): MoneyContext {
  return {
    digits: t.digits,
    mode: t.roundingMode,
    currencyMultiple: t.digits === 0 ? t.currencyInMultiplesOf : 0,
    installmentMultiple: t.installmentAmountInMultiplesOf,
  };
}

export function recalculateCumulative(input: RecalculationTerms, calendar?: WorkingCalendar): RecalculatedSchedule {
  checkCumulativeRecalculation(input);
  const t = input.terms;
  const c = moneyOf(t);
  const rc = { mode: c.mode };
  const rateTerms = rateTermsOf(t);
  const plain = generateCumulative(t, c, calendar);
  const dates = plain.map((p) => ({ from: p.fromDate, due: p.dueDate }));
  const n = dates.length;
  let emi = plain[0].principal + plain[0].interest;
  const txs = [...input.transactions].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  const asOf = input.asOf ?? (txs.length ? txs[txs.length - 1].date : t.disbursementDate);

  // Principal repaid, with the rest date from which it stops bearing interest.
  const repaid: { effective: string; amount: bigint }[] = [];
  const restDateFor = (date: string) => (dates.find((d) => d.due >= date) ?? dates[n - 1]).due;
  const rows: Row[] = [];
  const processed: ProcessedTransaction[] = [];
  let txIndex = 0;
  let scheduled = t.principal; // projected balance after the installments built so far

  const allocate = (tx: { date: string; amount: bigint }) => {
    let left = tx.amount;
    let principal = 0n;
    let interest = 0n;
    // Interest then principal, oldest installment first, for installments due on or before the
    // period holding the date.
    for (const r of rows) {
      if (left === 0n) break;
      const i = r.interest - r.paidInterest;
      const pi = i < left ? i : left;
      r.paidInterest += pi;
      interest += pi;
      left -= pi;
      const p = r.principal - r.paidPrincipal;
      const pp = p < left ? p : left;
      r.paidPrincipal += pp;
      principal += pp;
      left -= pp;
    }
    let prepaid = 0n;
    if (left > 0n) {
      // Paid in advance: more principal on the installment holding the date.
      const holder = rows[rows.length - 1];
      const room = scheduled;
      const extra = left < room ? left : room;
      holder.principal += extra;
      holder.paidPrincipal += extra;
      scheduled -= extra;
      principal += extra;
      prepaid = extra;
      left -= extra;
    }
    repaid.push({ effective: restDateFor(tx.date), amount: principal });
    processed.push({ type: 'REPAYMENT', date: tx.date, amount: tx.amount, principal, interest, excess: left });
    return prepaid;
  };

  for (let i = 0; scheduled > 0n; i++) {
    if (i >= n) bad('transactions', 'the repayments do not close the loan within its term');
    const { from, due } = dates[i];
    let balance: bigint;
    if (from < asOf)
      balance = t.principal - repaid.filter((r) => r.effective <= from).reduce((s, r) => s + r.amount, 0n);
    else balance = scheduled;
    const rate = cumulativePeriodicRate(rc, rateTerms, from, due, false);
    const interest = times(c, balance, rate, t.digits);
    let principal = emi - interest;
    if (i === n - 1 || principal > scheduled) principal = scheduled;
    if (principal < 0n) principal = 0n;
    rows.push({ from, due, principal, interest, paidPrincipal: 0n, paidInterest: 0n });
    scheduled -= principal;
    // Repayments made in this period (after its start, up to its due date).
    let prepaid = 0n;
    while (txIndex < txs.length && (txs[txIndex].date <= due || i === n - 1)) {
      prepaid += allocate(txs[txIndex]);
      txIndex++;
    }
    if (prepaid > 0n && input.recalculation.rescheduleStrategy === 'REDUCE_EMI_AMOUNT' && i < n - 1 && scheduled > 0n) {
      emi = emiFor(c, t, scheduled, n - 1 - i);
    }
  }
  // Repayments after the last installment was built (the loan closed earlier).
  while (txIndex < txs.length) {
    allocate(txs[txIndex]);
    txIndex++;
  }

  let balance = t.principal;
  const totals = { principal: 0n, interest: 0n, fees: 0n, penalties: 0n, total: 0n, paid: 0n, outstanding: 0n };
  const installments: RecalculatedInstallment[] = rows.map((r, k) => {
    balance -= r.principal;
    const total = r.principal + r.interest;
    const paid = r.paidPrincipal + r.paidInterest;
    totals.principal += r.principal;
    totals.interest += r.interest;
    totals.total += total;
    totals.paid += paid;
    totals.outstanding += total - paid;
    return {
      number: k + 1,
      fromDate: r.from,
      dueDate: r.due,
      principal: r.principal,
      interest: r.interest,
      fees: 0n,
      penalties: 0n,
      total,
      balance,
      paidPrincipal: r.paidPrincipal,
      paidInterest: r.paidInterest,
      paidFees: 0n,
      paidPenalties: 0n,
      paid,
      outstanding: total - paid,
    };
  });
  return {
    currency: t.currency,
    digits: t.digits,
    installments,
    transactions: processed,
    totals,
    preClosure:
      input.asOf !== null ? preClose(t, c, rateTerms, rows, input.asOf, input.recalculation.preClosureStrategy) : null,
  };
}

/** Outstanding principal + unpaid interest of earlier installments + the current period's interest to the date. */
function preClose(
  t: ScheduleTerms,
  c: MoneyContext,
  rateTerms: CumulativeRateTerms,
  rows: Row[],
  date: string,
  strategy: RecalculationTerms['recalculation']['preClosureStrategy'],
): PreClosure {
  const principal = rows.reduce((s, r) => s + r.principal - r.paidPrincipal, 0n);
  let interest = 0n;
  for (const r of rows) {
    if (r.due < date) interest += r.interest - r.paidInterest;
    else if (r.from < date) {
      // The period holding the date: its interest to the date (or whole, to the rest date).
      let owed = r.interest;
      if (strategy === 'TILL_PRE_CLOSURE_DATE' && date < r.due) {
        const balance = principal + rows.filter((x) => x.from >= r.from).reduce((s, x) => s + x.paidPrincipal, 0n);
        const rate = cumulativePeriodicRate(
          { mode: c.mode },
          { ...rateTerms, allowPartialPeriodInterest: true },
          r.from,
          date,
          false,
        );
        owed = times(c, balance, rate, t.digits);
      }
      const left = owed - r.paidInterest;
      if (left > 0n) interest += left;
    }
  }
  return { date, principal, interest, total: principal + interest };
}

registerCumulativeRecalculation(recalculateCumulative);
