import { AppError } from '../errors/app-error.ts';
import { formatMinor } from '../money/money.ts';
import { parseAmount } from '../money/parse.ts';
import { cmp, type Dec, fromMinor, signum } from './decimal.ts';
import { isValidDate } from './dates.ts';
import { dueDateSequence, unadjustedDueDates } from './due-dates.ts';
import { minor, minus, plus, roundMoney, zero, type MoneyContext } from './fineract-money.ts';
import { InterestScheduleModel } from './progressive-model.ts';
import { parseCalendar, parseTerms } from './terms.ts';
import { checkMaxOutstanding } from './tranches.ts';
import type { AllocationStrategyCode, ScheduleTerms, Tranche, WorkingCalendar } from './types.ts';
import { ALLOCATION_STRATEGY_CODES } from './allocation.ts';

/**
 * Interest recalculation (Fineract "interest recalculation enabled" products): the schedule as it
 * stands after the loan's repayments, with interest charged day by day on the principal actually
 * outstanding. Pure: terms + transactions + an "as of" date in, schedule out.
 *
 * Progressive schedules follow Fineract's AdvancedPaymentScheduleTransactionProcessor driving the
 * ProgressiveEMICalculator (progressive-model.ts):
 * - a repayment is split with the advanced allocation order (past due, then due, then in advance;
 *   principal before interest inside each, the next or last future installment first);
 * - an in-advance principal payment is a balance correction on its date: the period's interest is
 *   re-split there and later periods see the lower balance; the EMI stays and the last unpaid
 *   installment absorbs the difference (Fineract's progressive behaviour at the reference snapshot);
 * - in-advance interest is what has accrued up to the payment date (TILL_PRE_CLOSURE_DATE) or to
 *   the period's due date (TILL_REST_FREQUENCY_DATE);
 * - overdue principal keeps bearing interest: with DAILY rest it is carried on until the day it is
 *   looked at (the transaction date or `asOf`), with SAME_AS_REPAYMENT_PERIOD rest until the due date
 *   of the period holding that day;
 * - with several disbursements (`disbursements`), each tranche is a disbursement into the model on its
 *   date, in date order among the repayments (before the repayments of its own day): it splits the
 *   interest period there and recomputes the EMI of the periods from then on, on the balance the
 *   repayments so far left (ProgressiveEMICalculator.addDisbursement inside the transaction replay).
 */

export type RestFrequency = 'SAME_AS_REPAYMENT_PERIOD' | 'DAILY' | 'WEEKLY' | 'MONTHLY';
export type Compounding = 'NONE' | 'INTEREST' | 'FEE' | 'INTEREST_AND_FEE';
export type RescheduleStrategy =
  'REDUCE_EMI_AMOUNT' | 'REDUCE_NUMBER_OF_INSTALLMENTS' | 'RESCHEDULE_NEXT_REPAYMENTS' | 'ADJUST_LAST_UNPAID_PERIOD';
export type PreClosureStrategy = 'TILL_PRE_CLOSURE_DATE' | 'TILL_REST_FREQUENCY_DATE';
export type FutureInstallmentRule = 'NEXT_INSTALLMENT' | 'LAST_INSTALLMENT';

/** Where a WEEKLY or MONTHLY calendar falls: an ISO weekday (1 = Monday) or a day of the month (1–28). */
export type RecurrenceDay = { dayOfWeek: number | null; dayOfMonth: number | null };

export type InterestRecalculation = {
  restFrequency: RestFrequency;
  restInterval: number;
  /** WEEKLY rest on this weekday, MONTHLY on this day [both null: the disbursement date's]. */
  restDay: RecurrenceDay;
  compounding: Compounding;
  /** When unpaid interest/fees join the interest-bearing balance [SAME_AS_REPAYMENT_PERIOD]. */
  compoundingFrequency: RestFrequency;
  compoundingInterval: number;
  compoundingDay: RecurrenceDay;
  rescheduleStrategy: RescheduleStrategy;
  preClosureStrategy: PreClosureStrategy;
  futureInstallmentRule: FutureInstallmentRule;
};

export type LoanTransactionInput = { type: 'REPAYMENT'; date: string; amount: bigint };

export type RecalculationTerms = {
  terms: ScheduleTerms;
  recalculation: InterestRecalculation;
  transactions: LoanTransactionInput[];
  asOf: string | null;
  /**
   * The loan's repayment strategy [mifos-standard-strategy]. Only the cumulative engine reads it: an
   * interest-first one (isInterestFirstStrategy) splits a period at a repayment between its due dates.
   */
  allocationStrategy?: AllocationStrategyCode;
};

