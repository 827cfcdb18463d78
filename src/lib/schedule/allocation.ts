import { AppError } from '../errors/app-error.ts';
import { isValidDate } from './dates.ts';
import { divRound } from './decimal.ts';
import type {
  AdvancedAllocation,
  AllocationInput,
  AllocationPart,
  AllocationResult,
  AllocationStrategyCode,
  Component,
  OutstandingInstallment,
  PaymentAllocationRule,
} from './types.ts';

/**
 * Pure repayment allocation: how one payment is split over a loan's installments, following
 * Fineract's transaction processors (fineract-loan/.../transactionprocessor/impl/). The caller
 * (loan commands) persists the result; nothing here touches a database.
 *
 * Timing against an installment: date before its due date = "in advance", on it = "due"/on time,
 * after it = "late"/past due. Classic strategies walk the installments oldest first and pay each
 * one's components in the strategy's order for that timing before moving to the next one. What is
 * left after everything owed is paid is `excess` (overpayment → credit balance).
 */

/** Every strategy code `allocatePayment` takes (the product form offers them all). */
export const ALLOCATION_STRATEGY_CODES = [
  'mifos-standard-strategy',
  'principal-interest-penalties-fees-order-strategy',
  'interest-principal-penalties-fees-order-strategy',
  'early-repayment-strategy',
  'rbi-india-strategy',
  'heavensfamily-strategy',
  'creocore-strategy',
  'due-penalty-fee-interest-principal-in-advance-principal-penalty-fee-interest-strategy',
  'due-penalty-interest-principal-fee-in-advance-penalty-interest-principal-fee-strategy',
  'advanced-payment-allocation-strategy',
] as const satisfies readonly AllocationStrategyCode[];

/**
 * Fineract's "interest first" processors (`isInterestFirstRepaymentScheduleTransactionProcessor`: RBI India and
 * interest-principal-penalties-fees order). With cumulative interest recalculation a repayment between
 * two due dates splits the period there (recalculation-cumulative.ts).
 */
export function isInterestFirstStrategy(code: AllocationStrategyCode): boolean {
  return code === 'rbi-india-strategy' || code === 'interest-principal-penalties-fees-order-strategy';
}

const KEY: Record<Component, 'principal' | 'interest' | 'fees' | 'penalties'> = {
  PRINCIPAL: 'principal',
  INTEREST: 'interest',
  FEE: 'fees',
  PENALTY: 'penalties',
};

type Timing = 'ADVANCE' | 'DUE' | 'LATE';

const PEN_FEE_INT_PRI: Component[] = ['PENALTY', 'FEE', 'INTEREST', 'PRINCIPAL'];
const PRI_INT_PEN_FEE: Component[] = ['PRINCIPAL', 'INTEREST', 'PENALTY', 'FEE'];
const INT_PRI_PEN_FEE: Component[] = ['INTEREST', 'PRINCIPAL', 'PENALTY', 'FEE'];
const PRI_INT_FEE_PEN: Component[] = ['PRINCIPAL', 'INTEREST', 'FEE', 'PENALTY'];
const PRI_PEN_FEE_INT: Component[] = ['PRINCIPAL', 'PENALTY', 'FEE', 'INTEREST'];
const PEN_INT_PRI_FEE: Component[] = ['PENALTY', 'INTEREST', 'PRINCIPAL', 'FEE'];

