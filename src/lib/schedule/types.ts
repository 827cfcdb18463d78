/**
 * Types of the schedule engine: loan terms in, repayment schedule out, plus the pure repayment
 * allocation and delinquency classification used by loan commands and the daily close.
 *
 * Conventions follow Apache Fineract (see src/lib/schedule/README.md). Money inside the engine is
 * bigint minor units of the currency (digitsAfterDecimal); decimal strings only at the JSON edges.
 * Calendar dates are 'YYYY-MM-DD' strings.
 */

export type RoundingMode = 'HALF_EVEN' | 'HALF_UP' | 'HALF_DOWN' | 'UP' | 'DOWN' | 'CEILING' | 'FLOOR';
export type RepaymentFrequency = 'DAYS' | 'WEEKS' | 'MONTHS';
export type ScheduleType = 'CUMULATIVE' | 'PROGRESSIVE';
export type InterestMethod = 'DECLINING_BALANCE' | 'FLAT';
export type Amortization = 'EQUAL_INSTALLMENTS' | 'EQUAL_PRINCIPAL';
export type InterestCalculationPeriod = 'DAILY' | 'SAME_AS_REPAYMENT_PERIOD';
export type DaysInYear = 'ACTUAL' | 360 | 364 | 365;
export type DaysInMonth = 'ACTUAL' | 30;

/** Validated loan terms (the output of parseTerms). */
export type ScheduleTerms = {
  /** Disbursed principal in minor units. */
  principal: bigint;
  currency: string;
  /** Digits after the decimal point of every amount (default from the currency). */
  digits: number;
  /** Fineract currency `inMultiplesOf`: only applies when digits is 0; 0 means off. */
  currencyInMultiplesOf: number;
  /** Product `installmentAmountInMultiplesOf` in whole currency units; null means off. */
  installmentAmountInMultiplesOf: number | null;
  roundingMode: RoundingMode;
  /** Nominal yearly rate in percent, as an exact decimal string ("12", "9.4822"). */
  annualInterestRate: string;
  numberOfRepayments: number;
  repaymentEvery: number;
  repaymentFrequency: RepaymentFrequency;
  disbursementDate: string;
  /** Start of the schedule; may be earlier than disbursement (partial first period). */
  expectedDisbursementDate: string;
  firstRepaymentDate: string | null;
  scheduleType: ScheduleType;
  interestMethod: InterestMethod;
  amortization: Amortization;
  interestCalculationPeriod: InterestCalculationPeriod;
  allowPartialPeriodInterest: boolean;
  daysInYear: DaysInYear;
  daysInMonth: DaysInMonth;
  graceOnPrincipalPeriods: number;
  graceOnInterestPaymentPeriods: number;
  interestFreePeriods: number;
  /** Percent of the principal paid as installment 1 on the disbursement date; null means none. */
  downPaymentPercent: string | null;
  /**
   * Fineract `fixedLength` (PROGRESSIVE only): the last due date is the schedule start plus this many
   * repayment-frequency units (days, weeks or months); null means off. See fixed.ts.
   */
  fixedLength?: number | null;
  /** Fineract `fixedEmiAmount` (CUMULATIVE, declining balance, equal installments): the EMI in minor units; null means computed. */
  fixedEmiAmount?: bigint | null;
  /** Fineract `principalThresholdForLastInstalment` in percent [0], used with fixedEmiAmount. */
  principalThresholdForLastInstallment?: number;
  /** Variable installments (CUMULATIVE only): due-date / amount changes, inserted and deleted installments. */
  variations?: ScheduleVariation[];
  /** Charges in the schedule (charges.ts); absent or empty means none. */
  charges?: ScheduleCharge[];
  /** Multi-disbursement (tranches.ts): expected tranches in date order, the first on `disbursementDate`; absent = one disbursement of `principal`. */
  disbursements?: Tranche[];
  /** Cap on the principal outstanding after a tranche (Fineract maxOutstandingLoanBalance); minor units. */
  maxOutstandingBalance?: bigint | null;
};

/**
 * One installment variation (Fineract LoanTermVariations of a variable-installment loan, all specific to
 * one installment). Amounts are minor units: the installment total (EMI loans) or its principal (other
 * loans), as Fineract's `installmentAmount` / `principal`.
 */
export type ScheduleVariation =
  | { type: 'DUE_DATE'; dueDate: string; newDueDate: string; amount?: bigint }
  | { type: 'AMOUNT'; dueDate: string; amount: bigint }
  | { type: 'INSERT'; dueDate: string; amount?: bigint }
  | { type: 'DELETE'; dueDate: string };

/** One disbursement of a multi-disbursement loan: date and amount in minor units. */
export type Tranche = { date: string; amount: bigint };

/** How a due date that falls on a day off moves (Fineract RepaymentRescheduleType). */
export type WorkingDayRule = 'SAME_DAY' | 'NEXT_WORKING_DAY' | 'PREVIOUS_WORKING_DAY' | 'NEXT_REPAYMENT_DAY';