export type RecalculatedInstallment = {
  number: number;
  fromDate: string;
  dueDate: string;
  principal: bigint;
  interest: bigint;
  fees: bigint;
  penalties: bigint;
  total: bigint;
  balance: bigint;
  paidPrincipal: bigint;
  paidInterest: bigint;
  paidFees: bigint;
  paidPenalties: bigint;
  paid: bigint;
  outstanding: bigint;
};

export type ProcessedTransaction = {
  type: 'REPAYMENT';
  date: string;
  amount: bigint;
  principal: bigint;
  interest: bigint;
  /** Only when the repayment paid some (cumulative schedules with charges). */
  fees?: bigint;
  penalties?: bigint;
  /** Money left after everything owed was paid (overpayment). */
  excess: bigint;
};

/** `fees`/`penalties` only when some are owed (cumulative schedules with charges); `total` counts them. */
export type PreClosure = {
  date: string;
  principal: bigint;
  interest: bigint;
  fees?: bigint;
  penalties?: bigint;
  total: bigint;
};

export type RecalculatedSchedule = {
  currency: string;
  digits: number;
  installments: RecalculatedInstallment[];
  transactions: ProcessedTransaction[];
  totals: {
    principal: bigint;
    interest: bigint;
    fees: bigint;
    penalties: bigint;
    total: bigint;
    paid: bigint;
    outstanding: bigint;
  };
  preClosure: PreClosure | null;
  /** The tranches the schedule carries, when the terms have `disbursements`. */
  disbursements?: Tranche[];
};

// ---------------------------------------------------------------------------------------------
// Terms

function bad(field: string, message: string): never {
  throw new AppError('BAD_REQUEST', `${field}: ${message}`, { field });
}

function pick<T extends string>(o: Record<string, unknown>, field: string, allowed: readonly T[], fallback: T): T {
  const v = o[field];
  if (v === undefined || v === null) return fallback;
  const text = typeof v === 'string' ? v.trim().toUpperCase() : v;
  if (typeof text !== 'string' || !(allowed as readonly string[]).includes(text)) {
    bad(`interestRecalculation.${field}`, `must be one of ${allowed.join(', ')}, got ${JSON.stringify(v)}`);
  }
  return text as T;
}

export const REST_FREQUENCIES: readonly RestFrequency[] = ['SAME_AS_REPAYMENT_PERIOD', 'DAILY', 'WEEKLY', 'MONTHLY'];
export const COMPOUNDINGS: readonly Compounding[] = ['NONE', 'INTEREST', 'FEE', 'INTEREST_AND_FEE'];
export const RESCHEDULE_STRATEGIES: readonly RescheduleStrategy[] = [
  'REDUCE_EMI_AMOUNT',
  'REDUCE_NUMBER_OF_INSTALLMENTS',
  'RESCHEDULE_NEXT_REPAYMENTS',
  'ADJUST_LAST_UNPAID_PERIOD',
];
export const PRE_CLOSURE_STRATEGIES: readonly PreClosureStrategy[] = [
  'TILL_PRE_CLOSURE_DATE',
  'TILL_REST_FREQUENCY_DATE',
];

function wholeNumber(o: Record<string, unknown>, field: string, min: number, max: number): number {
  const v = o[field] ?? min;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
    bad(`interestRecalculation.${field}`, `must be a whole number between ${min} and ${max}`);
  return v;
}

/**
 * `<prefix>DayOfWeek` (WEEKLY only) or `<prefix>DayOfMonth` (MONTHLY only, 1–28 as Fineract's product
 * form offers). Fineract's "nth weekday of the month" is not supported: it is refused by name.
 */
function recurrenceDay(o: Record<string, unknown>, prefix: string, frequency: RestFrequency): RecurrenceDay {
  const nth = o[`${prefix}NthDay`];
  if (nth !== undefined && nth !== null)
    bad(
      `interestRecalculation.${prefix}NthDay`,
      'an nth weekday of the month is not supported; use a day of the month',
    );
  const read = (suffix: string, only: RestFrequency, max: number): number | null => {
    const key = `${prefix}${suffix}`;
    if (o[key] === undefined || o[key] === null) return null;
    if (frequency !== only) bad(`interestRecalculation.${key}`, `is only for a ${only} frequency`);
    return wholeNumber(o, key, 1, max);
  };
  return { dayOfWeek: read('DayOfWeek', 'WEEKLY', 7), dayOfMonth: read('DayOfMonth', 'MONTHLY', 28) };
}

