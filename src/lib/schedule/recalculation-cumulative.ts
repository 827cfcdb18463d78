import { AppError } from '../errors/app-error.ts';
import { addDays } from './dates.ts';
import { type Dec, fromDouble, fromMinor, mul, parseDec, setScale, toNumber } from './decimal.ts';
import { isInterestFirstStrategy } from './allocation.ts';
import { chargeAmount } from './charges.ts';
import { generateCumulative } from './cumulative.ts';
import { minor, roundMoney, type MoneyContext } from './fineract-money.ts';
import { cumulativePeriodicRate, type CumulativeRateTerms, pmtDouble, pmtPeriod } from './rates.ts';
import {
  type BalanceRules,
  balanceOn,
  changeDates,
  cloneState,
  compoundable,
  installmentsOf,
  newRow,
  type Row,
  type State,
} from './recalculation-balance.ts';
import { datesWithin, nextOnOrAfter, type RecurrenceCalendar } from './recalculation-calendar.ts';
import {
  type LoanTransactionInput,
  type PreClosure,
  type ProcessedTransaction,
  type RecalculatedSchedule,
  type RecalculationTerms,
  registerCumulativeRecalculation,
} from './recalculation.ts';
import { checkMaxOutstanding, trancheState } from './tranches.ts';
import type { ScheduleTerms, WorkingCalendar } from './types.ts';

/**
 * Interest recalculation on a cumulative (declining-balance, equal-installment) schedule, after the
 * recalculation branch of Fineract's AbstractCumulativeLoanScheduleGenerator: every rest frequency
 * (SAME_AS_REPAYMENT_PERIOD, DAILY, WEEKLY, MONTHLY), compounding of interest and/or fees, and the
 * strategies REDUCE_EMI_AMOUNT, REDUCE_NUMBER_OF_INSTALLMENTS and RESCHEDULE_NEXT_REPAYMENTS.
 *
 * - Periods are built one after the other on the plain schedule's dates. A period's interest is the
 *   interest-bearing balance (recalculation-balance.ts) times the rate, piece by piece where the
 *   balance changes inside the period (each piece rounded, as Fineract does); with interest
 *   compounding, interest accrued up to a compounding date inside the period joins the balance there.
 * - The installment's principal is the EMI less its interest; the last one takes what is left.
 * - Repayments of the period pay, oldest installment first, penalties, fees, interest, principal;
 *   what is left pays principal in advance on the period's installment. Then REDUCE_EMI_AMOUNT works
 *   out the annuity of the balance over the installments left, REDUCE_NUMBER_OF_INSTALLMENTS keeps the
 *   EMI (the loan ends earlier), RESCHEDULE_NEXT_REPAYMENTS takes the amount off the principal of the
 *   next installments until it is used up.
 * - A repayment inside a period can change that period's balance (daily rests): the period is built
 *   again with the change until the two agree.
 * - A repayment between two due dates that pays the loan off with the period's interest worked out
 *   only to its day (the pre-closure quote) closes the loan there (payOffBetweenDueDates).
 * - Tranches (`disbursements`, with Fineract's disbursement map in the recalculating generator): a
 *   tranche joins the interest-bearing balance on its own date (the period's interest is split there;
 *   one on a due date bears interest from the next period) and the principal still to schedule when
 *   its period is built. The EMI is not recomputed for it (the annuity of `principal` over the term,
 *   or the one REDUCE_EMI_AMOUNT last worked out); the last installment takes what is left.
 */

function bad(field: string, message: string): never {
  throw new AppError('BAD_REQUEST', `${field}: ${message}`, { field });
}