/** Component order per strategy and timing for the installment-by-installment strategies. */
const CLASSIC: Partial<Record<AllocationStrategyCode, Record<Timing, Component[]>>> = {
  // "Penalties, Fees, Interest, Principal order" (FineractStyle processor); Creocore is the same.
  'mifos-standard-strategy': { ADVANCE: PEN_FEE_INT_PRI, DUE: PEN_FEE_INT_PRI, LATE: PEN_FEE_INT_PRI },
  'creocore-strategy': { ADVANCE: PEN_FEE_INT_PRI, DUE: PEN_FEE_INT_PRI, LATE: PEN_FEE_INT_PRI },
  'principal-interest-penalties-fees-order-strategy': {
    ADVANCE: PRI_INT_PEN_FEE,
    DUE: PRI_INT_PEN_FEE,
    LATE: PRI_INT_PEN_FEE,
  },
  'interest-principal-penalties-fees-order-strategy': {
    ADVANCE: INT_PRI_PEN_FEE,
    DUE: INT_PRI_PEN_FEE,
    LATE: INT_PRI_PEN_FEE,
  },
  // EarlyPayment processor: in advance pays principal only; on time and late interest first.
  'early-repayment-strategy': { ADVANCE: ['PRINCIPAL'], DUE: INT_PRI_PEN_FEE, LATE: INT_PRI_PEN_FEE },
  // HeavensFamily processor pays principal before interest in every timing.
  'heavensfamily-strategy': { ADVANCE: PRI_INT_FEE_PEN, DUE: PRI_INT_FEE_PEN, LATE: PRI_INT_FEE_PEN },
  // Due/late: penalty, fee, interest, principal; in advance: principal, penalty, fee, interest.
  'due-penalty-fee-interest-principal-in-advance-principal-penalty-fee-interest-strategy': {
    ADVANCE: PRI_PEN_FEE_INT,
    DUE: PEN_FEE_INT_PRI,
    LATE: PEN_FEE_INT_PRI,
  },
  'due-penalty-interest-principal-fee-in-advance-penalty-interest-principal-fee-strategy': {
    ADVANCE: PEN_INT_PRI_FEE,
    DUE: PEN_INT_PRI_FEE,
    LATE: PEN_INT_PRI_FEE,
  },
};

/**
 * Fineract's default advanced allocation in its own tests: past due, then due, then in advance;
 * within each penalty, fee, principal, interest; in-advance money to the next installment;
 * horizontal processing.
 */
export const DEFAULT_ADVANCED_ALLOCATION: AdvancedAllocation = {
  order: (['PAST_DUE', 'DUE', 'IN_ADVANCE'] as const).flatMap((due) =>
    (['PENALTY', 'FEE', 'PRINCIPAL', 'INTEREST'] as const).map((component) => ({ due, component })),
  ),
  futureInstallmentRule: 'NEXT_INSTALLMENT',
  processing: 'HORIZONTAL',
};

type Work = {
  inst: OutstandingInstallment[];
  remaining: bigint;
  parts: Map<number, AllocationPart>;
  partOrder: number[];
  order: AllocationResult['order'];
};

function outstanding(i: OutstandingInstallment): bigint {
  return i.principal + i.interest + i.fees + i.penalties;
}

function pay(w: Work, index: number, component: Component, cap?: bigint): bigint {
  const inst = w.inst[index];
  const key = KEY[component];
  let amount = inst[key] < w.remaining ? inst[key] : w.remaining;
  if (cap !== undefined && cap < amount) amount = cap;
  if (amount <= 0n) return 0n;
  const updated: OutstandingInstallment = { ...inst, [key]: inst[key] - amount };
  // Keep the optional "already due" charge parts consistent with what is left.
  if (component === 'PENALTY' && inst.duePenalties !== undefined)
    updated.duePenalties = inst.duePenalties < updated.penalties ? inst.duePenalties : updated.penalties;
  if (component === 'FEE' && inst.dueFees !== undefined)
    updated.dueFees = inst.dueFees < updated.fees ? inst.dueFees : updated.fees;
  w.inst[index] = updated;
  w.remaining -= amount;
  let part = w.parts.get(inst.number);
  if (!part) {
    part = { installmentNumber: inst.number, principal: 0n, interest: 0n, fees: 0n, penalties: 0n };
    w.parts.set(inst.number, part);
    w.partOrder.push(inst.number);
  }
  part[key] += amount;
  const last = w.order.at(-1);
  if (last && last.installmentNumber === inst.number && last.component === component) last.amount += amount;
  else w.order.push({ installmentNumber: inst.number, component, amount });
  return amount;
}

function timingOf(i: OutstandingInstallment, date: string): Timing {
  return date < i.dueDate ? 'ADVANCE' : date > i.dueDate ? 'LATE' : 'DUE';
}