/** Parses the optional `interestRecalculation` object; null when absent. */
export function parseInterestRecalculation(
  input: unknown,
  scheduleType: ScheduleTerms['scheduleType'],
): InterestRecalculation | null {
  if (input === undefined || input === null || input === false) return null;
  const o: Record<string, unknown> = input === true ? {} : (input as Record<string, unknown>);
  if (typeof o !== 'object' || Array.isArray(o)) bad('interestRecalculation', 'must be an object');
  const progressive = scheduleType === 'PROGRESSIVE';
  const restFrequency = pick(o, 'restFrequency', REST_FREQUENCIES, progressive ? 'DAILY' : 'SAME_AS_REPAYMENT_PERIOD');
  const restInterval = wholeNumber(o, 'restInterval', 1, 366);
  const restDay = recurrenceDay(o, 'rest', restFrequency);
  const compounding = pick(o, 'compounding', COMPOUNDINGS, 'NONE');
  const compoundingFrequency = pick(o, 'compoundingFrequency', REST_FREQUENCIES, 'SAME_AS_REPAYMENT_PERIOD');
  const compoundingInterval = wholeNumber(o, 'compoundingInterval', 1, 366);
  const compoundingDay = recurrenceDay(o, 'compounding', compoundingFrequency);
  if (compounding === 'NONE') {
    for (const key of [
      'compoundingFrequency',
      'compoundingInterval',
      'compoundingDayOfWeek',
      'compoundingDayOfMonth',
    ]) {
      if (o[key] !== undefined && o[key] !== null)
        bad(`interestRecalculation.${key}`, 'is only for a compounding other than NONE');
    }
  }
  const rescheduleStrategy = pick(
    o,
    'rescheduleStrategy',
    RESCHEDULE_STRATEGIES,
    progressive ? 'ADJUST_LAST_UNPAID_PERIOD' : 'REDUCE_EMI_AMOUNT',
  );
  const preClosureStrategy = pick(o, 'preClosureStrategy', PRE_CLOSURE_STRATEGIES, 'TILL_PRE_CLOSURE_DATE');
  const futureInstallmentRule = pick<FutureInstallmentRule>(
    o,
    'futureInstallmentRule',
    ['NEXT_INSTALLMENT', 'LAST_INSTALLMENT'],
    'NEXT_INSTALLMENT',
  );
  if (progressive) {
    // Fineract's progressive engine (reference snapshot) keeps the EMI and adjusts the last unpaid
    // period, recalculates on DAILY or SAME_AS_REPAYMENT_PERIOD rests and does not compound.
    if (rescheduleStrategy !== 'ADJUST_LAST_UNPAID_PERIOD')
      bad('interestRecalculation.rescheduleStrategy', 'a PROGRESSIVE schedule uses ADJUST_LAST_UNPAID_PERIOD');
    if (restFrequency !== 'DAILY' && restFrequency !== 'SAME_AS_REPAYMENT_PERIOD')
      bad(
        'interestRecalculation.restFrequency',
        'a PROGRESSIVE schedule recalculates DAILY or SAME_AS_REPAYMENT_PERIOD',
      );
    if (compounding !== 'NONE') bad('interestRecalculation.compounding', 'a PROGRESSIVE schedule does not compound');
  } else if (rescheduleStrategy === 'ADJUST_LAST_UNPAID_PERIOD') {
    bad('interestRecalculation.rescheduleStrategy', 'ADJUST_LAST_UNPAID_PERIOD is for PROGRESSIVE schedules');
  }
  return {
    restFrequency,
    restInterval,
    restDay,
    compounding,
    compoundingFrequency,
    compoundingInterval,
    compoundingDay,
    rescheduleStrategy,
    preClosureStrategy,
    futureInstallmentRule,
  };
}

export function parseTransactions(input: unknown, digits: number): LoanTransactionInput[] {
  if (input === undefined || input === null) return [];
  if (!Array.isArray(input)) bad('transactions', 'must be a list of { type: "REPAYMENT", date, amount }');
  return input.map((raw, i) => {
    const field = `transactions[${i}]`;
    if (typeof raw !== 'object' || raw === null) bad(field, 'must be an object { type, date, amount }');
    const o = raw as Record<string, unknown>;
    const type = typeof o.type === 'string' ? o.type.trim().toUpperCase() : 'REPAYMENT';
    if (type !== 'REPAYMENT') bad(`${field}.type`, 'must be REPAYMENT');
    if (typeof o.date !== 'string' || !isValidDate(o.date)) bad(`${field}.date`, 'must be a calendar date YYYY-MM-DD');
    const amount = parseAmount(o.amount, { digits });
    if (!amount.ok || amount.minor <= 0n) bad(`${field}.amount`, 'must be a positive amount');
    return { type: 'REPAYMENT' as const, date: o.date, amount: amount.minor };
  });
}