/** Refuses what this engine does not do, naming the field. */
export function checkCumulativeRecalculation(input: RecalculationTerms): void {
  const r = input.recalculation;
  const t = input.terms;
  if (r.rescheduleStrategy === 'ADJUST_LAST_UNPAID_PERIOD')
    bad('interestRecalculation.rescheduleStrategy', 'ADJUST_LAST_UNPAID_PERIOD is for PROGRESSIVE schedules');
  if (t.amortization !== 'EQUAL_INSTALLMENTS')
    bad('amortization', 'interest recalculation on cumulative schedules needs EQUAL_INSTALLMENTS');
  if (t.graceOnPrincipalPeriods > 0 || t.graceOnInterestPaymentPeriods > 0 || t.interestFreePeriods > 0)
    bad('graceOnPrincipalPeriods', 'grace is not supported with interest recalculation on cumulative schedules');
  if (t.disbursementDate !== t.expectedDisbursementDate)
    bad('disbursementDate', 'must be the expected disbursement date with interest recalculation');
  (t.charges ?? []).forEach((c, k) => {
    // The percentage of the whole loan's interest is not known until its repayments are: refused.
    if (c.timing === 'SPECIFIED_DUE_DATE' && c.calculation !== 'FLAT' && c.calculation !== 'PERCENT_OF_AMOUNT')
      bad(
        `charges[${k}].calculation`,
        'a SPECIFIED_DUE_DATE charge is FLAT or PERCENT_OF_AMOUNT with interest recalculation',
      );
  });
}

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

const take = (owed: bigint, left: bigint) => (owed <= 0n ? 0n : owed < left ? owed : left);

/** Everything a run needs that does not change while periods are built. */
type Run = {
  t: ScheduleTerms;
  c: MoneyContext;
  rateTerms: CumulativeRateTerms;
  rules: BalanceRules;
  compounding: RecurrenceCalendar | null;
  input: RecalculationTerms;
  dates: { from: string; due: string }[];
  /** An interest-first strategy: a repayment between two due dates splits the period there. */
  interestFirst: boolean;
};

/** Balance changes (from each date on) that the period's own repayments make, not yet in the state. */
type Shift = Map<string, bigint>;

/** Interest of [from, to) inside a row's period, piece by piece; `onPiece` sees each piece. */
function interestBetween(
  run: Run,
  state: State,
  from: string,
  to: string,
  whole: boolean,
  extra: Shift,
  onPiece?: (end: string, amount: bigint) => void,
): bigint {
  const cuts = new Set(changeDates(run.rules, state, from, to));
  for (const d of extra.keys()) if (d > from && d < to) cuts.add(d);
  if (run.compounding && run.input.recalculation.compounding !== 'FEE')
    for (const d of datesWithin(run.compounding, from, addDays(to, -1))) cuts.add(d);
  const bounds = [from, ...[...cuts].sort(), to];
  let total = 0n;
  for (let k = 0; k + 1 < bounds.length; k++) {
    const [a, b] = [bounds[k], bounds[k + 1]];
    const full = whole && bounds.length === 2;
    const rate = cumulativePeriodicRate(
      { mode: run.c.mode },
      full ? run.rateTerms : { ...run.rateTerms, allowPartialPeriodInterest: true },
      a,
      b,
      false,
    );
    const shift = [...extra].reduce((sum, [d, v]) => (d <= a ? sum + v : sum), 0n);
    const piece = times(run.c, balanceOn(run.rules, state, a) + shift, rate, run.t.digits);
    total += piece;
    onPiece?.(b, piece);
  }
  return total;
}

/** Fees and penalties of the period (specified-due-date ones; installment ones come after the principal). */
function datedCharges(run: Run, row: Row, first: boolean): { date: string; amount: bigint; penalty: boolean }[] {
  const out: { date: string; amount: bigint; penalty: boolean }[] = [];
  for (const ch of run.t.charges ?? []) {
    if (ch.timing !== 'SPECIFIED_DUE_DATE') continue;
    const d = ch.dueDate as string;
    if ((first ? d >= row.from : d > row.from) && d <= row.due)
      out.push({
        date: d,
        amount: chargeAmount(run.c, ch, { principal: run.t.principal, interest: 0n }),
        penalty: ch.type === 'PENALTY',
      });
  }
  return out;
}

function compoundsOn(run: Run, date: string, after: string): string | null {
  if (!run.compounding) return null;
  return nextOnOrAfter(run.compounding, date > after ? date : addDays(after, 1));
}

/** The tranches paid out inside period `i` (after its start, on or before its due date). */
function tranchesOfPeriod(run: Run, i: number) {
  const { from, due } = run.dates[i];
  return run.rules.tranches.filter((d) => d.date > from && d.date <= due);
}

