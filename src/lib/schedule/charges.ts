import { AppError } from '../errors/app-error.ts';
import { addDays, addMonths, isValidDate } from './dates.ts';
import { add, type Dec, fromMinor, mul, parseDec, setScale, signum } from './decimal.ts';
import { type MoneyContext, roundMoney } from './fineract-money.ts';
import type {
  ChargeCalculation,
  ChargeTiming,
  ChargeType,
  OverduePenaltyFrequency,
  Schedule,
  ScheduleCharge,
  ScheduleInstallment,
  ScheduleTerms,
} from './types.ts';

/**
 * Charges in the schedule (Fineract LoanCharge with ChargeTimeType DISBURSEMENT, INSTALLMENT_FEE,
 * SPECIFIED_DUE_DATE and ChargeCalculationType FLAT, PERCENT_OF_AMOUNT, PERCENT_OF_AMOUNT_AND_INTEREST,
 * PERCENT_OF_INTEREST), applied after the principal/interest schedule is generated, plus the pure rules
 * of overdue penalties (ChargeTimeType OVERDUE_INSTALLMENT) that the daily close charges.
 *
 * How amounts are found (read from Fineract's schedule generators and LoanCharge, written anew):
 * - INSTALLMENT: on every installment except a down payment; a percentage is of that installment's
 *   principal, principal + interest, or interest; each charge's amount is rounded to the currency on
 *   its own (Money arithmetic) and added.
 * - SPECIFIED_DUE_DATE: on the installment whose period holds the date — the first regular period
 *   includes its start date, later ones run from the day after their start to their due date
 *   inclusive; a percentage is of the whole principal, principal + total interest, or total interest.
 *   A date after the last due date goes onto one extra "N+1" installment (Fineract's additional
 *   installment, `addChargeOnlyRepaymentInstallmentIfRequired`): principal and interest 0, from the
 *   last due date to the latest such charge's date, carrying every charge dated after maturity.
 * - DISBURSEMENT: due on the disbursement date. Fineract collects it there and then (a "repayment at
 *   disbursement"); our schedule carries it outside the installments, in `schedule.disbursement`,
 *   so the installments stay what the borrower repays later. Percentages as for SPECIFIED_DUE_DATE.
 */

export const CHARGE_TYPES: readonly ChargeType[] = ['FEE', 'PENALTY'];
export const CHARGE_TIMINGS: readonly ChargeTiming[] = ['DISBURSEMENT', 'INSTALLMENT', 'SPECIFIED_DUE_DATE'];
export const CHARGE_CALCULATIONS: readonly ChargeCalculation[] = [
  'FLAT',
  'PERCENT_OF_AMOUNT',
  'PERCENT_OF_AMOUNT_AND_INTEREST',
  'PERCENT_OF_INTEREST',
];

const DECIMAL = /^\d{1,15}(?:\.\d{1,6})?$/;

function bad(field: string, message: string): never {
  throw new AppError('BAD_REQUEST', `${field}: ${message}`, { field });
}

function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[], fallback?: T): T {
  if ((value === undefined || value === null) && fallback !== undefined) return fallback;
  const text = typeof value === 'string' ? value.trim().toUpperCase() : value;
  if (typeof text !== 'string' || !(allowed as readonly string[]).includes(text))
    bad(field, `must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
  return text as T;
}

/**
 * Validates the optional `charges` array of the terms JSON. `amount` is a decimal string: money in
 * the currency for FLAT (at most its digits), a percentage otherwise (0 < x ≤ 1000).
 */
export function parseCharges(input: unknown, digits: number): ScheduleCharge[] {
  if (input === undefined || input === null) return [];
  if (!Array.isArray(input)) bad('charges', 'must be a list of { type, timing, calculation, amount, dueDate? }');
  if (input.length > 50) bad('charges', 'at most 50 charges');
  return input.map((raw, k) => {
    const field = `charges[${k}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) bad(field, 'must be an object');
    const o = raw as Record<string, unknown>;
    const name = o.name === undefined || o.name === null ? null : String(o.name).slice(0, 120);
    const type = oneOf<ChargeType>(o.type, `${field}.type`, CHARGE_TYPES, 'FEE');
    const timing = oneOf<ChargeTiming>(o.timing, `${field}.timing`, CHARGE_TIMINGS);
    const calculation = oneOf<ChargeCalculation>(o.calculation, `${field}.calculation`, CHARGE_CALCULATIONS, 'FLAT');
    const amountRaw = typeof o.amount === 'number' && Number.isFinite(o.amount) ? String(o.amount) : o.amount;
    if (typeof amountRaw !== 'string' || !DECIMAL.test(amountRaw.trim()))
      bad(`${field}.amount`, `must be a positive decimal number written as a string, got ${JSON.stringify(o.amount)}`);
    const amount = amountRaw.trim();
    const value = parseDec(amount);
    if (signum(value) <= 0) bad(`${field}.amount`, 'must be greater than 0');
    if (calculation === 'FLAT' && value.s > digits) bad(`${field}.amount`, `must have at most ${digits} decimals`);
    if (calculation !== 'FLAT' && Number(amount) > 1000) bad(`${field}.amount`, 'a percentage must be at most 1000');
    let dueDate: string | null = null;
    if (timing === 'SPECIFIED_DUE_DATE') {
      if (typeof o.dueDate !== 'string' || !isValidDate(o.dueDate))
        bad(`${field}.dueDate`, 'is required for SPECIFIED_DUE_DATE (YYYY-MM-DD)');
      dueDate = o.dueDate;
    } else if (o.dueDate !== undefined && o.dueDate !== null) {
      bad(`${field}.dueDate`, 'only a SPECIFIED_DUE_DATE charge has a due date');
    }
    if (timing === 'DISBURSEMENT' && type === 'PENALTY') bad(`${field}.type`, 'a disbursement charge is a FEE');
    return { name, type, timing, calculation, amount, dueDate };
  });
}