/** Terms JSON with `interestRecalculation`, `transactions`, `asOf` → validated input. */
export function parseRecalculationTerms(input: unknown): RecalculationTerms {
  const terms = parseTerms(input);
  const o = input as Record<string, unknown>;
  const recalculation =
    parseInterestRecalculation(o.interestRecalculation, terms.scheduleType) ??
    bad('interestRecalculation', 'is required with transactions or asOf');
  const transactions = parseTransactions(o.transactions, terms.digits);
  for (const tx of transactions) {
    if (tx.date < terms.disbursementDate) bad('transactions', `a repayment on ${tx.date} is before the disbursement`);
  }
  const asOfRaw = o.asOf;
  let asOf: string | null = null;
  if (asOfRaw !== undefined && asOfRaw !== null) {
    if (typeof asOfRaw !== 'string' || !isValidDate(asOfRaw)) bad('asOf', 'must be a calendar date YYYY-MM-DD');
    if (asOfRaw < terms.disbursementDate) bad('asOf', 'must not be before the disbursement');
    asOf = asOfRaw;
  }
  if (terms.downPaymentPercent !== null) bad('downPaymentPercent', 'is not supported with interest recalculation');
  if (terms.scheduleType === 'CUMULATIVE' && terms.interestMethod === 'FLAT')
    bad('interestMethod', 'interest recalculation needs DECLINING_BALANCE');
  const allocationStrategy = o.allocationStrategy ?? 'mifos-standard-strategy';
  if (!(ALLOCATION_STRATEGY_CODES as readonly unknown[]).includes(allocationStrategy))
    bad('allocationStrategy', `must be one of ${ALLOCATION_STRATEGY_CODES.join(', ')}`);
  return { terms, recalculation, transactions, asOf, allocationStrategy: allocationStrategy as AllocationStrategyCode };
}

/** True when the terms JSON asks for a recalculated schedule. */
export function wantsRecalculation(input: unknown): boolean {
  if (typeof input !== 'object' || input === null) return false;
  const o = input as Record<string, unknown>;
  return (
    (o.interestRecalculation !== undefined && o.interestRecalculation !== null && o.interestRecalculation !== false) ||
    (Array.isArray(o.transactions) && o.transactions.length > 0) ||
    (o.asOf !== undefined && o.asOf !== null)
  );
}

// ---------------------------------------------------------------------------------------------
// Progressive processing

type Installment = {
  number: number;
  from: string;
  due: string;
  principal: Dec;
  interest: Dec;
  paidPrincipal: Dec;
  paidInterest: Dec;
};

type Ctx = {
  money: MoneyContext;
  model: InterestScheduleModel;
  installments: Installment[];
  rec: InterestRecalculation;
  lastOverdueChange: string | null;
};

function moneyContext(t: ScheduleTerms): MoneyContext {
  return {
    digits: t.digits,
    mode: t.roundingMode,
    currencyMultiple: t.digits === 0 ? t.currencyInMultiplesOf : 0,
    installmentMultiple: t.installmentAmountInMultiplesOf,
  };
}

function outstanding(c: MoneyContext, i: Installment): Dec {
  return plus(c, minus(c, i.principal, i.paidPrincipal), minus(c, i.interest, i.paidInterest));
}

function unpaid(c: MoneyContext, i: Installment): boolean {
  return signum(outstanding(c, i)) > 0;
}

function principalOutstanding(c: MoneyContext, i: Installment): Dec {
  return minus(c, i.principal, i.paidPrincipal);
}

/** updateRepaymentPeriods: every installment takes the model's due principal and interest. */
function syncInstallments(ctx: Ctx, byFromDate = false): void {
  const figs = ctx.model.dueFigures();
  ctx.model.periods.forEach((p, k) => {
    const inst = ctx.installments.find((i) => (byFromDate ? i.from === p.from : i.due === p.due));
    if (inst) {
      inst.principal = figs[k].duePrincipal;
      inst.interest = figs[k].dueInterest;
    }
  });
}