/** processDisbursements: a tranche of period `i` is checked against the schedule's outstanding, then scheduled. */
function scheduleTranches(run: Run, state: State, i: number): void {
  for (const tranche of tranchesOfPeriod(run, i)) {
    checkMaxOutstanding(run.t, state.scheduled, tranche);
    state.scheduled += tranche.amount;
  }
}

/**
 * A new row of period `i` from `start` to `end` with its dated charges and its interest (the whole
 * period's rate when it is the whole period and the balance does not change inside it).
 */
function openRow(run: Run, state: State, i: number, start: string, end: string, extra: Shift): Row {
  const row = newRow(start, end);
  state.rows.push(row);
  const method = run.input.recalculation.compounding;
  const feesCompound = method === 'FEE' || method === 'INTEREST_AND_FEE';
  for (const ch of datedCharges(run, row, i === 0 && start === run.dates[0].from)) {
    if (ch.penalty) row.penalties += ch.amount;
    else row.fees += ch.amount;
    const on = feesCompound ? compoundsOn(run, ch.date, start) : null;
    if (on) row.pieces.push({ date: on, amount: ch.amount });
  }
  const interestCompounds = method === 'INTEREST' || method === 'INTEREST_AND_FEE';
  const { from, due } = run.dates[i];
  const whole = start === from && end === due;
  row.interest = interestBetween(run, state, start, end, whole, extra, (pieceEnd, amount) => {
    const on = interestCompounds ? compoundsOn(run, pieceEnd, start) : null;
    if (on && amount > 0n) row.pieces.push({ date: on, amount });
  });
  return row;
}

/** The installment of period `i` from `start` (its start, or the last repayment that split it) to its due date. */
function buildRow(run: Run, state: State, i: number, extra: Shift, start: string): Row {
  const { due } = run.dates[i];
  const n = run.dates.length;
  const row = openRow(run, state, i, start, due, extra);
  const method = run.input.recalculation.compounding;
  const feesCompound = method === 'FEE' || method === 'INTEREST_AND_FEE';
  let principal = state.emi - row.interest;
  if (
    run.input.recalculation.rescheduleStrategy === 'RESCHEDULE_NEXT_REPAYMENTS' &&
    principal > 0n &&
    state.reduce > 0n
  ) {
    const off = principal < state.reduce ? principal : state.reduce;
    principal -= off;
    state.reduce -= off;
  }
  if (i === n - 1 || principal > state.scheduled) principal = state.scheduled;
  if (principal < 0n) principal = 0n;
  row.principal = principal;
  state.scheduled -= principal;
  for (const ch of run.t.charges ?? []) {
    if (ch.timing !== 'INSTALLMENT') continue;
    const amount = chargeAmount(run.c, ch, { principal: row.principal, interest: row.interest });
    if (ch.type === 'PENALTY') row.penalties += amount;
    else row.fees += amount;
    const on = feesCompound ? compoundsOn(run, due, start) : null;
    if (on) row.pieces.push({ date: on, amount });
  }
  return row;
}

/**
 * Interest-first strategies (Fineract's handleRecalculationForNonDueDateTransactions with
 * `isInterestFirstRepaymentScheduleTransactionProcessor`): a repayment strictly between the start of
 * period `i` (or the repayment that last split it) and its due date closes an installment on its own
 * day: the interest up to that day and the dated charges up to it, no principal, no installment fee.
 * The repayment pays the installments oldest first, that one included; what is left is principal paid
 * in advance on it (the loan closes there when that is all the principal). Then:
 * - REDUCE_EMI_AMOUNT works the annuity out again over the periods left, this one included;
 * - the compounded income the repayment paid (interest, fees and penalties per the compounding) is
 *   taken off the interest-bearing balance from the repayment's rest date until the rest date of the
 *   day the schedule is looked at, besides leaving it like any paid income: Fineract's
 *   adjustCompoundedAmountWithPaidDetail puts it in the principal map at the first date and back at the
 *   second, and its compounding map never held it (it compounds on a date after the payment).
 * A second repayment on the same day goes into the same installment. Returns where the period goes on.
 */