function validate(input: AllocationInput): void {
  if (typeof input.amount !== 'bigint' || input.amount <= 0n) {
    throw new AppError('BAD_REQUEST', 'amount must be greater than 0', { field: 'amount' });
  }
  if (!isValidDate(input.date)) throw new AppError('BAD_REQUEST', 'date must be a date YYYY-MM-DD', { field: 'date' });
  for (const [n, i] of input.installments.entries()) {
    for (const key of ['principal', 'interest', 'fees', 'penalties'] as const) {
      if (i[key] < 0n) {
        throw new AppError('BAD_REQUEST', `installments[${n}].${key} must not be negative`, {
          field: `installments[${n}].${key}`,
        });
      }
    }
  }
}

function classic(w: Work, strategy: AllocationStrategyCode, date: string): void {
  const orders = CLASSIC[strategy];
  if (!orders) throw new AppError('BAD_REQUEST', `unknown allocation strategy ${strategy}`, { field: 'strategy' });
  for (let idx = 0; idx < w.inst.length && w.remaining > 0n; idx++) {
    if (outstanding(w.inst[idx]) === 0n) continue;
    let timing = timingOf(w.inst[idx], date);
    // HeavensFamily treats a payment as "in advance" only when it is before the PREVIOUS installment's due date.
    if (strategy === 'heavensfamily-strategy') {
      const previousDue = w.inst[Math.max(0, idx - 1)].dueDate;
      timing = date < previousDue ? 'ADVANCE' : date > w.inst[idx].dueDate ? 'LATE' : 'DUE';
    }
    if (
      timing === 'ADVANCE' &&
      strategy === 'due-penalty-fee-interest-principal-in-advance-principal-penalty-fee-interest-strategy'
    ) {
      // DuePenFeeIntPriInAdvancePriPenFeeInt: a first pass pays the charges already due (capped at what is
      // due), then principal; whatever is left reruns penalty → fee → interest → principal.
      const inst = w.inst[idx];
      pay(w, idx, 'PENALTY', inst.duePenalties ?? 0n);
      pay(w, idx, 'FEE', inst.dueFees ?? 0n);
      pay(w, idx, 'PRINCIPAL');
      for (const component of PEN_FEE_INT_PRI) pay(w, idx, component);
      continue;
    }
    for (const component of orders[timing]) pay(w, idx, component);
  }
}

/**
 * RBI (India): on a late payment, penalties, fees and interest of every overdue installment and of
 * the current one (the latest due on or before the date) go first, then principal oldest first.
 * On time and in advance it pays installment by installment: penalty, fee, interest, principal.
 */
function rbi(w: Work, date: string): void {
  for (let idx = 0; idx < w.inst.length && w.remaining > 0n; idx++) {
    if (outstanding(w.inst[idx]) === 0n) continue;
    if (timingOf(w.inst[idx], date) !== 'LATE') {
      for (const component of PEN_FEE_INT_PRI) pay(w, idx, component);
      continue;
    }
    let nearest = 0;
    for (let k = 0; k < w.inst.length; k++) {
      if (date < w.inst[k].dueDate) break;
      nearest = k;
    }
    for (let k = 0; k < w.inst.length; k++) {
      if (w.inst[k].dueDate < date || k === nearest) {
        pay(w, k, 'PENALTY');
        pay(w, k, 'FEE');
        pay(w, k, 'INTEREST');
      }
    }
    for (let k = 0; k < w.inst.length && w.remaining > 0n; k++) pay(w, k, 'PRINCIPAL');
    // Like Fineract's processTransaction loop, go on with the next installments if money is left.
  }
}

/**
 * Installments a rule applies to (AdvancedPaymentScheduleTransactionProcessor): the oldest past-due one,
 * the one due on the date, or the future one(s) by the future-installment rule. Horizontal processing
 * looks at installments with anything outstanding; vertical at those owing the rule's component.
 */
function targets(
  w: Work,
  due: PaymentAllocationRule['due'],
  date: string,
  rule: AdvancedAllocation['futureInstallmentRule'],
  component?: Component,
): number[] {
  const owing = w.inst
    .map((_, i) => i)
    .filter((i) => (component ? w.inst[i][KEY[component]] > 0n : outstanding(w.inst[i]) > 0n));
  if (due === 'PAST_DUE') return owing.filter((i) => w.inst[i].dueDate < date).slice(0, 1);
  if (due === 'DUE') return owing.filter((i) => w.inst[i].dueDate === date).slice(0, 1);
  const future = owing.filter((i) => w.inst[i].dueDate > date);
  if (future.length === 0) return [];
  if (rule === 'NEXT_INSTALLMENT') return [future[0]];
  if (rule === 'LAST_INSTALLMENT') return [future[future.length - 1]];
  return future;
}