function adjustOverdue(ctx: Ctx, date: string, inst: Installment, overdue: Dec, aggregated: Dec): void {
  const c = ctx.money;
  let updated = false;
  if (ctx.rec.restFrequency === 'SAME_AS_REPAYMENT_PERIOD') {
    if (ctx.lastOverdueChange === null || inst.from > ctx.lastOverdueChange) {
      ctx.model.addBalanceCorrection(inst.from, overdue);
      ctx.lastOverdueChange = inst.from;
      updated = true;
      if (date > inst.from && date <= inst.due) {
        ctx.model.addBalanceCorrection(inst.due, minus(c, zero(c), aggregated));
        ctx.lastOverdueChange = inst.due;
      }
    }
  }
  if (ctx.rec.restFrequency === 'DAILY' && date !== ctx.lastOverdueChange) {
    if (ctx.lastOverdueChange === null || inst.from > ctx.lastOverdueChange) {
      ctx.model.addBalanceCorrection(inst.from, overdue);
    } else {
      ctx.model.addBalanceCorrection(ctx.lastOverdueChange, overdue);
    }
    // The overdue balance is taken as repaid on the day looked at; interest on it runs until then.
    if (date > inst.from && date <= inst.due) {
      ctx.model.addBalanceCorrection(date, minus(c, zero(c), aggregated));
      ctx.lastOverdueChange = date;
    }
    updated = true;
  }
  if (updated) syncInstallments(ctx, true);
}

/** recalculateInterestForDate: overdue principal keeps bearing interest until `date`. */
function recalculateForDate(ctx: Ctx, date: string): void {
  const c = ctx.money;
  const overdueList = ctx.installments.filter((i) => date > i.due);
  if (overdueList.length === 0) return;
  const last = ctx.installments[ctx.installments.length - 1];
  const current = ctx.installments.find((i) => i.from < date && i.due >= date) ?? last;
  let overdue = zero(c);
  let aggregated = zero(c);
  for (const inst of overdueList) {
    if (signum(overdue) !== 0) adjustOverdue(ctx, date, inst, overdue, aggregated);
    overdue = principalOutstanding(c, inst);
    aggregated = plus(c, aggregated, overdue);
  }
  if (current !== last || !(date > last.due)) adjustOverdue(ctx, date, current, overdue, aggregated);
}

function payDateInAdvance(ctx: Ctx, date: string, inst: Installment): string {
  if (ctx.rec.preClosureStrategy === 'TILL_REST_FREQUENCY_DATE' && date > inst.from && date <= inst.due)
    return inst.due;
  return date;
}

type Component = 'PRINCIPAL' | 'INTEREST';

function payComponent(
  ctx: Ctx,
  inst: Installment,
  component: Component,
  date: string,
  inAdvance: boolean,
  amount: Dec,
  paidTotals: { principal: Dec; interest: Dec },
): Dec {
  const c = ctx.money;
  let payDate = date;
  if (inAdvance) {
    payDate = payDateInAdvance(ctx, date, inst);
    const payable = ctx.model.payable(inst.due, payDate);
    if (component === 'INTEREST') inst.interest = payable.interest;
    else inst.principal = payable.principal;
  }
  const owed =
    component === 'PRINCIPAL'
      ? minus(c, inst.principal, inst.paidPrincipal)
      : minus(c, inst.interest, inst.paidInterest);
  let paid = cmp(owed, amount) < 0 ? owed : amount;
  if (component === 'PRINCIPAL') {
    // Never more principal than is still lent (a rounding cent of an EMI is not a debt).
    const lent = minus(
      c,
      ctx.model.disbursedTotal(),
      ctx.installments.reduce((s, i) => plus(c, s, i.paidPrincipal), zero(c)),
    );
    if (cmp(lent, paid) < 0) paid = lent;
  }
  if (signum(paid) < 0) paid = zero(c);
  if (component === 'PRINCIPAL') {
    inst.paidPrincipal = plus(c, inst.paidPrincipal, paid);
    paidTotals.principal = plus(c, paidTotals.principal, paid);
    ctx.model.payPrincipal(inst.due, payDate, paid);
  } else {
    inst.paidInterest = plus(c, inst.paidInterest, paid);
    paidTotals.interest = plus(c, paidTotals.interest, paid);
    ctx.model.payInterest(inst.due, paid);
  }
  syncInstallments(ctx);
  return minus(c, amount, paid);
}