/** percent % of base (exact), rounded the way the schedule rounds money. */
function percentOfMoney(ctx: MoneyContext, base: Dec, percent: string): Dec {
  const exact = mul(base, parseDec(percent));
  // Dividing by 100 only moves the decimal point: exact.
  return roundMoney(ctx, { u: exact.u, s: exact.s + 2 });
}

/** The amount of one charge (minor units) given the base amounts it may be a percentage of. */
export function chargeAmount(
  ctx: MoneyContext,
  charge: Pick<ScheduleCharge, 'calculation' | 'amount'>,
  base: { principal: bigint; interest: bigint },
): bigint {
  if (charge.calculation === 'FLAT') return setScale(roundMoney(ctx, parseDec(charge.amount)), ctx.digits, ctx.mode).u;
  const principal = fromMinor(base.principal, ctx.digits);
  const interest = fromMinor(base.interest, ctx.digits);
  const of =
    charge.calculation === 'PERCENT_OF_AMOUNT'
      ? principal
      : charge.calculation === 'PERCENT_OF_INTEREST'
        ? interest
        : add(principal, interest);
  return setScale(percentOfMoney(ctx, of, charge.amount), ctx.digits, ctx.mode).u;
}

/**
 * The installment whose period holds `date` (first regular period from its start date inclusive),
 * among the regular ones: a down payment and an N+1 installment hold no period.
 */
export function installmentHolding<T extends Pick<ScheduleInstallment, 'fromDate' | 'dueDate' | 'isDownPayment'>>(
  installments: (T & { isAdditional?: boolean })[],
  date: string,
): T | null {
  const regular = installments.filter((i) => !i.isDownPayment && !i.isAdditional);
  for (const [k, i] of regular.entries()) {
    const from = k === 0 ? i.fromDate <= date : i.fromDate < date;
    if (from && date <= i.dueDate) return i;
  }
  return null;
}

/** The last due date of the regular installments (the loan's maturity before any N+1 installment). */
export function lastRegularDueDate(
  installments: readonly Pick<ScheduleInstallment, 'dueDate' | 'isDownPayment' | 'isAdditional'>[],
): string | null {
  const regular = installments.filter((i) => !i.isDownPayment && !i.isAdditional);
  return regular.at(-1)?.dueDate ?? null;
}

/**
 * Adds the terms' charges to a generated schedule (in place on a copy): fees and penalties per
 * installment, their totals, and the charges due at disbursement. No charges → the schedule unchanged.
 */