function splitPeriod(run: Run, state: State, i: number, start: string, tx: LoanTransactionInput) {
  if (tx.date > start) openRow(run, state, i, start, tx.date, new Map());
  const prepaidBefore = state.prepaid.length;
  const result = allocate(run, state, tx);
  const income = compoundable(run.input.recalculation.compounding, {
    interest: result.interest,
    fees: result.fees ?? 0n,
    penalties: result.penalties ?? 0n,
  });
  const from = run.rules.rest(tx.date);
  const to = run.rules.rest(run.rules.asOf);
  if (income > 0n && from < to) state.paidIncomeOff.push({ from, to, amount: income });
  if (
    state.prepaid.length > prepaidBefore &&
    run.input.recalculation.rescheduleStrategy === 'REDUCE_EMI_AMOUNT' &&
    state.scheduled > 0n &&
    i < run.dates.length - 1
  )
    state.emi = emiFor(run.c, run.t, state.scheduled, run.dates.length - i);
  return { start: tx.date, result };
}

/** Pays the repayment over the rows (oldest first), the rest in advance on the last row. */
function allocate(run: Run, state: State, tx: LoanTransactionInput): ProcessedTransaction {
  let left = tx.amount;
  const paid = { principal: 0n, interest: 0n, fees: 0n, penalties: 0n };
  const method = run.input.recalculation.compounding;
  let holderInterest = 0n;
  for (const r of state.rows) {
    if (left === 0n) break;
    const penalties = take(r.penalties - r.paidPenalties, left);
    left -= penalties;
    const fees = take(r.fees - r.paidFees, left);
    left -= fees;
    const interest = take(r.interest - r.paidInterest, left);
    left -= interest;
    const principal = take(r.principal - r.paidPrincipal, left);
    left -= principal;
    if (penalties + fees + interest + principal === 0n) continue;
    r.paidPenalties += penalties;
    r.paidFees += fees;
    r.paidInterest += interest;
    r.paidPrincipal += principal;
    if (r === state.rows[state.rows.length - 1]) holderInterest = interest;
    r.payments.push({ date: tx.date, principal, income: compoundable(method, { interest, fees, penalties }) });
    paid.principal += principal;
    paid.interest += interest;
    paid.fees += fees;
    paid.penalties += penalties;
  }
  const holder = state.rows[state.rows.length - 1];
  // Principal in advance only of what was lent by the payment's day: a tranche later in the period is
  // already in `scheduled` but cannot be repaid before it is paid out (the rest is excess).
  const notYetLent = run.rules.tranches.reduce(
    (s, d) => (d.date > tx.date && d.date <= holder.due ? s + d.amount : s),
    0n,
  );
  const advance = take(state.scheduled - notYetLent, left);
  if (advance > 0n) {
    holder.principal += advance;
    holder.paidPrincipal += advance;
    holder.prepaid += advance;
    state.prepaid.push({ date: run.rules.rest(tx.date), amount: advance });
    state.scheduled -= advance;
    left -= advance;
    paid.principal += advance;
    if (run.input.recalculation.rescheduleStrategy === 'RESCHEDULE_NEXT_REPAYMENTS') state.reduce += advance;
  }
  if (left > 0n || advance > 0n) left = payOffBetweenDueDates(run, state, tx.date, holderInterest, left, paid);
  return {
    type: 'REPAYMENT',
    date: tx.date,
    amount: tx.amount,
    principal: paid.principal,
    interest: paid.interest,
    ...(paid.fees > 0n ? { fees: paid.fees } : {}),
    ...(paid.penalties > 0n ? { penalties: paid.penalties } : {}),
    excess: left,
  };
}

/**
 * A repayment between two due dates that, with the period's interest worked out only up to its day
 * (or up to its rest date under TILL_REST_FREQUENCY_DATE, as the pre-closure quote does), pays all the
 * principal closes the loan there (Fineract's handlePrepaymentOfLoan): the period's installment falls
 * due on the payment's day, its interest is the interest to that day, what the repayment had paid of
 * the whole period's interest beyond that pays the principal still scheduled, and no installment
 * follows. Otherwise the period keeps its whole interest (principal paid before its due date bears
 * interest until then). Ours: interest that earlier repayments of the period already paid stays
 * theirs (the installment's interest is not cut below it), and the period's fees and penalties stay
 * whole as the quote counts them (Fineract drops a specified-due-date charge dated after the pay-off).
 * Returns what is left of the payment (excess).
 */