function processRepayment(ctx: Ctx, tx: LoanTransactionInput): ProcessedTransaction {
  const c = ctx.money;
  recalculateForDate(ctx, tx.date);
  let amount = roundMoney(c, fromMinor(tx.amount, c.digits));
  const totals = { principal: zero(c), interest: zero(c) };
  const components: Component[] = ['PRINCIPAL', 'INTEREST'];
  for (const dueType of ['PAST_DUE', 'DUE', 'IN_ADVANCE'] as const) {
    if (signum(amount) <= 0) break;
    for (;;) {
      const open = ctx.installments.filter((i) => unpaid(c, i));
      let target: Installment | undefined;
      if (dueType === 'PAST_DUE') target = open.find((i) => tx.date > i.due);
      else if (dueType === 'DUE') target = open.find((i) => tx.date === i.due);
      else {
        const future = open.filter((i) => tx.date < i.due);
        target = ctx.rec.futureInstallmentRule === 'LAST_INSTALLMENT' ? future[future.length - 1] : future[0];
      }
      // No installment of this kind left: the next kind (Fineract's exit flag).
      if (!target) break;
      const before = amount;
      for (const component of components) {
        amount = payComponent(ctx, target, component, tx.date, dueType === 'IN_ADVANCE', amount, totals);
      }
      if (!ctx.installments.some((i) => unpaid(c, i)) || signum(amount) <= 0) break;
      // Nothing more could go to this installment (all that is lent is repaid): the rest is excess.
      if (cmp(amount, before) === 0) break;
    }
  }
  return {
    type: 'REPAYMENT',
    date: tx.date,
    amount: tx.amount,
    principal: minor(c, totals.principal),
    interest: minor(c, totals.interest),
    excess: minor(c, amount),
  };
}

function progressiveDueDates(t: ScheduleTerms, calendar?: WorkingCalendar): { from: string; due: string }[] {
  const start = t.expectedDisbursementDate;
  const dueAt = dueDateSequence(
    start,
    t.firstRepaymentDate,
    t.repaymentFrequency,
    t.repaymentEvery,
    calendar,
    t.disbursementDate,
  );
  const dues = Array.from({ length: t.numberOfRepayments }, (_, i) => dueAt(i));
  return dues.map((due, i) => ({ from: i === 0 ? start : dues[i - 1], due }));
}

function checkFirstDue(t: ScheduleTerms): void {
  const [firstDue] = unadjustedDueDates(
    t.expectedDisbursementDate,
    t.firstRepaymentDate,
    1,
    t.repaymentFrequency,
    t.repaymentEvery,
  );
  if (t.disbursementDate >= firstDue) bad('disbursementDate', `must be before the first due date ${firstDue}`);
}

type Processed = { ctx: Ctx; transactions: ProcessedTransaction[]; asOf: string };

/** The disbursements of the terms: their tranches, else the principal on the disbursement date. */
function tranchesOf(t: ScheduleTerms): Tranche[] {
  return t.disbursements ?? [{ date: t.disbursementDate, amount: t.principal }];
}

/** handleDisbursementWithEMICalculator: the tranche goes into the model, later installments follow. */
function disburseTranche(ctx: Ctx, t: ScheduleTerms, tranche: Tranche): void {
  const c = ctx.money;
  const periods = ctx.model.periods;
  if (tranche.date < periods[0].from || tranche.date > periods[periods.length - 1].due)
    bad('disbursements', `the tranche of ${tranche.date} falls outside the repayment periods`);
  // The cap is on the principal actually owed, repayments included (Fineract checks the loan's balance).
  const paid = ctx.installments.reduce((s, i) => plus(c, s, i.paidPrincipal), zero(c));
  checkMaxOutstanding(t, minor(c, minus(c, ctx.model.disbursedTotal(), paid)), tranche);
  ctx.model.addDisbursement(tranche.date, roundMoney(c, fromMinor(tranche.amount, t.digits)));
  // Fineract updates only the installments due from the tranche on; earlier periods keep their figures
  // in the model too, except a rounding cent the model held back while less was lent (figures()), which
  // the earlier installment gets back here so the installments repay exactly what was disbursed.
  syncInstallments(ctx);
}

/** Options for a loan already on the books: its installments' dates stand (they do not move). */
export type RecalculationOptions = { periods?: { from: string; due: string }[] };

function processProgressive(
  input: RecalculationTerms,
  calendar?: WorkingCalendar,
  options?: RecalculationOptions,
): Processed {
  const t = input.terms;
  const money = moneyContext(t);
  let dates: { from: string; due: string }[];
  if (options?.periods && options.periods.length > 0) dates = options.periods;
  else {
    checkFirstDue(t);
    dates = progressiveDueDates(t, calendar);
  }
  const model = InterestScheduleModel.forTerms(t, money, dates);
  const z = zero(money);
  const installments: Installment[] = dates.map((d, i) => ({
    number: i + 1,
    from: d.from,
    due: d.due,
    principal: z,
    interest: z,
    paidPrincipal: z,
    paidInterest: z,
  }));
  const ctx: Ctx = { money, model, installments, rec: input.recalculation, lastOverdueChange: null };
  const ordered = [...input.transactions].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  const tranches = tranchesOf(t);
  let next = 0;
  const transactions: ProcessedTransaction[] = [];
  for (const tx of ordered) {
    // A tranche counts before the repayments of its own day.
    while (next < tranches.length && tranches[next].date <= tx.date) disburseTranche(ctx, t, tranches[next++]);
    transactions.push(processRepayment(ctx, tx));
  }
  while (next < tranches.length) disburseTranche(ctx, t, tranches[next++]);
  const asOf = input.asOf ?? (ordered.length ? ordered[ordered.length - 1].date : t.disbursementDate);
  recalculateForDate(ctx, asOf);
  return { ctx, transactions, asOf };
}