/**
 * Pays one component on the target installments. Several targets (REAMORTIZATION) share the money
 * evenly: remaining / count rounded half-even to the minor unit, the last one taking the rounding
 * difference, each capped at what it owes — as Fineract's evenPortion/balanceAdjustment.
 */
function payTargets(w: Work, indexes: number[], component: Component): bigint {
  if (indexes.length === 1) return pay(w, indexes[0], component);
  const count = BigInt(indexes.length);
  const even = divRound(w.remaining, count, 'HALF_EVEN');
  const adjustment = w.remaining - even * count;
  let paid = 0n;
  indexes.forEach((i, k) => {
    const portion = k === indexes.length - 1 ? even + adjustment : even;
    if (portion > 0n) paid += pay(w, i, component, portion);
  });
  return paid;
}

function advanced(w: Work, date: string, config: AdvancedAllocation): void {
  if (config.processing === 'VERTICAL') {
    for (const rule of config.order) {
      // One allocation type at a time, over every eligible installment, until it is paid or money runs out.
      for (;;) {
        if (w.remaining === 0n) return;
        const indexes = targets(w, rule.due, date, config.futureInstallmentRule, rule.component);
        if (indexes.length === 0 || payTargets(w, indexes, rule.component) === 0n) break;
      }
    }
    return;
  }
  // HORIZONTAL: group the order by due type; within a group settle one installment (or the future set)
  // for all the group's components before moving on.
  const groups: PaymentAllocationRule['due'][] = [];
  for (const rule of config.order) if (!groups.includes(rule.due)) groups.push(rule.due);
  for (const due of groups) {
    const components = config.order.filter((r) => r.due === due).map((r) => r.component);
    for (;;) {
      if (w.remaining === 0n) return;
      const indexes = targets(w, due, date, config.futureInstallmentRule);
      if (indexes.length === 0) break;
      let paid = 0n;
      for (const component of components) paid += payTargets(w, indexes, component);
      if (paid === 0n) break;
    }
  }
}

/**
 * Splits `amount` over `installments` (what is still owed on each) by the strategy. Pure: the input
 * is not modified; `remaining` holds the installments after the payment. Every part is ≥ 0 and
 * parts + excess = amount.
 */
export function allocatePayment(input: AllocationInput): AllocationResult {
  validate(input);
  const strategy = input.strategy ?? 'mifos-standard-strategy';
  const sorted = input.installments
    .map((inst, position) => ({ inst, position }))
    .sort((a, b) =>
      a.inst.dueDate < b.inst.dueDate ? -1 : a.inst.dueDate > b.inst.dueDate ? 1 : a.inst.number - b.inst.number,
    );
  const w: Work = {
    inst: sorted.map((s) => ({ ...s.inst })),
    remaining: input.amount,
    parts: new Map(),
    partOrder: [],
    order: [],
  };

  if (strategy === 'advanced-payment-allocation-strategy')
    advanced(w, input.date, input.advanced ?? DEFAULT_ADVANCED_ALLOCATION);
  else if (strategy === 'rbi-india-strategy') rbi(w, input.date);
  else classic(w, strategy, input.date);

  const remaining: OutstandingInstallment[] = new Array(input.installments.length);
  sorted.forEach((s, k) => {
    remaining[s.position] = w.inst[k];
  });
  const parts = w.partOrder.map((n) => w.parts.get(n) as AllocationPart);
  const sum = (key: 'principal' | 'interest' | 'fees' | 'penalties') => parts.reduce((acc, p) => acc + p[key], 0n);
  return {
    parts,
    principal: sum('principal'),
    interest: sum('interest'),
    fees: sum('fees'),
    penalties: sum('penalties'),
    excess: w.remaining,
    remaining,
    order: w.order,
  };
}