export type Holiday = {
  /** Inclusive range of days off. */
  from: string;
  to: string;
  /** When set, due dates inside the holiday move to this date (Fineract "reschedule to specified date"). */
  repaymentsRescheduledTo?: string;
  /**
   * Fineract's holiday RescheduleType 1 (RESCHEDULE_TO_NEXT_REPAYMENT_DATE): a due date inside the
   * holiday moves to the next repayment date after it, and the following dates continue from there.
   * Absent, a holiday without a reschedule date follows the calendar rule (this product's default).
   */
  rescheduleToNextRepaymentDate?: boolean;
};

/** The tenant's days off. Weekdays are ISO numbers: 1 = Monday … 7 = Sunday. */
export type WorkingCalendar = {
  holidays: Holiday[];
  nonWorkingWeekdays: number[];
  rule: WorkingDayRule;
};

export type ScheduleInstallment = {
  /** 1-based; a down payment is number 1. */
  number: number;
  fromDate: string;
  dueDate: string;
  principal: bigint;
  interest: bigint;
  fees: bigint;
  penalties: bigint;
  total: bigint;
  /** Principal outstanding after this installment. */
  balance: bigint;
  isDownPayment: boolean;
  /**
   * Fineract's "additional" (N+1) installment: added after the last due date to carry the
   * specified-due-date charges dated after it (principal and interest 0). Absent on every other one.
   */
  isAdditional?: boolean;
};

export type ScheduleTotals = { principal: bigint; interest: bigint; fees: bigint; penalties: bigint; total: bigint };

export type Schedule = {
  currency: string;
  digits: number;
  installments: ScheduleInstallment[];
  totals: ScheduleTotals;
  /** Charges due at disbursement (collected then; not part of any installment nor of totals). */
  disbursement?: DisbursementCharges;
  /** Multi-disbursement only: the tranches the schedule was built with. */
  disbursements?: Tranche[];
};

/** The contract JSON (CLI stdout and POST /v1/schedules/preview): amounts as decimal strings. */
export type ScheduleInstallmentJson = {
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
  /** Only on the N+1 installment that carries the charges dated after the last due date. */
  additional?: true;
  /** Interest recalculation (terms with `transactions`): what has been paid and what is left. */
  paidPrincipal?: string;
  paidInterest?: string;
  paidFees?: string;
  paidPenalties?: string;
  paid?: string;
  outstanding?: string;
};

export type ScheduleJson = {
  currency: string;
  installments: ScheduleInstallmentJson[];
  /** Only when charges are due at disbursement. */
  disbursement?: { date: string; fees: string; penalties: string; total: string };
  /** Multi-disbursement only: each tranche's date and amount. */
  disbursements?: { date: string; amount: string }[];
  totals: {
    principal: string;
    interest: string;
    fees: string;
    penalties: string;
    total: string;
    paid?: string;
    outstanding?: string;
  };
  /** Interest recalculation: each repayment's split (recalculation.ts). */
  transactions?: {
    type: 'REPAYMENT';
    date: string;
    amount: string;
    principal: string;
    interest: string;
    /** Only when the repayment paid some (cumulative recalculation with charges). */
    fees?: string;
    penalties?: string;
    excess: string;
  }[];
  /** Interest recalculation with `asOf`: what closes the loan on that date (`fees`/`penalties` when owed). */
  preClosure?: { date: string; principal: string; interest: string; fees?: string; penalties?: string; total: string };
};

// ---------------------------------------------------------------------------------------------
// Allocation

export type Component = 'PENALTY' | 'FEE' | 'INTEREST' | 'PRINCIPAL';

/**
 * Fineract `transactionProcessingStrategyCode` values we implement. The product's default is
 * 'mifos-standard-strategy' (penalties → fees → interest → principal, oldest installment first).
 */
export type AllocationStrategyCode =
  | 'mifos-standard-strategy'
  | 'principal-interest-penalties-fees-order-strategy'
  | 'interest-principal-penalties-fees-order-strategy'
  | 'early-repayment-strategy'
  | 'rbi-india-strategy'
  | 'heavensfamily-strategy'
  | 'creocore-strategy'
  | 'due-penalty-fee-interest-principal-in-advance-principal-penalty-fee-interest-strategy'
  | 'due-penalty-interest-principal-fee-in-advance-penalty-interest-principal-fee-strategy'
  | 'advanced-payment-allocation-strategy';

export type DueType = 'PAST_DUE' | 'DUE' | 'IN_ADVANCE';
/** One of Fineract's 12 PaymentAllocationType values, e.g. { due: 'PAST_DUE', component: 'PENALTY' }. */
export type PaymentAllocationRule = { due: DueType; component: Component };
export type FutureInstallmentRule = 'NEXT_INSTALLMENT' | 'LAST_INSTALLMENT' | 'REAMORTIZATION';

/** Configuration of the advanced payment allocation strategy for one transaction type. */
export type AdvancedAllocation = {
  order: PaymentAllocationRule[];
  futureInstallmentRule: FutureInstallmentRule;
  processing: 'HORIZONTAL' | 'VERTICAL';
};