/** calculatePrepaymentAmount: outstanding principal and the interest payable up to the date. */
function progressivePreClosure(ctx: Ctx, date: string): PreClosure {
  const c = ctx.money;
  const list = ctx.installments;
  let target = date;
  if (ctx.rec.preClosureStrategy === 'TILL_REST_FREQUENCY_DATE') {
    // Fineract takes the due date of the installment strictly around the date, else the first one's.
    target = (list.find((i) => i.from < date && i.due > date) ?? list[0]).due;
  }
  const actual = list.find((i) => target > i.from && target <= i.due) ?? list[0];
  const payable = ctx.model.payable(actual.due, target);
  // The principal still owed. Fineract reads the balance of the interest period holding the date,
  // which leaves out a principal payment made on that very day (its correction closes the period);
  // outside that case both are the same.
  const principal = list.reduce((s, i) => s + minor(c, i.principal) - minor(c, i.paidPrincipal), 0n);
  // Fineract leaves the interest still owed on earlier (overdue) installments out of the quote (a TODO
  // in calculatePrepaymentAmount); a quote that did not close the loan would be of no use, so it is added.
  let pastDueInterest = zero(c);
  for (const i of list) {
    if (i.due <= actual.from) pastDueInterest = plus(c, pastDueInterest, minus(c, i.interest, i.paidInterest));
  }
  // Interest already paid on the period holding the date is not owed again.
  let periodInterest = minus(c, payable.interest, actual.paidInterest);
  if (signum(periodInterest) < 0) periodInterest = zero(c);
  const interest = minor(c, plus(c, periodInterest, pastDueInterest));
  return { date, principal, interest, total: principal + interest };
}

