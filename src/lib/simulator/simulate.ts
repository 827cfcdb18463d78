import type { Db, Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { logger } from '../observability/log.ts';
import { addDays, addMonths, daysBetween } from '../schedule/dates.ts';
import type { Actor } from '../lending/actor.ts';
import { approveApplication } from '../lending/commands/approve-application.ts';
import { rejectApplication } from '../lending/commands/reject-application.ts';
import { disburseLoan } from '../lending/commands/disburse-loan.ts';
import { repayLoan } from '../lending/commands/repay-loan.ts';
import { submitApplication } from '../lending/commands/submit-application.ts';
import { writeOffLoan } from '../lending/commands/write-off-loan.ts';
import { setLoanTranches } from '../lending/commands/tranches.ts';
import { loanPreClosure } from '../lending/recalculation.ts';
import { simulateNextTranche } from './features/tranches.ts';
import { simulateReschedule } from './features/reschedule.ts';
import { simulateReAge, type ReAgeRequest } from './features/reage.ts';
import { simulateVariation, type PlannedVariation } from './features/variations.ts';
import { simulateReAmortization } from './features/reamortize.ts';
import { simulateFixedEmi } from './features/fixed-emi.ts';
import { transitionOffer, type OfferStatus } from '../lending/lifecycle/offer.ts';
import type { ProductRow } from '../lending/products.ts';
import { runDailyClose } from '../close/daily-close.ts';
import { INSTALLMENT_OUTSTANDING_SQL } from '../close/sql.ts';
import { createCustomers, type SimCustomer } from './customers.ts';
import { createRng, seedTag, type Rng } from './prng.ts';
import { prepareLender, type SimSetup } from './setup.ts';
import { planFixedLength } from './features/fixed-length.ts';
import type { LoansRow, OffersRow, TenantsRow } from '../db/schema.generated.ts';

/**
 * The portfolio simulator: builds a realistic lender THROUGH THE ENGINE. Customers and their bank
 * histories are bulk-inserted (plain records); every offer transition, application, approval,
 * disbursement, repayment and write-off is the lending engine's own command (src/lib/lending), and
 * the daily close (src/lib/close) runs for every day from the start of the history to today, so
 * schedules, allocations, penalties, delinquency history and month-end snapshots are the engine's
 * own numbers. Deterministic for a seed: the same customers, terms, dates, behaviours and amounts
 * (record ids and loan account numbers are random).
 */

export type SimulateOptions = {
  tenantId: string;
  customers: number;
  /** Months of history (default 24). */
  months?: number;
  /**
   * Tranche loans, interest-recalculating loans (progressive, and cumulative with compounding),
   * reschedules, re-aged and re-amortised "pay in four" loans, varied installments and installment
   * amounts fixed on the loan (default on). Off, every loan keeps the schedule its product lays out at
   * disbursement.
   */
  scheduleChanges?: boolean;
  seed?: string | number;
  /** Last day simulated (it stays open); default the tenant's current business date. */
  today?: string;
  /** Loans worked on at once per simulated day (Postgres); PGlite always runs one at a time. */
  concurrency?: number;
  /** Months of bank history per customer (default 3). */
  bankMonths?: number;
  /**
   * Days past due that some loans of every branch must have on the last day (default none): per
   * branch and per value, one more monthly loan whose borrower never pays, disbursed so that its
   * first installment falls due that many days before the end. The small demo history uses it so
   * every delinquency bucket holds loans in every branch; the engine and the daily closes still
   * compute every figure (the values need `months` long enough to reach them).
   */
  overdueSamples?: readonly number[];
  /**
   * Runs `VACUUM (ANALYZE)` on the given tables outside any transaction (Postgres: a plain
   * connection). The history updates loans, installments and delinquency rows hundreds of thousands
   * of times; without vacuum (or with autovacuum off or behind) every close scans the dead versions
   * too and gets slower day after day. Without this hook statistics are refreshed with ANALYZE only.
   */
  vacuum?: (tables: readonly string[]) => Promise<void>;
  onProgress?: (info: {
    day: string;
    done: number;
    total: number;
    commandsMs: number;
    closeMs: number;
    loans: number;
    repayments: number;
  }) => void;
};

export type SimulateResult = {
  tenantId: string;
  from: string;
  to: string;
  customers: number;
  offers: number;
  applications: number;
  rejectedApplications: number;
  loans: number;
  repayments: number;
  writeOffs: number;
  closes: number;
  /** Second tranches paid out (multi-disbursement loans). */
  tranches: number;
  /** Reschedules submitted by the maker and approved by the checker. */
  reschedules: number;
  /** Delinquent "pay in four" loans re-aged by an administrator after maturity. */
  reages: number;
  /** Loans with an installment moved or its amount fixed before disbursement. */
  variations: number;
  /** "Pay in four" loans re-amortised by an administrator before maturity, after a missed installment. */
  reamortizations: number;
  /** Loans of the cumulative, compounding, interest-recalculating product (SIM-CRECALC) disbursed. */
  cumulativeRecalculations: number;
  /** Loans given their own installment amount (above the EMI) before disbursement. */
  fixedEmis: number;
  /** "Pay in four" loans of the fixed-length product (SIM-BNPL40) disbursed. */
  fixedLengths: number;
  /** history = commands (offers, originations, repayments, write-offs) + close (the daily closes) + statistics refreshes. */
  ms: { setup: number; customers: number; history: number; commands: number; close: number; total: number };
};

export type Behaviour = 'on_time' | 'late_then_cured' | 'defaulted' | 'early_payoff';

type ProductKey = 'emi' | 'micro' | 'bullet' | 'tranche' | 'recalc' | 'crecalc' | 'bnpl' | 'bnplFixed';

export type LoanPlan = {
  ref: number;
  customer: SimCustomer;
  product: ProductKey;
  principalMajor: number;
  repayments: number;
  disburseOn: string;
  behaviour: Behaviour;
  /** Installment (1-based) after which a defaulting borrower stops paying. */
  stopAfter: number;
  /** Extra days late per installment (late_then_cured). */
  delays: number[];
  /** The application is rejected instead (no loan). */
  isRejected: boolean;
  offerCode: string;
  /** Days after disbursement when the second tranche is paid out (tranche loans). */
  secondTrancheAfter?: number;
  /** Days after disbursement when the borrower asks for two more installments (late payers). */
  rescheduleAfter?: number;
  /** A defaulting "pay in four" borrower re-aged this many days after maturity, who then pays. */
  reAge?: ReAgeRequest & { afterMaturity: number };
  /** One installment moved or given its own amount before disbursement. */
  variation?: PlannedVariation;
  /**
   * A "pay in four" borrower who misses installment `installment` (1 = the down payment) is re-amortised
   * `afterDue` days after its due date (before maturity), then pays the new installments when due.
   */
  reAmortize?: { installment: number; afterDue: number };
  /** The loan's own installment amount: this percentage of the product's EMI, before disbursement. */
  fixedEmiPercent?: number;
};

type Event =
  | { kind: 'originate'; plan: LoanPlan }
  | { kind: 'pay'; plan: LoanPlan; upTo: number | 'all' }
  | { kind: 'write_off'; plan: LoanPlan }
  | { kind: 'tranche'; plan: LoanPlan }
  | { kind: 'reschedule'; plan: LoanPlan }
  | { kind: 'reage'; plan: LoanPlan }
  | { kind: 'reamortize'; plan: LoanPlan }
  | { kind: 'offer'; offerId: string; action: 'notify' | 'reject' };

/**
 * Pure and deterministic: per branch (in the order of its first customer) and per target, a monthly
 * loan of that branch's first customer that is never repaid, disbursed one month before its first
 * installment is due `target` days before `to` (targets that would start before `from` are skipped).
 */
export function planOverdueSamples(
  customers: SimCustomer[],
  from: string,
  to: string,
  targets: readonly number[],
  startRef: number,
  seedLabel: string,
): LoanPlan[] {
  const firstOfBranch = new Map<string, SimCustomer>();
  for (const customer of customers)
    if (!firstOfBranch.has(customer.branchId)) firstOfBranch.set(customer.branchId, customer);
  const plans: LoanPlan[] = [];
  let ref = startRef;
  for (const customer of firstOfBranch.values()) {
    for (const target of targets) {
      const disburseOn = addMonths(addDays(to, -target), -1);
      if (disburseOn < from) continue;
      const repayments = 6;
      plans.push({
        ref: ++ref,
        customer,
        product: 'emi',
        principalMajor: Math.min(30_000, Math.max(500, Math.round((customer.monthlyIncome * 2) / 50) * 50)),
        repayments,
        disburseOn,
        behaviour: 'defaulted',
        stopAfter: 0,
        delays: Array.from({ length: repayments }, () => 0),
        isRejected: false,
        offerCode: `${seedLabel}-${String(ref).padStart(7, '0')}`,
      });
    }
  }
  return plans;
}

/**
 * Pure and deterministic, from its own random stream (so the loans planned before it keep their numbers):
 * some personal loans become tranche loans (60 % at disbursement, the rest 30–75 days later) or
 * interest-recalculating loans, and some late payers ask for a reschedule (two more installments)
 * about two months in.
 */
export function planFeatures(rng: Rng, plans: LoanPlan[]): void {
  for (const plan of plans) {
    if (plan.isRejected || plan.product !== 'emi') continue;
    const roll = rng.next();
    if (roll < 0.12 && plan.repayments >= 6 && plan.principalMajor >= 1_000) {
      plan.product = 'tranche';
      plan.secondTrancheAfter = rng.int(30, 75);
    } else if (roll < 0.22 && plan.repayments <= 24) {
      plan.product = 'recalc';
      plan.principalMajor = Math.min(plan.principalMajor, 20_000);
    } else if (plan.behaviour === 'late_then_cured' && plan.repayments >= 6 && rng.chance(0.4)) {
      plan.rescheduleAfter = rng.int(45, 70);
    }
  }
}

/**
 * Pure and deterministic, from its own random stream: "pay in four" purchases (interest-free, a quarter
 * at purchase, three installments every 15 days) by 30 % of the customers, ON TOP of their other
 * loans, so every loan planned before keeps its terms, behaviour and payments. Their borrowers pay late
 * or default more often than on the other products; most defaulters and half the late payers are
 * planned a re-age 2–10 days after maturity (the unpaid principal in 2–4 new installments 15 days
 * apart, by an administrator, if principal is still unpaid then) and pay the new installments.
 */
export function planPayInFour(
  rng: Rng,
  customers: SimCustomer[],
  from: string,
  to: string,
  startRef: number,
  seedLabel: string,
): LoanPlan[] {
  return planPurchases(rng, { customers, from, to, startRef, seedLabel }, 0.3, (buy) => {
    const behaviour = rng.weighted([
      ['on_time', 45],
      ['late_then_cured', 25],
      ['defaulted', 25],
      ['early_payoff', 5],
    ] as const);
    const repayments = 3;
    const plan: LoanPlan = {
      ...buy(),
      behaviour,
      // Installment 1 is the down payment: a defaulter pays none to three of the four.
      stopAfter: behaviour === 'defaulted' ? rng.int(0, repayments) : repayments + 1,
      delays: Array.from({ length: repayments + 1 }, () =>
        behaviour === 'late_then_cured' && rng.chance(0.5) ? rng.int(5, 40) : 0,
      ),
    };
    const reAged = behaviour === 'defaulted' ? rng.chance(0.8) : behaviour === 'late_then_cured' && rng.chance(0.5);
    if (reAged) plan.reAge = { afterMaturity: rng.int(2, 10), installments: rng.int(2, 4), everyDays: 15 };
    return plan;
  });
}

/**
 * Pure and deterministic, from its own random stream: a fifth of the personal loans not rescheduled later get
 * one installment moved 3–8 days later or fixed at 120–200 % of its amount before disbursement.
 */
export function planVariations(rng: Rng, plans: LoanPlan[]): void {
  for (const plan of plans) {
    if (plan.isRejected || plan.product !== 'emi' || plan.repayments < 6 || plan.rescheduleAfter !== undefined)
      continue;
    if (!rng.chance(0.2)) continue;
    const installment = rng.int(1, plan.repayments - 1);
    plan.variation = rng.chance(0.5)
      ? { type: 'DUE_DATE', installment, days: rng.int(3, 8) }
      : { type: 'AMOUNT', installment, percent: rng.int(12, 20) * 10 };
  }
}

/** Who may buy, over which days, the refs and offer codes to number the purchases with. */
type PurchaseWindow = { customers: SimCustomer[]; from: string; to: string; startRef: number; seedLabel: string };

type Purchase = Pick<
  LoanPlan,
  'ref' | 'customer' | 'product' | 'principalMajor' | 'repayments' | 'disburseOn' | 'isRejected' | 'offerCode'
>;

/**
 * A "pay in four" purchase (three installments after the down payment) of 10–50 % of the customer's
 * monthly income, in tens, 100–2,000, on a day of the window.
 */
function purchase(
  rng: Rng,
  customer: SimCustomer,
  ref: number,
  window: { from: string; span: number; seedLabel: string },
): Purchase {
  return {
    ref,
    customer,
    product: 'bnpl',
    principalMajor: Math.min(
      2_000,
      Math.max(100, Math.round((customer.monthlyIncome * (0.1 + rng.next() * 0.4)) / 10) * 10),
    ),
    repayments: 3,
    disburseOn: addDays(window.from, rng.int(0, Math.max(0, window.span - 1))),
    isRejected: false,
    offerCode: `${window.seedLabel}-${String(ref).padStart(7, '0')}`,
  };
}

/**
 * Purchases by a `share` of the customers (one draw each, in order); `shape` turns each into its plan,
 * calling `buy` for the purchase's amount and day where its own draws put them.
 */
function planPurchases(
  rng: Rng,
  window: PurchaseWindow,
  share: number,
  shape: (buy: () => Purchase) => LoanPlan,
): LoanPlan[] {
  const span = daysBetween(window.from, window.to);
  const plans: LoanPlan[] = [];
  let ref = window.startRef;
  for (const customer of window.customers) {
    if (!rng.chance(share)) continue;
    plans.push(shape(() => purchase(rng, customer, ++ref, { from: window.from, span, seedLabel: window.seedLabel })));
  }
  return plans;
}

/**
 * Pure and deterministic, from its own random stream: more "pay in four" purchases, by a tenth of the
 * customers, ON TOP of every loan planned before (whose terms, behaviour and payments, re-ages
 * included, stay as they were). Each borrower misses one installment before the last (the down
 * payment or one of the next two) by 12–30 days; 1–10 days after its due date (so before maturity and
 * before they would have paid) an administrator re-amortises the loan, and the borrower then pays the
 * new installments when due.
 */
export function planReAmortizations(rng: Rng, window: PurchaseWindow): LoanPlan[] {
  return planPurchases(rng, window, 0.1, (buy) => {
    const repayments = 3;
    // Installment 1 is the down payment, the last one (repayments + 1) the maturity.
    const missed = rng.int(1, repayments);
    const delay = rng.int(12, 30);
    return {
      ...buy(),
      behaviour: 'late_then_cured',
      stopAfter: repayments + 1,
      delays: Array.from({ length: repayments + 1 }, (_, k) => (k + 1 === missed ? delay : 0)),
      reAmortize: { installment: missed, afterDue: rng.int(1, 10) },
    };
  });
}

/** A personal loan granted that no feature planned before changed (not varied, not rescheduled). */
const plainPersonalLoan = (plan: LoanPlan) =>
  !plan.isRejected && plan.product === 'emi' && !plan.variation && plan.rescheduleAfter === undefined;

/**
 * Pure and deterministic, from its own random stream: one in eight personal loans (not varied, not
 * rescheduled, up to 24 months) is taken on the cumulative product whose interest is recalculated
 * from daily balances and compounded on the due dates (SIM-CRECALC); the borrowers keep their
 * behaviour (early, late, on time), which now changes the interest they pay.
 */
export function planCumulativeRecalculation(rng: Rng, plans: LoanPlan[]): void {
  for (const plan of plans) {
    if (!plainPersonalLoan(plan) || plan.repayments > 24 || !rng.chance(0.125)) continue;
    plan.product = 'crecalc';
    plan.principalMajor = Math.min(plan.principalMajor, 20_000);
  }
}

/**
 * Pure and deterministic, from its own random stream: a tenth of the personal loans left as they are
 * (not varied, not rescheduled) get their own installment amount, 110–150 % of the EMI in whole
 * units, before disbursement: the schedule then ends earlier.
 */
export function planFixedEmis(rng: Rng, plans: LoanPlan[]): void {
  for (const plan of plans) {
    if (!plainPersonalLoan(plan) || plan.repayments < 6 || !rng.chance(0.1)) continue;
    plan.fixedEmiPercent = rng.int(11, 15) * 10;
  }
}

/** Pure and deterministic: the loans the customers take over the window. */
export function planLoans(rng: Rng, customers: SimCustomer[], from: string, to: string, seedLabel: string): LoanPlan[] {
  const span = daysBetween(from, to);
  const plans: LoanPlan[] = [];
  let ref = 0;
  for (const customer of customers) {
    const count = rng.weighted([
      [0, 30],
      [1, 50],
      [2, 20],
    ] as const);
    for (let k = 0; k < count; k++) {
      const product: ProductKey =
        customer.segment === 'micro_business' || customer.segment === 'farmer'
          ? rng.weighted([
              ['micro', 70],
              ['bullet', 20],
              ['emi', 10],
            ] as const)
          : rng.weighted([
              ['emi', 70],
              ['bullet', 15],
              ['micro', 15],
            ] as const);
      const income = customer.monthlyIncome;
      const repayments =
        product === 'emi' ? rng.pick([6, 12, 12, 18, 24, 36]) : product === 'micro' ? rng.pick([8, 12, 16, 20, 26]) : 1;
      const raw =
        product === 'emi'
          ? income * rng.int(1, 6)
          : product === 'micro'
            ? income * (0.2 + rng.next() * 0.8)
            : income * (0.3 + rng.next());
      const limits = { emi: [500, 30_000], micro: [100, 5_000], bullet: [200, 10_000] }[product];
      const principalMajor = Math.min(limits[1], Math.max(limits[0], Math.round(raw / 50) * 50));
      const riskBoost = { A: 0.5, B: 1, C: 1.6, D: 2.4 }[customer.riskClass as 'A'] ?? 1;
      const behaviour = rng.weighted([
        ['on_time', 70],
        ['late_then_cured', 15 * riskBoost],
        ['defaulted', 7 * riskBoost],
        ['early_payoff', 8],
      ] as const);
      const delays = Array.from({ length: repayments }, () =>
        behaviour === 'late_then_cured' && rng.chance(0.3)
          ? rng.int(3, 75)
          : behaviour === 'on_time' && rng.chance(0.05)
            ? rng.int(1, 3)
            : 0,
      );
      plans.push({
        ref: ++ref,
        customer,
        product,
        principalMajor,
        repayments,
        disburseOn: addDays(from, rng.int(0, Math.max(0, span - 1))),
        behaviour,
        stopAfter: behaviour === 'defaulted' ? rng.int(0, Math.max(0, repayments - 1)) : repayments,
        delays,
        isRejected: rng.chance(0.06),
        offerCode: `${seedLabel}-${String(ref).padStart(7, '0')}`,
      });
    }
  }
  return plans;
}

export async function simulatePortfolio(db: Db, options: SimulateOptions): Promise<SimulateResult> {
  const t0 = Date.now();
  const { tenantId } = options;
  const months = options.months ?? 24;
  const seed = String(options.seed ?? 1);
  const rng = createRng(seed);
  const [tenant] = await db.system((tx) =>
    tx.query<Pick<TenantsRow, 'slug' | 'currency' | 'business_date'>>(
      `select slug, currency, business_date from tenants where id = $1`,
      [tenantId],
    ),
  );
  if (!tenant) throw new AppError('NOT_FOUND', `Unknown tenant ${tenantId}`, { field: 'tenant' });
  // Offer codes read like BIG1-0000001 (seed 1) or DEMO-ETTI-0000001 (a longer seed, four characters of its hash).
  const tag = seedTag(seed);
  const codeLabel = `${tenant.slug.toUpperCase()}${tag === seed.toUpperCase() ? '' : '-'}${tag}`;
  const today = options.today ?? tenant.business_date;
  const from = addMonths(today, -months);
  const [{ n: existing }] = await db.tenant(tenantId, (tx) =>
    tx.query<{ n: number }>(`select count(*)::int as n from loans`),
  );
  if (existing > 0)
    throw new AppError('CONFLICT', `Tenant ${tenantId} already has loans; simulate into an empty tenant`, {
      field: 'tenant',
    });

  // The lender's history starts `months` ago: the business date is set back, then closed forward day by day.
  await db.system((tx) => tx.query(`update tenants set business_date = $2 where id = $1`, [tenantId, from]));
  const setup = await db.tenant(tenantId, (tx) =>
    prepareLender(tx, tenantId, {
      slug: tenant.slug,
      currency: tenant.currency.trim(),
      fromYear: Number(from.slice(0, 4)),
      toYear: Number(today.slice(0, 4)) + 4,
    }),
  );
  const tSetup = Date.now();
  const [{ n: offset }] = await db.tenant(tenantId, (tx) =>
    tx.query<{ n: number }>(`select count(*)::int as n from customers`),
  );
  const customers = await createCustomers(db, tenantId, {
    rng: rng.fork('customers'),
    count: options.customers,
    slug: tenant.slug,
    officers: setup.officers,
    currency: setup.currency,
    unit: setup.unit,
    onboardedOn: from,
    today,
    bankMonths: options.bankMonths ?? 3,
    offset,
  });
  const tCustomers = Date.now();

  await refreshStatistics(db, ALL_TABLES, options.vacuum);
  const plans = planLoans(rng.fork('loans'), customers, from, today, codeLabel);
  if (options.scheduleChanges !== false) {
    // Each feature draws from its own stream: adding one leaves the others' choices as they were.
    planFeatures(rng.fork('features'), plans);
    planVariations(rng.fork('variations'), plans);
    planCumulativeRecalculation(rng.fork('cumulative-recalculation'), plans);
    planFixedEmis(rng.fork('fixed-emi'), plans);
  }
  plans.push(...planOverdueSamples(customers, from, today, options.overdueSamples ?? [], plans.length, codeLabel));
  if (options.scheduleChanges !== false) {
    const payInFour = planPayInFour(rng.fork('pay-in-four'), customers, from, today, plans.length, codeLabel);
    planFixedLength(rng.fork('fixed-length'), payInFour);
    plans.push(...payInFour);
    plans.push(
      ...planReAmortizations(rng.fork('reamortize'), {
        customers,
        from,
        to: today,
        startRef: plans.length,
        seedLabel: codeLabel,
      }),
    );
  }
  const events = new Map<string, Event[]>();
  const at = (day: string, e: Event) => {
    if (day > today) return;
    const list = events.get(day) ?? [];
    list.push(e);
    events.set(day, list);
  };
  for (const plan of plans) at(plan.disburseOn, { kind: 'originate', plan });
  const stats = {
    offers: 0,
    applications: 0,
    rejectedApplications: 0,
    loans: 0,
    repayments: 0,
    writeOffs: 0,
    closes: 0,
    tranches: 0,
    reschedules: 0,
    reages: 0,
    variations: 0,
    reamortizations: 0,
    cumulativeRecalculations: 0,
    fixedEmis: 0,
    fixedLengths: 0,
  };

  // Offers that never became loans: notified, then rejected or left pending until the daily close
  // expires them 30 days on (those of the last 30 days are still pending at the end).
  const offerRng = rng.fork('offers');
  const spareOffers = customers.filter(() => offerRng.chance(0.25));
  const maker: Actor = { tenantId, userId: setup.makerUserId, isAdmin: false, kind: 'system' };
  const checker: Actor = { tenantId, userId: setup.checkerUserId, isAdmin: true, kind: 'system' };
  const loanIds = new Map<number, string>();
  /** Per plan, the highest installment number that has payments planned. */
  const plannedCount = new Map<number, number>();
  const concurrency = db.kind === 'pglite' ? 1 : Math.max(1, options.concurrency ?? 12);
  const totalDays = daysBetween(from, today);
  const offerPlans = spareOffers.map((c, i) => ({
    customer: c,
    created: addDays(from, offerRng.int(0, Math.max(0, totalDays - 1))),
    fate: offerRng.weighted([
      ['pending', 70],
      ['rejected', 30],
    ] as const),
    code: `${codeLabel}-O${String(i + 1).padStart(7, '0')}`,
    productKey: offerRng.pick(['emi', 'micro', 'bullet'] as const),
  }));
  const offersByDay = new Map<string, typeof offerPlans>();
  for (const o of offerPlans) offersByDay.set(o.created, [...(offersByDay.get(o.created) ?? []), o]);

  let day = from;
  let done = 0;
  let msCommands = 0;
  let msClose = 0;
  while (day <= today) {
    // Offers created today (the ones that do not lead to a loan).
    const tDay = Date.now();
    const dayOffers = offersByDay.get(day) ?? [];
    if (dayOffers.length) {
      // The day's offers in one transaction (the engine's offer rows; their moves follow as events).
      const ids = await db.tenant(tenantId, async (tx) => {
        const list: string[] = [];
        for (const o of dayOffers)
          list.push(await createOffer(tx, tenantId, setup, setup.products[o.productKey], o.customer, o.code, day, 30));
        return list;
      });
      dayOffers.forEach((o, k) => {
        const offerId = ids[k];
        stats.offers++;
        at(addDays(day, 2), { kind: 'offer', offerId, action: 'notify' });
        if (o.fate === 'rejected') at(addDays(day, 9), { kind: 'offer', offerId, action: 'reject' });
      });
    }
    // Events an event plans for the same day (a down payment due at purchase) run in a further round.
    for (let todays = events.get(day); todays; todays = events.get(day)) {
      events.delete(day);
      // Loans are independent of one another: work on several at once, each loan's events in order.
      const byLoan = new Map<string, Event[]>();
      for (const e of todays) {
        const key = e.kind === 'offer' ? `o:${e.offerId}` : `l:${e.plan.ref}`;
        byLoan.set(key, [...(byLoan.get(key) ?? []), e]);
      }
      const queues = [...byLoan.values()];
      await pool(queues, concurrency, async (queue) => {
        for (const e of queue) {
          if (e.kind === 'offer') await db.tenant(tenantId, (tx) => moveOffer(tx, e.offerId, e.action, day));
          else if (e.kind === 'originate') await originate(e.plan, day);
          else if (e.kind === 'pay') await pay(e.plan, e.upTo, day);
          else if (e.kind === 'tranche') await nextTranche(e.plan, day);
          else if (e.kind === 'reschedule') await reschedule(e.plan, day);
          else if (e.kind === 'reage') await reAge(e.plan, day);
          else if (e.kind === 'reamortize') await reAmortize(e.plan, day);
          else await writeOff(e.plan, day);
        }
      });
    }
    const tClose = Date.now();
    msCommands += tClose - tDay;
    // Close every day before today; today stays open (the scheduler closes it after local midnight).
    if (day < today) {
      await runDailyClose(db, tenantId, { businessDate: day, originate: false });
      stats.closes++;
    }
    msClose += Date.now() - tClose;
    done++;
    if (done % 30 === 0) {
      await refreshStatistics(db, CLOSE_TABLES, options.vacuum);
      options.onProgress?.({ day, done, total: totalDays + 1, commandsMs: msCommands, closeMs: msClose, ...stats });
    }
    day = addDays(day, 1);
  }
  await refreshStatistics(db, ALL_TABLES, options.vacuum);
  const tEnd = Date.now();
  const result: SimulateResult = {
    tenantId,
    from,
    to: today,
    customers: customers.length,
    ...stats,
    ms: {
      setup: tSetup - t0,
      customers: tCustomers - tSetup,
      history: tEnd - tCustomers,
      commands: msCommands,
      close: msClose,
      total: tEnd - t0,
    },
  };
  logger.info('simulation finished', result);
  return result;

  async function originate(plan: LoanPlan, date: string): Promise<void> {
    const product = setup.products[plan.product];
    const principal = BigInt(plan.principalMajor) * setup.unit;
    // One database transaction per origination (offer → notified → requested → application submitted
    // by the maker → approved or rejected by the checker → disbursed): the same engine commands, one
    // commit instead of six. Counters move only after the commit (a retried transaction counts once).
    const outcome = await db.tenant(tenantId, async (tx) => {
      const offerId = await createOffer(tx, tenantId, setup, product, plan.customer, plan.offerCode, date, 30, {
        principal,
        repayments: plan.repayments,
      });
      await moveOffer(tx, offerId, 'notify', date);
      await moveOffer(tx, offerId, 'request', date);
      const { application, loanId } = await submitApplication(tx, maker, {
        customerId: plan.customer.id,
        productId: product.id,
        offerId,
        principal,
        numberOfRepayments: plan.repayments,
        expectedDisbursementDate: date,
        formData: { purpose: plan.product === 'micro' ? 'working capital' : 'personal', source: 'simulator' },
      });
      if (plan.isRejected) {
        await rejectApplication(tx, checker, application.id, 'Affordability below policy');
        return null;
      }
      await approveApplication(tx, checker, application.id, 'Within policy');
      const varied = plan.variation ? await simulateVariation(tx, maker, loanId, product, plan.variation) : false;
      const fixedEmi =
        plan.fixedEmiPercent !== undefined
          ? await simulateFixedEmi(tx, maker, loanId, product, plan.fixedEmiPercent)
          : false;
      if (plan.secondTrancheAfter !== undefined) {
        // 60 % now, the rest when the works are done (setLoanTranches, then the first at disbursement).
        const first = (principal * 6n) / 10n;
        await setLoanTranches(tx, maker, {
          loanId,
          tranches: [
            { date, amount: first },
            { date: addDays(date, plan.secondTrancheAfter), amount: principal - first },
          ],
        });
      }
      const disbursed = await disburseLoan(tx, maker, { loanId, date });
      return {
        loanId,
        varied,
        fixedEmi,
        installments: disbursed.installments.map((i) => ({ number: i.number, dueDate: i.due_date })),
      };
    });
    stats.offers++;
    stats.applications++;
    if (!outcome) {
      stats.rejectedApplications++;
      return;
    }
    loanIds.set(plan.ref, outcome.loanId);
    stats.loans++;
    if (outcome.varied) stats.variations++;
    if (outcome.fixedEmi) stats.fixedEmis++;
    if (plan.product === 'crecalc') stats.cumulativeRecalculations++;
    if (plan.product === 'bnplFixed') stats.fixedLengths++;
    scheduleRepayments(plan, outcome.installments);
    if (plan.secondTrancheAfter !== undefined) at(addDays(date, plan.secondTrancheAfter), { kind: 'tranche', plan });
    if (plan.rescheduleAfter !== undefined) at(addDays(date, plan.rescheduleAfter), { kind: 'reschedule', plan });
    const maturity = outcome.installments.at(-1)?.dueDate;
    if (plan.reAge && maturity) at(addDays(maturity, plan.reAge.afterMaturity), { kind: 'reage', plan });
    const missed = plan.reAmortize && outcome.installments[plan.reAmortize.installment - 1]?.dueDate;
    if (plan.reAmortize && missed) at(addDays(missed, plan.reAmortize.afterDue), { kind: 'reamortize', plan });
  }

  /**
   * After a change of schedule, installments past the ones already planned get their own payments;
   * with `all`, every installment due from `from` on does (a re-amortisation moved the arrears onto
   * installments already planned, which the borrower now pays on time).
   */
  async function planAddedInstallments(plan: LoanPlan, loanId: string, from: string, all = false): Promise<void> {
    const rows = await db.tenant(tenantId, (tx) =>
      tx.query<{ number: number; due_date: string }>(
        `select number, due_date::text as due_date from loan_installments where loan_id = $1 order by number`,
        [loanId],
      ),
    );
    const planned = plannedCount.get(plan.ref) ?? 0;
    for (const row of rows) {
      if ((!all && row.number <= planned) || row.due_date < from) continue;
      at(row.due_date, { kind: 'pay', plan, upTo: row.number });
    }
    plannedCount.set(plan.ref, Math.max(planned, rows.at(-1)?.number ?? 0));
  }

  /**
   * A change of the loan's schedule made on `date` (a tranche, reschedule, re-age or re-amortisation):
   * counted when `change` made it, then the payments of the new installments are planned.
   */
  async function changeSchedule(
    plan: LoanPlan,
    date: string,
    stat: 'tranches' | 'reschedules' | 'reages' | 'reamortizations',
    change: (tx: Tx, loanId: string) => Promise<unknown>,
  ): Promise<void> {
    const loanId = loanIds.get(plan.ref);
    if (!loanId) return;
    const done = await db.tenant(tenantId, (tx) => change(tx, loanId));
    if (!done) return;
    stats[stat]++;
    await planAddedInstallments(plan, loanId, date, stat === 'reamortizations');
  }

  async function nextTranche(plan: LoanPlan, date: string): Promise<void> {
    await changeSchedule(plan, date, 'tranches', (tx, loanId) => simulateNextTranche(tx, maker, loanId));
  }

  async function reschedule(plan: LoanPlan, date: string): Promise<void> {
    await changeSchedule(plan, date, 'reschedules', (tx, loanId) =>
      simulateReschedule(tx, { maker, checker }, loanId, 2),
    );
  }

  /** An administrator re-ages the loan; the borrower then pays the new installments when due. */
  async function reAge(plan: LoanPlan, date: string): Promise<void> {
    const request = plan.reAge;
    if (!request) return;
    await changeSchedule(plan, date, 'reages', (tx, loanId) => simulateReAge(tx, checker, loanId, request));
  }

  /**
   * An administrator re-amortises the loan; the borrower then pays every installment still to come on
   * its due date (what fell due before is now on those installments).
   */
  async function reAmortize(plan: LoanPlan, date: string): Promise<void> {
    await changeSchedule(plan, date, 'reamortizations', (tx, loanId) => simulateReAmortization(tx, checker, loanId));
  }

  function scheduleRepayments(plan: LoanPlan, installments: { number: number; dueDate: string }[]): void {
    plannedCount.set(plan.ref, installments.at(-1)?.number ?? 0);
    const r = rng.fork(`pay-${plan.ref}`);
    let last = plan.disburseOn;
    for (const inst of installments) {
      if (plan.behaviour === 'defaulted' && inst.number > plan.stopAfter) {
        // Stops paying; written off after 180 days past due (if the history reaches that far).
        at(addDays(inst.dueDate, 180), { kind: 'write_off', plan });
        return;
      }
      if (plan.behaviour === 'early_payoff' && inst.number > 1 && r.chance(0.25)) {
        // Pays everything off a few days before this installment falls due.
        let date = addDays(inst.dueDate, -r.int(1, 10));
        if (date < last) date = last;
        at(date, { kind: 'pay', plan, upTo: 'all' });
        return;
      }
      const delay = plan.delays[inst.number - 1] ?? 0;
      let date = addDays(inst.dueDate, delay);
      if (date < last) date = last;
      last = date;
      at(date, { kind: 'pay', plan, upTo: inst.number });
    }
  }

  async function pay(plan: LoanPlan, upTo: number | 'all', date: string): Promise<void> {
    const loanId = loanIds.get(plan.ref);
    if (!loanId) return;
    const paid = await db.tenant(tenantId, async (tx) => {
      // What is owed up to this installment, and whether the loan still takes money: one read.
      const [{ status, amount }] = await tx.query<{ status: string; amount: bigint }>(
        `select l.status, coalesce((select sum(${INSTALLMENT_OUTSTANDING_SQL}) from loan_installments i
                                     where i.loan_id = l.id and ($2::int is null or i.number <= $2)), 0)::int8 as amount
           from loans l where l.id = $1`,
        [loanId, upTo === 'all' ? null : upTo],
      );
      if (status !== 'ACTIVE' || amount <= 0n) return false;
      if (upTo === 'all' && (plan.product === 'recalc' || plan.product === 'crecalc')) {
        // Interest is recalculated: paying off early costs the pre-closure quote, not the scheduled interest.
        const quote = await loanPreClosure(tx, tenantId, loanId, date);
        await repayLoan(tx, maker, { loanId, amount: quote.total, date, note: 'Simulated pay-off' });
        return true;
      }
      await repayLoan(tx, maker, { loanId, amount, date, note: 'Simulated repayment' });
      return true;
    });
    if (paid) stats.repayments++;
  }

  async function writeOff(plan: LoanPlan, date: string): Promise<void> {
    const loanId = loanIds.get(plan.ref);
    if (!loanId) return;
    const done = await db.tenant(tenantId, async (tx) => {
      const [{ status }] = await tx.query<Pick<LoansRow, 'status'>>(`select status from loans where id = $1`, [loanId]);
      if (status !== 'ACTIVE') return false;
      await writeOffLoan(tx, checker, { loanId, date, note: 'Written off after 180 days past due' });
      return true;
    });
    if (done) stats.writeOffs++;
  }
}

async function createOffer(
  tx: Tx,
  tenantId: string,
  setup: SimSetup,
  product: ProductRow,
  customer: SimCustomer,
  code: string,
  day: string,
  validDays: number,
  terms?: { principal: bigint; repayments: number },
): Promise<string> {
  const principal = terms?.principal ?? product.default_principal ?? product.min_principal * 2n;
  const repayments = terms?.repayments ?? product.default_repayments ?? product.min_repayments;
  const [{ id }] = await tx.query<Pick<OffersRow, 'id'>>(
    `insert into offers (tenant_id, code, customer_id, product_id, currency, principal, number_of_repayments, annual_interest_rate, expires_on, created_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::date) returning id`,
    [
      tenantId,
      code,
      customer.id,
      product.id,
      setup.currency,
      principal,
      repayments,
      product.annual_interest_rate,
      addDays(day, validDays),
      day,
    ],
  );
  return id;
}

/** Moves an offer through its lifecycle with the engine's offer state machine (refusals throw). */
async function moveOffer(tx: Tx, offerId: string, action: 'notify' | 'request' | 'reject', day: string): Promise<void> {
  {
    const [offer] = await tx.query<Pick<OffersRow, 'expires_on'> & { status: OfferStatus }>(
      `select status, expires_on from offers where id = $1 for update`,
      [offerId],
    );
    const next = transitionOffer(offer.status, action, { businessDate: day, expiresOn: offer.expires_on });
    await tx.query(
      `update offers set status = $2, updated_at = $3::date, version = version + 1,
         notified_at = case when $4 then $3::date else notified_at end, notified_by = case when $4 then 'simulator' else notified_by end,
         notify_channel = case when $4 then 'PhoneCall' else notify_channel end, notify_feedback = case when $4 then 'Interested' else notify_feedback end,
         rejected_reason = case when $2 = 'rejected' then 'Customer declined' else rejected_reason end
       where id = $1`,
      [offerId, next, day, action === 'notify'],
    );
  }
}

/**
 * The tables grow from nothing to millions of rows within one run, faster than autovacuum's analyze
 * follows; stale row estimates turn the close's joins into nested loops over "1 row" that is really
 * 100,000. The simulator is a seeding tool, so it refreshes planner statistics itself (as the owner:
 * ANALYZE needs table ownership). During the history only the tables the daily close and the
 * commands' plans depend on are refreshed (sampling the ever-growing journal at every refresh costs
 * minutes at 100,000 customers and changes no plan); everything is analysed once at the end.
 */
const CLOSE_TABLES = [
  'loans',
  'loan_installments',
  'loan_transactions',
  'loan_delinquency',
  'close_penalties',
  'offers',
  'loan_applications',
  'tenants',
] as const;
const ALL_TABLES = [...CLOSE_TABLES, 'customers', 'journal_entries', 'journal_lines'] as const;
/** Tables whose rows the history rewrites (dead versions pile up): vacuumed when a vacuum hook is given. */
const UPDATED_TABLES = new Set([
  'loans',
  'loan_installments',
  'loan_delinquency',
  'offers',
  'loan_applications',
  'tenants',
]);
async function refreshStatistics(
  db: Db,
  tables: readonly string[],
  vacuum?: (tables: readonly string[]) => Promise<void>,
): Promise<void> {
  const toVacuum = vacuum ? tables.filter((t) => UPDATED_TABLES.has(t)) : [];
  if (vacuum && toVacuum.length) await vacuum(toVacuum);
  const toAnalyze = tables.filter((t) => !toVacuum.includes(t));
  if (toAnalyze.length) await db.owner((tx) => tx.exec(toAnalyze.map((t) => `analyze ${t};`).join(' ')));
}

async function pool<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const runners = Array.from({ length: Math.min(size, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++];
      await work(item);
    }
  });
  await Promise.all(runners);
}