/** What is still owed on one installment (minor units, each ≥ 0). */
export type OutstandingInstallment = {
  number: number;
  /** Period start; optional, informative only. */
  fromDate?: string;
  dueDate: string;
  principal: bigint;
  interest: bigint;
  fees: bigint;
  penalties: bigint;
  /**
   * Optional: the part of `penalties` / `fees` whose charge is already due on the transaction date.
   * Only the due-penalty-fee-interest-principal-in-advance-… strategy uses it: an in-advance payment
   * settles those due charges before principal (Fineract's first pass). Default 0.
   */
  duePenalties?: bigint;
  dueFees?: bigint;
};

export type AllocationInput = {
  installments: OutstandingInstallment[];
  /** Payment in minor units, > 0. */
  amount: bigint;
  /** Transaction date: before a due date is "in advance", on it "due", after it "past due". */
  date: string;
  /** Default 'mifos-standard-strategy'. */
  strategy?: AllocationStrategyCode;
  /** Only for 'advanced-payment-allocation-strategy'; default Fineract's test default (see allocation.ts). */
  advanced?: AdvancedAllocation;
};

export type AllocationPart = {
  installmentNumber: number;
  principal: bigint;
  interest: bigint;
  fees: bigint;
  penalties: bigint;
};

export type AllocationResult = {
  /** Per installment touched, in the order first paid; never negative. */
  parts: AllocationPart[];
  /** Sum over parts per component. */
  principal: bigint;
  interest: bigint;
  fees: bigint;
  penalties: bigint;
  /** Money left after everything owed is paid (overpayment → credit balance). */
  excess: bigint;
  /** The installments with the parts subtracted (same order as the input). */
  remaining: OutstandingInstallment[];
  /** Components in the order they were paid (for audit and tests). */
  order: { installmentNumber: number; component: Component; amount: bigint }[];
};

// ---------------------------------------------------------------------------------------------
// Delinquency

export type DelinquencyRange = {
  /** Classification name, e.g. 'RANGE_1'. */
  name: string;
  minimumAgeDays: number;
  /** null = open-ended. */
  maximumAgeDays: number | null;
};

/** An installment for delinquency purposes: due date and what is still owed on it (minor units). */
export type DelinquencyInstallment = {
  number: number;
  dueDate: string;
  /** Total outstanding (principal + interest + fees + penalties) of this installment. */
  outstanding: bigint;
};

/** A delinquency pause [from, to): its days before the business date are subtracted from delinquent days. */
export type DelinquencyPause = { from: string; to: string };

export type DelinquencyInput = {
  installments: DelinquencyInstallment[];
  businessDate: string;
  /** Product/loan graceOnArrearsAgeing in days (default 0). */
  graceOnArrearsAgeing?: number;
  ranges: DelinquencyRange[];
  pauses?: DelinquencyPause[];
};

export type InstallmentLevelDelinquency = { range: string; amount: bigint };

export type LoanDelinquency = {
  /** businessDate − oldest unpaid overdue due date; 0 when nothing is overdue. */
  pastDueDays: number;
  /** pastDueDays − graceOnArrearsAgeing − paused days (when positive), never below 0. */
  delinquentDays: number;
  /** Oldest overdue due date + grace; null when nothing is overdue. */
  delinquentDate: string | null;
  /** Outstanding of the overdue installments. */
  delinquentAmount: bigint;
  /** Name of the range holding delinquentDays; null when not delinquent or no range matches. */
  classification: string | null;
  /** Per range, amounts of overdue installments by their own raw days past due (empty unless delinquent). */
  installmentLevel: InstallmentLevelDelinquency[];
};

// ---------------------------------------------------------------------------------------------
// Charges (charges.ts)

export type ChargeType = 'FEE' | 'PENALTY';
/** Fineract ChargeTimeType subset that lives in the schedule. */
export type ChargeTiming = 'DISBURSEMENT' | 'INSTALLMENT' | 'SPECIFIED_DUE_DATE';
/** Fineract ChargeCalculationType (PERCENT_OF_AMOUNT = of the principal). */
export type ChargeCalculation = 'FLAT' | 'PERCENT_OF_AMOUNT' | 'PERCENT_OF_AMOUNT_AND_INTEREST' | 'PERCENT_OF_INTEREST';

export type ScheduleCharge = {
  name: string | null;
  type: ChargeType;
  timing: ChargeTiming;
  calculation: ChargeCalculation;
  /** Decimal string: money in the currency (FLAT) or a percentage. */
  amount: string;
  /** Only for SPECIFIED_DUE_DATE. */
  dueDate: string | null;
};

/** Charges due on the disbursement date (minor units). */
export type DisbursementCharges = { date: string; fees: bigint; penalties: bigint; total: bigint };

/** Recurrence of an overdue penalty (Fineract feeFrequency + feeInterval). */
export type OverduePenaltyFrequency = { unit: 'DAYS' | 'WEEKS' | 'MONTHS' | 'YEARS'; interval: number };