function toResult(t: ScheduleTerms, processed: Processed, withPreClosure: boolean): RecalculatedSchedule {
  const { ctx } = processed;
  const c = ctx.money;
  const tranches = tranchesOf(t);
  let repaid = 0n;
  const totals = { principal: 0n, interest: 0n, fees: 0n, penalties: 0n, total: 0n, paid: 0n, outstanding: 0n };
  const installments = ctx.installments.map((i) => {
    const principal = minor(c, i.principal);
    const interest = minor(c, i.interest);
    const paidPrincipal = minor(c, i.paidPrincipal);
    const paidInterest = minor(c, i.paidInterest);
    repaid += principal;
    // Outstanding after the installment: what was lent up to its due date less the principal so far.
    const lent = tranches.filter((d) => d.date <= i.due).reduce((s, d) => s + d.amount, 0n);
    const balance = lent - repaid;
    const total = principal + interest;
    const paid = paidPrincipal + paidInterest;
    totals.principal += principal;
    totals.interest += interest;
    totals.total += total;
    totals.paid += paid;
    totals.outstanding += total - paid;
    return {
      number: i.number,
      fromDate: i.from,
      dueDate: i.due,
      principal,
      interest,
      fees: 0n,
      penalties: 0n,
      total,
      balance: balance < 0n ? 0n : balance,
      paidPrincipal,
      paidInterest,
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
    transactions: processed.transactions,
    totals,
    preClosure: withPreClosure ? progressivePreClosure(ctx, processed.asOf) : null,
    ...(t.disbursements ? { disbursements: t.disbursements.map((d) => ({ ...d })) } : {}),
  };
}

/**
 * The schedule after the transactions, as of `asOf` (default: the last transaction, else the
 * disbursement), with the pre-closure amount on `asOf` when it was given.
 */
export function recalculateSchedule(
  input: RecalculationTerms,
  calendar?: WorkingCalendar,
  options?: RecalculationOptions,
): RecalculatedSchedule {
  if (input.terms.scheduleType !== 'PROGRESSIVE') return recalculateCumulativeSchedule(input, calendar);
  return toResult(input.terms, processProgressive(input, calendar, options), input.asOf !== null);
}

/** What closes the loan on `date` after the transactions: outstanding principal + interest to then. */
export function preClosureAmount(
  terms: RecalculationTerms['terms'],
  recalculation: InterestRecalculation,
  transactions: LoanTransactionInput[],
  date: string,
  calendar?: WorkingCalendar,
  options?: RecalculationOptions,
): PreClosure {
  const result = recalculateSchedule({ terms, recalculation, transactions, asOf: date }, calendar, options);
  return result.preClosure as PreClosure;
}

// Cumulative recalculation lives in recalculation-cumulative.ts; set by that module on import.
let cumulativeImpl: ((input: RecalculationTerms, calendar?: WorkingCalendar) => RecalculatedSchedule) | null = null;

export function registerCumulativeRecalculation(
  impl: (input: RecalculationTerms, calendar?: WorkingCalendar) => RecalculatedSchedule,
): void {
  cumulativeImpl = impl;
}

function recalculateCumulativeSchedule(input: RecalculationTerms, calendar?: WorkingCalendar): RecalculatedSchedule {
  if (!cumulativeImpl) bad('scheduleType', 'interest recalculation is available for PROGRESSIVE schedules only');
  return cumulativeImpl(input, calendar);
}

// ---------------------------------------------------------------------------------------------
// JSON

export type RecalculatedScheduleJson = {
  currency: string;
  installments: {
    number: number;
    fromDate: string;
    dueDate: string;
    principal: string;
    interest: string;
    fees: string;
    penalties: string;
    total: string;
    balance: string;
    downPayment: boolean;
    paidPrincipal: string;
    paidInterest: string;
    paidFees: string;
    paidPenalties: string;
    paid: string;
    outstanding: string;
  }[];
  totals: {
    principal: string;
    interest: string;
    fees: string;
    penalties: string;
    total: string;
    paid: string;
    outstanding: string;
  };
  transactions: {
    type: 'REPAYMENT';
    date: string;
    amount: string;
    principal: string;
    interest: string;
    fees?: string;
    penalties?: string;
    excess: string;
  }[];
  preClosure?: { date: string; principal: string; interest: string; fees?: string; penalties?: string; total: string };
  disbursements?: { date: string; amount: string }[];
};

export function recalculatedToJson(s: RecalculatedSchedule): RecalculatedScheduleJson {
  const f = (m: bigint) => formatMinor(m, s.digits);
  return {
    currency: s.currency,
    installments: s.installments.map((i) => ({
      number: i.number,
      fromDate: i.fromDate,
      dueDate: i.dueDate,
      principal: f(i.principal),
      interest: f(i.interest),
      fees: f(i.fees),
      penalties: f(i.penalties),
      total: f(i.total),
      balance: f(i.balance),
      downPayment: false,
      paidPrincipal: f(i.paidPrincipal),
      paidInterest: f(i.paidInterest),
      paidFees: f(i.paidFees),
      paidPenalties: f(i.paidPenalties),
      paid: f(i.paid),
      outstanding: f(i.outstanding),
    })),
    totals: {
      principal: f(s.totals.principal),
      interest: f(s.totals.interest),
      fees: f(s.totals.fees),
      penalties: f(s.totals.penalties),
      total: f(s.totals.total),
      paid: f(s.totals.paid),
      outstanding: f(s.totals.outstanding),
    },
    transactions: s.transactions.map((t) => ({
      type: t.type,
      date: t.date,
      amount: f(t.amount),
      principal: f(t.principal),
      interest: f(t.interest),
      ...(t.fees !== undefined ? { fees: f(t.fees) } : {}),
      ...(t.penalties !== undefined ? { penalties: f(t.penalties) } : {}),
      excess: f(t.excess),
    })),
    ...(s.preClosure
      ? {
          preClosure: {
            date: s.preClosure.date,
            principal: f(s.preClosure.principal),
            interest: f(s.preClosure.interest),
            ...(s.preClosure.fees !== undefined ? { fees: f(s.preClosure.fees) } : {}),
            ...(s.preClosure.penalties !== undefined ? { penalties: f(s.preClosure.penalties) } : {}),
            total: f(s.preClosure.total),
          },
        }
      : {}),
    ...(s.disbursements ? { disbursements: s.disbursements.map((d) => ({ date: d.date, amount: f(d.amount) })) } : {}),
  };
}

/** Terms JSON with recalculation → contract JSON (used by previewSchedule). */
export function previewRecalculatedSchedule(input: unknown): RecalculatedScheduleJson {
  const parsed = parseRecalculationTerms(input);
  const calendar = parseCalendar((input as { calendar?: unknown }).calendar);
  return recalculatedToJson(recalculateSchedule(parsed, calendar));
}