function payOffBetweenDueDates(
  run: Run,
  state: State,
  date: string,
  ownInterest: bigint,
  left: bigint,
  paid: { principal: bigint; interest: bigint },
): bigint {
  const row = state.rows[state.rows.length - 1];
  if (!(row.from < date && date < row.due)) return left;
  // A tranche still to come in the period is scheduled but cannot be repaid yet: no pay-off.
  if (run.rules.tranches.some((d) => d.date > date && d.date <= row.due)) return left;
  const till = run.input.recalculation.preClosureStrategy === 'TILL_REST_FREQUENCY_DATE' ? run.rules.rest(date) : date;
  const interest = till < row.due ? interestBetween(run, state, row.from, till, false, new Map()) : row.interest;
  if (interest > row.interest) return left;
  const freedInterest = take(row.interest - interest, ownInterest);
  const rest = state.scheduled;
  if (rest > freedInterest + left) return left;
  row.due = date;
  row.interest -= freedInterest;
  row.paidInterest -= freedInterest;
  row.principal += rest;
  row.paidPrincipal += rest;
  row.prepaid += rest;
  if (rest > 0n) state.prepaid.push({ date: run.rules.rest(date), amount: rest });
  state.scheduled = 0n;
  paid.interest -= freedInterest;
  paid.principal += rest;
  return freedInterest + left - rest;
}

function runOf(input: RecalculationTerms, calendar?: WorkingCalendar) {
  const t = input.terms;
  const c = moneyOf(t);
  const r = input.recalculation;
  const plain = generateCumulative(t, c, calendar);
  const dates = plain.map((p) => ({ from: p.fromDate, due: p.dueDate }));
  // A tranche after the term gets periods of its own in the plain schedule (as in Fineract's loop).
  const tranches = trancheState(t);
  // The EMI is the annuity of the whole principal even while part of it is still to be paid out (the
  // plain schedule with tranches may cap its first installment at the first tranche).
  const emiRow = tranches ? generateCumulative({ ...t, disbursements: undefined }, c, calendar)[0] : plain[0];
  const dueDates = dates.map((d) => d.due);
  const txs = [...input.transactions].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  const asOf = input.asOf ?? (txs.length ? txs[txs.length - 1].date : t.disbursementDate);
  const start = t.expectedDisbursementDate;
  const restCalendar: RecurrenceCalendar = {
    frequency: r.restFrequency,
    interval: r.restInterval,
    day: r.restDay,
    start,
    dueDates,
  };
  const compounding: RecurrenceCalendar | null =
    r.compounding === 'NONE'
      ? null
      : { frequency: r.compoundingFrequency, interval: r.compoundingInterval, day: r.compoundingDay, start, dueDates };
  const run: Run = {
    t,
    c,
    rateTerms: rateTermsOf(t),
    rules: {
      principal: tranches ? tranches.initial : t.principal,
      tranches: tranches?.pending ?? [],
      asOf,
      compounding: r.compounding,
      rest: (d) => nextOnOrAfter(restCalendar, d),
    },
    compounding,
    input,
    dates,
    interestFirst: isInterestFirstStrategy(input.allocationStrategy ?? 'mifos-standard-strategy'),
  };
  return { run, txs, emi: emiRow.principal + emiRow.interest };
}