export function applyCharges(schedule: Schedule, terms: ScheduleTerms, ctx: MoneyContext): Schedule {
  const charges = terms.charges ?? [];
  if (charges.length === 0) return schedule;
  const installments = schedule.installments.map((i) => ({ ...i }));
  const whole = { principal: schedule.totals.principal, interest: schedule.totals.interest };
  const disbursement = { date: terms.disbursementDate, fees: 0n, penalties: 0n, total: 0n };
  const maturity = lastRegularDueDate(installments);
  // Charges dated after maturity share one N+1 installment due on the latest of their dates.
  const late = charges
    .filter((c) => c.timing === 'SPECIFIED_DUE_DATE' && maturity !== null && (c.dueDate as string) > maturity)
    .map((c) => c.dueDate as string)
    .sort();
  const additional: ScheduleInstallment | null =
    late.length > 0 && maturity !== null
      ? {
          number: installments.length + 1,
          fromDate: maturity,
          dueDate: late[late.length - 1],
          principal: 0n,
          interest: 0n,
          fees: 0n,
          penalties: 0n,
          total: 0n,
          balance: installments[installments.length - 1].balance,
          isDownPayment: false,
          isAdditional: true,
        }
      : null;
  if (additional) installments.push(additional);
  charges.forEach((charge, k) => {
    const add = (target: { fees: bigint; penalties: bigint }, amount: bigint) => {
      if (charge.type === 'FEE') target.fees += amount;
      else target.penalties += amount;
    };
    if (charge.timing === 'DISBURSEMENT') {
      add(disbursement, chargeAmount(ctx, charge, whole));
    } else if (charge.timing === 'INSTALLMENT') {
      for (const i of installments) if (!i.isDownPayment && !i.isAdditional) add(i, chargeAmount(ctx, charge, i));
    } else {
      const due = charge.dueDate as string;
      const target = installmentHolding(installments, due) ?? (maturity !== null && due > maturity ? additional : null);
      if (!target) {
        const start = installments.find((i) => !i.isDownPayment)?.fromDate;
        bad(`charges[${k}].dueDate`, `must not fall before the disbursement (the schedule starts on ${start})`);
      }
      add(target, chargeAmount(ctx, charge, whole));
    }
  });
  const totals = { ...schedule.totals, fees: 0n, penalties: 0n, total: 0n };
  for (const i of installments) {
    i.total = i.principal + i.interest + i.fees + i.penalties;
    totals.fees += i.fees;
    totals.penalties += i.penalties;
    totals.total += i.total;
  }
  disbursement.total = disbursement.fees + disbursement.penalties;
  return { ...schedule, installments, totals, ...(disbursement.total > 0n ? { disbursement } : {}) };
}

// ---------------------------------------------------------------------------------------------
// Overdue penalties (applied by the daily close)

/** One occurrence of an overdue penalty: 1 for the first, 2… for recurring ones; `date` is its due date. */
export type OverduePenaltyOccurrence = { occurrence: number; date: string };

function step(date: string, frequency: OverduePenaltyFrequency): string {
  const n = frequency.interval;
  switch (frequency.unit) {
    case 'DAYS':
      return addDays(date, n);
    case 'WEEKS':
      return addDays(date, 7 * n);
    case 'MONTHS':
      return addMonths(date, n);
    case 'YEARS':
      return addMonths(date, 12 * n);
  }
}

/**
 * The occurrences of an overdue penalty on one installment due by `businessDate`, after Fineract's
 * overdue-charge job: nothing until the installment is more than `graceDays` (penalty wait period)
 * overdue; then the first occurrence, dated the due date + `postingGraceDays` (grace on penalty
 * posting, at most graceDays); a recurring penalty (`frequency`) adds one each `interval` units
 * after the first trigger day (due date + graceDays + 1) while that day is not after the business date.
 */
export function overduePenaltyOccurrences(input: {
  dueDate: string;
  businessDate: string;
  graceDays?: number;
  postingGraceDays?: number;
  frequency?: OverduePenaltyFrequency | null;
}): OverduePenaltyOccurrence[] {
  const wait = input.graceDays ?? 0;
  if (!(addDays(input.dueDate, wait) < input.businessDate)) return [];
  const shift = Math.max(1, wait + 1 - (input.postingGraceDays ?? 0));
  let trigger = addDays(input.dueDate, wait + 1);
  if (!input.frequency) return [{ occurrence: 1, date: addDays(trigger, -shift) }];
  const out: OverduePenaltyOccurrence[] = [];
  for (let n = 1; trigger <= input.businessDate && n <= 1000; n += 1) {
    out.push({ occurrence: n, date: addDays(trigger, -shift) });
    trigger = step(trigger, input.frequency);
  }
  return out;
}

/**
 * The amount of one overdue penalty occurrence: FLAT, or a percentage of what is still outstanding
 * on the installment (principal, principal + interest, or interest) when it is charged, rounded to
 * the currency (Fineract `calculateOverdueAmountPercentageAppliedTo`).
 */
export function overduePenaltyAmount(
  ctx: MoneyContext,
  penalty: Pick<ScheduleCharge, 'calculation' | 'amount'>,
  outstanding: { principal: bigint; interest: bigint },
): bigint {
  return chargeAmount(ctx, penalty, outstanding);
}

/** A MoneyContext for charge arithmetic outside the generator (close, commands). */
export function chargeMoneyContext(digits: number, mode: MoneyContext['mode'] = 'HALF_EVEN'): MoneyContext {
  return { digits, mode, currencyMultiple: 0, installmentMultiple: null };
}
