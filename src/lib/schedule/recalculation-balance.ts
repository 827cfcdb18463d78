import type { Compounding, RecalculatedInstallment } from './recalculation.ts';

/**
 * The interest-bearing balance of a recalculating cumulative loan, as a function of the day: the
 * principal disbursed, less principal as it stops bearing interest, plus unpaid interest/fees while
 * they are compounded. Every amount leaves the balance on a *rest date* (the first date of the rest
 * calendar on or after the day it is paid or due), as Fineract's principal-portion and late-payment
 * maps do:
 *
 * - principal paid on an installment's own dues stops bearing interest from the rest date of its due
 *   date, or of the payment when paid late;
 * - principal still unpaid: from the rest date of its due date when that is not before the day the
 *   schedule is looked at (the projection: paid when due), else from the rest date of that day
 *   (overdue principal keeps bearing interest until then, Fineract's `lastRestDate`);
 * - principal paid in advance: from the rest date of the payment;
 * - compounded income (interest and/or fees, per `compounding`) joins the balance on its compounding
 *   date and leaves it like principal: from the payment's rest date for what was paid, else on the
 *   unpaid principal's date. Income paid before it compounds never joins.
 */

export type Payment = { date: string; principal: bigint; income: bigint };

export type Row = {
  from: string;
  due: string;
  principal: bigint;
  interest: bigint;
  fees: bigint;
  penalties: bigint;
  paidPrincipal: bigint;
  paidInterest: bigint;
  paidFees: bigint;
  paidPenalties: bigint;
  /** Principal paid in advance on this row (it leaves the balance through `State.prepaid`). */
  prepaid: bigint;
  /** What each payment settled of this row's own dues. */
  payments: Payment[];
  /** Compounded income of this row: joins the balance on `date`. */
  pieces: { date: string; amount: bigint }[];
};

export type State = {
  rows: Row[];
  prepaid: { date: string; amount: bigint }[];
  /** Projected principal not yet given to an installment. */
  scheduled: bigint;
  emi: bigint;
  /** RESCHEDULE_NEXT_REPAYMENTS: principal paid in advance still to take off the next installments. */
  reduce: bigint;
  /**
   * Interest-first strategies: compounded income a repayment between due dates paid, off the balance
   * from the repayment's rest date until the rest date of the day the schedule is looked at (Fineract's
   * `adjustCompoundedAmountWithPaidDetail`, see recalculation-cumulative.ts).
   */
  paidIncomeOff: { from: string; to: string; amount: bigint }[];
};

export type BalanceRules = {
  /** What was lent on the first day (the principal, or the tranches of the disbursement date). */
  principal: bigint;
  /** Later tranches: each joins the balance on its own date (not a rest date), as in Fineract. */
  tranches: { date: string; amount: bigint }[];
  asOf: string;
  compounding: Compounding;
  /** First rest date on or after a day. */
  rest: (date: string) => string;
};

export function newRow(from: string, due: string): Row {
  return {
    from,
    due,
    principal: 0n,
    interest: 0n,
    fees: 0n,
    penalties: 0n,
    paidPrincipal: 0n,
    paidInterest: 0n,
    paidFees: 0n,
    paidPenalties: 0n,
    prepaid: 0n,
    payments: [],
    pieces: [],
  };
}

/** The part of a row's income that compounds, per the compounding method. */
export function compoundable(compounding: Compounding, r: Pick<Row, 'interest' | 'fees' | 'penalties'>): bigint {
  const interest = compounding === 'INTEREST' || compounding === 'INTEREST_AND_FEE' ? r.interest : 0n;
  const fees = compounding === 'FEE' || compounding === 'INTEREST_AND_FEE' ? r.fees + r.penalties : 0n;
  return interest + fees;
}

/** When what is still unpaid on the row stops bearing interest (or stops being compounded). */
function unpaidLeaves(rules: BalanceRules, r: Row): string {
  const restOfDue = rules.rest(r.due);
  return restOfDue < rules.asOf ? rules.rest(rules.asOf) : restOfDue;
}