export function recalculateCumulative(input: RecalculationTerms, calendar?: WorkingCalendar): RecalculatedSchedule {
  checkCumulativeRecalculation(input);
  const { run, txs, emi } = runOf(input, calendar);
  const t = run.t;
  const n = run.dates.length;
  let state: State = { rows: [], prepaid: [], scheduled: run.rules.principal, emi, reduce: 0n, paidIncomeOff: [] };
  // A tranche still to come keeps the periods going even when what was lent so far is repaid.
  const trancheAhead = (i: number) => i < n && run.rules.tranches.some((d) => d.date > run.dates[i].from);
  const processed: ProcessedTransaction[] = [];
  let txIndex = 0;
  for (let i = 0; state.scheduled > 0n || trancheAhead(i); i++) {
    if (i >= n) bad('transactions', 'the repayments do not close the loan within its term');
    const { from, due } = run.dates[i];
    let end = txIndex;
    while (end < txs.length && (txs[end].date <= due || i === n - 1)) end++;
    scheduleTranches(run, state, i);
    let start = from;
    if (run.interestFirst) {
      // Repayments between the period's start and its due date split it (splitPeriod).
      const trancheAfter = (date: string) => run.rules.tranches.some((d) => d.date > date);
      while (txIndex < end && txs[txIndex].date > from && txs[txIndex].date < due) {
        if (state.scheduled === 0n && !trancheAfter(start)) break;
        const split = splitPeriod(run, state, i, start, txs[txIndex++]);
        processed.push(split.result);
        start = split.start;
      }
      // Paid off on a split: no installment follows (Fineract skips the rest of the period).
      if (start !== from && state.scheduled === 0n && !trancheAfter(start)) break;
    }
    const before = cloneState(state);
    // Changes the period's own repayments make to its balance, found by building it again.
    let shift: Shift = new Map();
    let results: ProcessedTransaction[] = [];
    for (let attempt = 0; attempt < 8; attempt++) {
      state = cloneState(before);
      buildRow(run, state, i, shift, start);
      const without = cloneState(state);
      results = txs.slice(txIndex, end).map((tx) => allocate(run, state, tx));
      const next: Shift = new Map();
      let previous = 0n;
      for (const d of changeDates(run.rules, state, start, due)) {
        const delta = balanceOn(run.rules, state, d) - balanceOn(run.rules, without, d);
        if (delta !== previous) next.set(d, delta - previous);
        previous = delta;
      }
      const same = next.size === shift.size && [...next].every(([d, v]) => shift.get(d) === v);
      shift = next;
      if (same) break;
    }
    processed.push(...results);
    txIndex = end;
    const prepaid = results.length > 0 && state.prepaid.length > before.prepaid.length;
    if (
      prepaid &&
      run.input.recalculation.rescheduleStrategy === 'REDUCE_EMI_AMOUNT' &&
      i < n - 1 &&
      state.scheduled > 0n
    )
      state.emi = emiFor(run.c, t, state.scheduled, n - 1 - i);
  }
  // Repayments after the last installment was built (the loan closed earlier).
  for (; txIndex < txs.length; txIndex++) processed.push(allocate(run, state, txs[txIndex]));
  return {
    currency: t.currency,
    digits: t.digits,
    ...installmentsOf(run.rules, state.rows),
    transactions: processed,
    preClosure: input.asOf !== null ? preClose(run, state, input.asOf) : null,
    ...(t.disbursements ? { disbursements: t.disbursements.map((d) => ({ ...d })) } : {}),
  };
}

/**
 * Outstanding principal + what is unpaid on installments due before the date + the interest of the
 * period holding the date up to the date (TILL_PRE_CLOSURE_DATE) or up to its rest date
 * (TILL_REST_FREQUENCY_DATE, the whole period when that is its due date or later), less what was
 * paid on it, + the fees and penalties of that period (Fineract's quote counts them).
 */
function preClose(run: Run, state: State, date: string): PreClosure {
  const rows = state.rows;
  // A tranche after the date is not owed yet.
  const notLent = run.rules.tranches.reduce((s, d) => (d.date > date ? s + d.amount : s), 0n);
  const principal = rows.reduce((s, r) => s + r.principal - r.paidPrincipal, 0n) - notLent;
  let interest = 0n;
  let fees = 0n;
  let penalties = 0n;
  for (const r of rows) {
    const holds = r.from < date && date <= r.due;
    if (!(r.due < date || holds)) continue;
    fees += r.fees - r.paidFees;
    penalties += r.penalties - r.paidPenalties;
    let owed = r.interest;
    if (holds) {
      const till =
        run.input.recalculation.preClosureStrategy === 'TILL_REST_FREQUENCY_DATE' ? run.rules.rest(date) : date;
      if (till < r.due) {
        // The period's balance without the rows after it (which start on or after its due date).
        const upTo = { ...state, rows: rows.filter((x) => x.from <= r.from) };
        owed = interestBetween(run, upTo, r.from, till, false, new Map());
      }
    }
    if (owed > r.paidInterest) interest += owed - r.paidInterest;
  }
  const charges = fees + penalties;
  return {
    date,
    principal,
    interest,
    ...(charges > 0n ? { fees, penalties } : {}),
    total: principal + interest + charges,
  };
}

registerCumulativeRecalculation(recalculateCumulative);