/** The interest-bearing balance on `date` (for interest from that day on). */
export function balanceOn(rules: BalanceRules, state: State, date: string): bigint {
  let balance = rules.principal;
  for (const t of rules.tranches) if (t.date <= date) balance += t.amount;
  for (const p of state.prepaid) if (p.date <= date) balance -= p.amount;
  for (const o of state.paidIncomeOff) if (o.from <= date && date < o.to) balance -= o.amount;
  for (const r of state.rows) {
    let paidPrincipal = 0n;
    let paidIncome = 0n;
    let incomeRemoved = 0n;
    for (const p of r.payments) {
      paidPrincipal += p.principal;
      paidIncome += p.income;
      if (rules.rest(p.date > r.due ? p.date : r.due) <= date) balance -= p.principal;
      if (rules.rest(p.date) <= date) incomeRemoved += p.income;
    }
    const unpaidGone = unpaidLeaves(rules, r) <= date;
    if (unpaidGone) balance -= r.principal - r.prepaid - paidPrincipal;
    let added = 0n;
    let total = 0n;
    for (const piece of r.pieces) {
      total += piece.amount;
      if (piece.date <= date) added += piece.amount;
    }
    if (unpaidGone) incomeRemoved += total - paidIncome;
    if (added > incomeRemoved) balance += added - incomeRemoved;
  }
  // Income taken off the balance for an interest-first repayment (`paidIncomeOff`) can exceed what is
  // left of a loan nearly repaid: nothing then bears interest, and interest never goes negative.
  return balance < 0n ? 0n : balance;
}

/** Days in (from, to) where the balance may change: the candidates for splitting a period. */
export function changeDates(rules: BalanceRules, state: State, from: string, to: string): string[] {
  const out = new Set<string>();
  const take = (d: string) => {
    if (d > from && d < to) out.add(d);
  };
  for (const p of state.prepaid) take(p.date);
  for (const o of state.paidIncomeOff) {
    take(o.from);
    take(o.to);
  }
  for (const t of rules.tranches) take(t.date);
  for (const r of state.rows) {
    for (const p of r.payments) {
      take(rules.rest(p.date > r.due ? p.date : r.due));
      take(rules.rest(p.date));
    }
    take(unpaidLeaves(rules, r));
    for (const piece of r.pieces) take(piece.date);
  }
  return [...out].sort();
}

export function cloneState(s: State): State {
  return structuredClone(s);
}

/**
 * The rows as installments and their totals; an installment's balance is what was lent up to its due
 * date (`rules`: the first day's principal and the later tranches) less the principal scheduled so far.
 */
export function installmentsOf(rules: Pick<BalanceRules, 'principal' | 'tranches'>, rows: Row[]) {
  let scheduled = 0n;
  const totals = { principal: 0n, interest: 0n, fees: 0n, penalties: 0n, total: 0n, paid: 0n, outstanding: 0n };
  const installments: RecalculatedInstallment[] = rows.map((r, k) => {
    scheduled += r.principal;
    const lent = rules.tranches.reduce((sum, t) => (t.date <= r.due ? sum + t.amount : sum), rules.principal);
    const balance = lent - scheduled;
    const total = r.principal + r.interest + r.fees + r.penalties;
    const paid = r.paidPrincipal + r.paidInterest + r.paidFees + r.paidPenalties;
    totals.principal += r.principal;
    totals.interest += r.interest;
    totals.fees += r.fees;
    totals.penalties += r.penalties;
    totals.total += total;
    totals.paid += paid;
    totals.outstanding += total - paid;
    return {
      number: k + 1,
      fromDate: r.from,
      dueDate: r.due,
      principal: r.principal,
      interest: r.interest,
      fees: r.fees,
      penalties: r.penalties,
      total,
      balance,
      paidPrincipal: r.paidPrincipal,
      paidInterest: r.paidInterest,
      paidFees: r.paidFees,
      paidPenalties: r.paidPenalties,
      paid,
      outstanding: total - paid,
    };
  });
  return { installments, totals };
}
