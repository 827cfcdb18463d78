import { AppError } from '../errors/app-error.ts';
import type { Tx } from '../db/index.ts';
import type { DaysOffRow, LendingSettingsRow, LoanProductsRow } from '../db/schema.generated.ts';
import { currencyCode, currencyDigits, formatMinor, MAX_AMOUNT_MINOR } from '../money/money.ts';
import { validationError } from '../errors/messages.ts';
import type { AllocationStrategyCode, WorkingCalendar, WorkingDayRule } from '../schedule/types.ts';
import { assertUuid } from './loans.ts';

/** A `loan_products` row; the check constraints and the JSON the product form writes narrow a few columns. */
export type ProductRow = Omit<LoanProductsRow, 'repayment_frequency' | 'allocation_strategy' | 'fees' | 'penalties'> & {
  repayment_frequency: 'DAYS' | 'WEEKS' | 'MONTHS';
  allocation_strategy: AllocationStrategyCode;
  fees: unknown[];
  penalties: unknown[];
};

/** Product fields a caller sets; conventions default to Fineract's usual product settings. */
export type ProductInput = {
  code: string;
  name: string;
  description?: string;
  currency: string;
  digitsAfterDecimal: number;
  currencyInMultiplesOf?: number;
  installmentAmountInMultiplesOf?: number;
  roundingMode?: string;
  minPrincipal: bigint;
  maxPrincipal: bigint;
  defaultPrincipal?: bigint | null;
  minRepayments: number;
  maxRepayments: number;
  defaultRepayments?: number | null;
  annualInterestRate: string;
  repaymentEvery?: number;
  repaymentFrequency: 'DAYS' | 'WEEKS' | 'MONTHS';
  scheduleType?: 'CUMULATIVE' | 'PROGRESSIVE';
  interestMethod?: 'DECLINING_BALANCE' | 'FLAT';
  amortization?: 'EQUAL_INSTALLMENTS' | 'EQUAL_PRINCIPAL';
  interestCalculationPeriod?: 'DAILY' | 'SAME_AS_REPAYMENT_PERIOD';
  allowPartialPeriodInterest?: boolean;
  daysInYear?: 'ACTUAL' | '360' | '364' | '365';
  daysInMonth?: 'ACTUAL' | '30';
  graceOnPrincipalPeriods?: number;
  graceOnInterestPaymentPeriods?: number;
  interestFreePeriods?: number;
  graceOnArrearsAgeing?: number;
  downPaymentPercent?: string | null;
  fees?: unknown[];
  penalties?: unknown[];
  allocationStrategy?: AllocationStrategyCode;
  delinquencyBucketSetId?: string | null;
  /** Accept repayments above what a loan owes, as a credit balance; default no. */
  allowOverpayment?: boolean;
  /** Fineract fixedLength: the last due date is the start + this many repayment units (progressive, 0 % only). */
  fixedLength?: number | null;
  /** A loan may be given its own installment amount (Fineract canDefineInstallmentAmount). */
  allowFixedEmi?: boolean;
  /** Installments may be moved, changed, added or deleted before disbursement, within these gaps (days). */
  allowVariableInstallments?: boolean;
  variableInstallmentMinGapDays?: number | null;
  variableInstallmentMaxGapDays?: number | null;
  /** Multi-disbursement: a loan is paid out in tranches (migration 1110); default no. */
  multiDisbursement?: boolean;
  /** With multiDisbursement: the most tranches a loan may have (2–100); null = no limit but 100. */
  maxTranches?: number | null;
  /** Interest recalculation (migration 1120, src/lib/schedule/recalculation.ts); default off. */
  interestRecalculation?: boolean;
  recalculationRestFrequency?: 'SAME_AS_REPAYMENT_PERIOD' | 'DAILY' | 'WEEKLY' | 'MONTHLY';
  recalculationCompounding?: 'NONE' | 'INTEREST' | 'FEE' | 'INTEREST_AND_FEE';
  /** Migration 1121: every how many rest periods; when and every how many compounding happens. */
  recalculationRestInterval?: number;
  recalculationCompoundingFrequency?: 'SAME_AS_REPAYMENT_PERIOD' | 'DAILY' | 'WEEKLY' | 'MONTHLY';
  recalculationCompoundingInterval?: number;
  recalculationRescheduleStrategy?:
    'ADJUST_LAST_UNPAID_PERIOD' | 'REDUCE_EMI_AMOUNT' | 'REDUCE_NUMBER_OF_INSTALLMENTS' | 'RESCHEDULE_NEXT_REPAYMENTS';
  preClosureStrategy?: 'TILL_PRE_CLOSURE_DATE' | 'TILL_REST_FREQUENCY_DATE';
};

/**
 * A product's digits must be its currency's: the currency table is the one source of digits (see
 * src/lib/money/money.ts), and the product keeps the column only because the schedule engine's terms
 * carry it. A 400 naming digitsAfterDecimal otherwise.
 */
export function assertProductDigits(currency: string, digitsAfterDecimal: number): void {
  const digits = currencyDigits(currency);
  if (digitsAfterDecimal !== digits)
    throw validationError('digitsAfterDecimal', 'money.currencyDigits', { digits, currency: currencyCode(currency) });
}

/** Amounts positive and bounded, maximum amount and term not below their minimum (400 naming the field). */
export function assertProductRanges(p: ProductInput): void {
  const d = p.digitsAfterDecimal;
  for (const field of ['minPrincipal', 'maxPrincipal', 'defaultPrincipal'] as const) {
    const value = p[field];
    if (value === null || value === undefined) continue;
    if (value <= 0n) throw validationError(field, 'money.mustBePositive');
    if (value > MAX_AMOUNT_MINOR)
      throw validationError(field, 'money.tooLarge', { max: formatMinor(MAX_AMOUNT_MINOR, d) });
  }
  if (p.maxPrincipal < p.minPrincipal)
    throw validationError('maxPrincipal', 'money.outOfRange', {
      min: formatMinor(p.minPrincipal, d),
      max: formatMinor(MAX_AMOUNT_MINOR, d),
    });
  if (p.maxRepayments < p.minRepayments) throw validationError('maxRepayments', 'number.min', { min: p.minRepayments });
}

/** The columns a product's terms are stored in, in the order productColumns answers them. */
export const PRODUCT_COLUMNS = [
  'tenant_id',
  'code',
  'name',
  'description',
  'currency',
  'digits_after_decimal',
  'currency_in_multiples_of',
  'installment_amount_in_multiples_of',
  'rounding_mode',
  'min_principal',
  'max_principal',
  'default_principal',
  'min_repayments',
  'max_repayments',
  'default_repayments',
  'annual_interest_rate',
  'repayment_every',
  'repayment_frequency',
  'schedule_type',
  'interest_method',
  'amortization',
  'interest_calculation_period',
  'allow_partial_period_interest',
  'days_in_year',
  'days_in_month',
  'grace_on_principal_periods',
  'grace_on_interest_payment_periods',
  'interest_free_periods',
  'grace_on_arrears_ageing',
  'down_payment_percent',
  'fees',
  'penalties',
  'allocation_strategy',
  'delinquency_bucket_set_id',
  'allow_overpayment',
  'fixed_length',
  'allow_fixed_emi',
  'allow_variable_installments',
  'variable_installment_min_gap_days',
  'variable_installment_max_gap_days',
  'multi_disbursement',
  'max_tranches',
  'interest_recalculation',
  'recalculation_rest_frequency',
  'recalculation_compounding',
  'recalculation_rest_interval',
  'recalculation_compounding_frequency',
  'recalculation_compounding_interval',
  'recalculation_reschedule_strategy',
  'pre_closure_strategy',
] as const;

/** ProductInput → its column values, with Fineract's usual product settings as defaults (tenant_id left empty). */
export function productColumns(p: ProductInput): Record<(typeof PRODUCT_COLUMNS)[number], unknown> {
  return {
    tenant_id: '',
    code: p.code,
    name: p.name,
    description: p.description ?? '',
    currency: p.currency.toUpperCase(),
    digits_after_decimal: p.digitsAfterDecimal,
    currency_in_multiples_of: p.currencyInMultiplesOf ?? 0,
    installment_amount_in_multiples_of: p.installmentAmountInMultiplesOf ?? 0,
    rounding_mode: p.roundingMode ?? 'HALF_EVEN',
    min_principal: p.minPrincipal,
    max_principal: p.maxPrincipal,
    default_principal: p.defaultPrincipal ?? null,
    min_repayments: p.minRepayments,
    max_repayments: p.maxRepayments,
    default_repayments: p.defaultRepayments ?? null,
    annual_interest_rate: String(Number(p.annualInterestRate)),
    repayment_every: p.repaymentEvery ?? 1,
    repayment_frequency: p.repaymentFrequency,
    schedule_type: p.scheduleType ?? 'CUMULATIVE',
    interest_method: p.interestMethod ?? 'DECLINING_BALANCE',
    amortization: p.amortization ?? 'EQUAL_INSTALLMENTS',
    interest_calculation_period: p.interestCalculationPeriod ?? 'DAILY',
    allow_partial_period_interest: p.allowPartialPeriodInterest ?? false,
    days_in_year: p.daysInYear ?? 'ACTUAL',
    days_in_month: p.daysInMonth ?? 'ACTUAL',
    grace_on_principal_periods: p.graceOnPrincipalPeriods ?? 0,
    grace_on_interest_payment_periods: p.graceOnInterestPaymentPeriods ?? 0,
    interest_free_periods: p.interestFreePeriods ?? 0,
    grace_on_arrears_ageing: p.graceOnArrearsAgeing ?? 0,
    down_payment_percent: p.downPaymentPercent == null ? null : String(Number(p.downPaymentPercent)),
    fees: p.fees ?? [],
    penalties: p.penalties ?? [],
    allocation_strategy: p.allocationStrategy ?? 'mifos-standard-strategy',
    delinquency_bucket_set_id: p.delinquencyBucketSetId ?? null,
    allow_overpayment: p.allowOverpayment ?? false,
    fixed_length: p.fixedLength ?? null,
    allow_fixed_emi: p.allowFixedEmi ?? false,
    allow_variable_installments: p.allowVariableInstallments ?? false,
    variable_installment_min_gap_days: p.allowVariableInstallments ? (p.variableInstallmentMinGapDays ?? null) : null,
    variable_installment_max_gap_days: p.allowVariableInstallments ? (p.variableInstallmentMaxGapDays ?? null) : null,
    multi_disbursement: p.multiDisbursement ?? false,
    max_tranches: p.multiDisbursement ? (p.maxTranches ?? null) : null,
    interest_recalculation: p.interestRecalculation ?? false,
    recalculation_rest_frequency: p.recalculationRestFrequency ?? 'DAILY',
    recalculation_compounding: p.recalculationCompounding ?? 'NONE',
    recalculation_rest_interval: p.recalculationRestInterval ?? 1,
    recalculation_compounding_frequency: p.recalculationCompoundingFrequency ?? 'SAME_AS_REPAYMENT_PERIOD',
    recalculation_compounding_interval: p.recalculationCompoundingInterval ?? 1,
    recalculation_reschedule_strategy: p.recalculationRescheduleStrategy ?? 'ADJUST_LAST_UNPAID_PERIOD',
    pre_closure_strategy: p.preClosureStrategy ?? 'TILL_PRE_CLOSURE_DATE',
  };
}

/**
 * Inserts a product (version 1; the trigger of migration 0610 keeps its snapshot). The checks here
 * are the minimum the schema needs; writers from outside go through product-admin.ts, which checks
 * every rule first.
 */
export async function createProduct(
  tx: Tx,
  tenantId: string,
  p: ProductInput,
  createdBy?: string,
): Promise<ProductRow> {
  assertProductDigits(p.currency, p.digitsAfterDecimal);
  assertProductRanges(p);
  const values = { ...productColumns(p), tenant_id: tenantId };
  const params = PRODUCT_COLUMNS.map((c) =>
    c === 'fees' || c === 'penalties' ? JSON.stringify(values[c]) : values[c],
  );
  const placeholders = PRODUCT_COLUMNS.map((c, k) => `$${k + 1}${c === 'fees' || c === 'penalties' ? '::jsonb' : ''}`);
  const rows = await tx.query<ProductRow>(
    `insert into loan_products (${PRODUCT_COLUMNS.join(', ')}, updated_by) values (${placeholders.join(', ')}, $${PRODUCT_COLUMNS.length + 1})
     returning *`,
    [...params, createdBy ?? null],
  );
  return normalise(rows[0]);
}

function normalise(row: ProductRow): ProductRow {
  return { ...row, currency: currencyCode(row.currency) };
}

export async function getProduct(tx: Tx, productId: string): Promise<ProductRow> {
  assertUuid(productId, 'productId');
  const rows = await tx.query<ProductRow>(`select * from loan_products where id = $1`, [productId]);
  if (!rows[0]) throw new AppError('NOT_FOUND', 'Loan product not found', { field: 'productId' });
  return normalise(rows[0]);
}

/**
 * The product as it was at `version` (the snapshot of migration 0610): what every existing offer,
 * application and loan reads its conventions from, so a later change to the product never alters it.
 */
export async function getProductVersion(tx: Tx, productId: string, version: number): Promise<ProductRow> {
  assertUuid(productId, 'productId');
  const rows = await tx.query<ProductRow>(
    `select (jsonb_populate_record(null::loan_products, snapshot)).* from loan_product_versions where product_id = $1 and version = $2`,
    [productId, version],
  );
  if (!rows[0]) throw new AppError('NOT_FOUND', 'Loan product version not found', { field: 'productId' });
  return normalise(rows[0]);
}

/**
 * Product versions already read, by tenant, product and version. A version's snapshot never changes
 * (a product edit makes a new version), so a loan command does not need to read it again; the key
 * holds the tenant of the row that named it, read under row-level security, so a cached snapshot
 * only reaches the tenant it belongs to. Bounded: the oldest entry goes first.
 */
const versionCache = new Map<string, ProductRow>();
const VERSION_CACHE_SIZE = 500;

/**
 * The product version an offer, application or loan was made with. A row read from the database
 * carries its tenant, and its version is then cached.
 */
export async function productOf(
  tx: Tx,
  row: { tenant_id?: string; product_id: string; product_version: number },
): Promise<ProductRow> {
  if (!row.tenant_id) return getProductVersion(tx, row.product_id, row.product_version);
  const key = `${row.tenant_id}:${row.product_id}:${row.product_version}`;
  const cached = versionCache.get(key);
  if (cached) return structuredClone(cached);
  const product = await getProductVersion(tx, row.product_id, row.product_version);
  if (versionCache.size >= VERSION_CACHE_SIZE) versionCache.delete(versionCache.keys().next().value!);
  versionCache.set(key, structuredClone(product));
  return product;
}

/** The product version of an offer, application or loan by its id (pages that hold only the id). */
export async function productOfRecord(
  tx: Tx,
  table: 'offers' | 'loan_applications' | 'loans',
  id: string,
): Promise<ProductRow> {
  const [row] = await tx.query<{ product_id: string; product_version: number }>(
    `select product_id, product_version from ${table} where id = $1`,
    [id],
  );
  if (!row) throw new AppError('NOT_FOUND', 'Loan product not found', { field: 'productId' });
  return productOf(tx, row);
}

export async function listProducts(tx: Tx): Promise<ProductRow[]> {
  return (await tx.query<ProductRow>(`select * from loan_products order by name, id`)).map(normalise);
}

/** New offers and applications only for an active product: a 409 naming productId otherwise. */
export function assertProductActive(product: ProductRow): void {
  if (!product.is_active)
    throw new AppError('CONFLICT', 'This loan product is no longer offered', { field: 'productId' });
}

/** Checks amount and term against the product's ranges; errors name the field. */
export function assertWithinProduct(product: ProductRow, principal: bigint, numberOfRepayments: number): void {
  if (product.currency.length !== 3) throw new AppError('INTERNAL', 'product currency invalid');
  if (principal < product.min_principal || principal > product.max_principal) {
    const d = product.digits_after_decimal;
    throw validationError('principal', 'money.outOfRange', {
      min: formatMinor(product.min_principal, d),
      max: formatMinor(product.max_principal, d),
    });
  }
  if (!Number.isInteger(numberOfRepayments)) throw validationError('numberOfRepayments', 'number.whole');
  if (numberOfRepayments < product.min_repayments || numberOfRepayments > product.max_repayments) {
    throw validationError('numberOfRepayments', 'number.between', {
      min: product.min_repayments,
      max: product.max_repayments,
    });
  }
}

/**
 * The schedule terms (the contract JSON of src/lib/schedule) of a loan of this product: the product
 * carries every convention, the loan its amount, term, rate and dates.
 */
export function termsFor(
  product: ProductRow,
  loan: {
    principal: bigint;
    numberOfRepayments: number;
    annualInterestRate: string;
    disbursementDate: string;
    expectedDisbursementDate?: string | null;
    firstRepaymentDate?: string | null;
  },
): Record<string, unknown> {
  const terms: Record<string, unknown> = {
    principal: formatMinor(loan.principal, product.digits_after_decimal),
    currency: product.currency,
    digitsAfterDecimal: product.digits_after_decimal,
    currencyInMultiplesOf: product.currency_in_multiples_of,
    roundingMode: product.rounding_mode,
    annualInterestRate: loan.annualInterestRate,
    numberOfRepayments: loan.numberOfRepayments,
    repaymentEvery: product.repayment_every,
    repaymentFrequency: product.repayment_frequency,
    disbursementDate: loan.disbursementDate,
    scheduleType: product.schedule_type,
    interestMethod: product.interest_method,
    amortization: product.amortization,
    interestCalculationPeriod: product.interest_calculation_period,
    allowPartialPeriodInterest: product.allow_partial_period_interest,
    daysInYear: product.days_in_year,
    daysInMonth: product.days_in_month,
    graceOnPrincipalPeriods: product.grace_on_principal_periods,
    graceOnInterestPaymentPeriods: product.grace_on_interest_payment_periods,
    interestFreePeriods: product.interest_free_periods,
  };
  if (product.installment_amount_in_multiples_of > 0)
    terms.installmentAmountInMultiplesOf = product.installment_amount_in_multiples_of;
  if (product.down_payment_percent !== null) terms.downPaymentPercent = product.down_payment_percent;
  if (loan.expectedDisbursementDate && loan.expectedDisbursementDate < loan.disbursementDate)
    terms.expectedDisbursementDate = loan.expectedDisbursementDate;
  if (loan.firstRepaymentDate) terms.firstRepaymentDate = loan.firstRepaymentDate;
  if (product.fixed_length) terms.fixedLength = product.fixed_length;
  const charges = productCharges(product.fees);
  if (charges.length > 0) terms.charges = charges;
  // Interest recalculation (1120): only the recalculating engine reads it; the plain schedule ignores it.
  if (product.interest_recalculation === true) {
    terms.interestRecalculation = recalculationOf(product);
    // An interest-first strategy splits a cumulative period at a repayment (src/lib/schedule/README.md).
    terms.allocationStrategy = product.allocation_strategy;
  }
  return terms;
}

/** A product's fees as the terms' `charges` (disbursement and installment fees; see product-admin.ts). */
export function productCharges(fees: unknown[] | null | undefined): Record<string, unknown>[] {
  return (fees ?? []).flatMap((raw) => {
    const f = raw as { name?: string; timing?: string; calculation?: string; amount?: string };
    if (!f || (f.timing !== 'DISBURSEMENT' && f.timing !== 'INSTALLMENT') || !f.amount) return [];
    return [
      { name: f.name ?? null, type: 'FEE', timing: f.timing, calculation: f.calculation ?? 'FLAT', amount: f.amount },
    ];
  });
}

/** The `interestRecalculation` object of the terms contract for a recalculating product. */
export function recalculationOf(product: ProductRow): Record<string, string | number> {
  const compounding = product.recalculation_compounding ?? 'NONE';
  return {
    restFrequency: product.recalculation_rest_frequency ?? 'DAILY',
    restInterval: product.recalculation_rest_interval ?? 1,
    compounding,
    // A product version from before migration 1121 has none: compounding on the due dates.
    ...(compounding === 'NONE'
      ? {}
      : {
          compoundingFrequency: product.recalculation_compounding_frequency ?? 'SAME_AS_REPAYMENT_PERIOD',
          compoundingInterval: product.recalculation_compounding_interval ?? 1,
        }),
    rescheduleStrategy: product.recalculation_reschedule_strategy ?? 'ADJUST_LAST_UNPAID_PERIOD',
    preClosureStrategy: product.pre_closure_strategy ?? 'TILL_PRE_CLOSURE_DATE',
  };
}

/**
 * The working calendar for due dates (days_off + lending_settings): the tenant-wide days off, plus the
 * branch's own when `branchId` is given (a loan's branch is its customer's: loans.customer_branch_id).
 * A holiday's rescheduling type (migration 1160) becomes the engine's: SPECIFIED_DATE its
 * `repaymentsRescheduledTo`, NEXT_REPAYMENT_DATE `rescheduleToNextRepaymentDate`, WORKING_DAY_RULE
 * neither (the rule decides).
 */
export async function loadCalendar(tx: Tx, branchId?: string | null): Promise<WorkingCalendar> {
  const offs = await tx.query<
    Pick<DaysOffRow, 'kind' | 'from_date' | 'to_date' | 'weekday' | 'repayments_rescheduled_to' | 'rescheduling_type'>
  >(
    `select kind, from_date, to_date, weekday, repayments_rescheduled_to, rescheduling_type from days_off
      where branch_id is null or branch_id = $1
      order by from_date nulls first, weekday`,
    [branchId ?? null],
  );
  const settings = await tx.query<{ due_date_on_day_off: WorkingDayRule }>(
    `select due_date_on_day_off from lending_settings`,
  );
  return {
    holidays: offs
      .filter((o) => o.kind === 'holiday')
      .map((o) => ({
        from: o.from_date!,
        to: o.to_date!,
        ...(o.rescheduling_type === 'SPECIFIED_DATE' && o.repayments_rescheduled_to
          ? { repaymentsRescheduledTo: o.repayments_rescheduled_to }
          : {}),
        ...(o.rescheduling_type === 'NEXT_REPAYMENT_DATE' ? { rescheduleToNextRepaymentDate: true } : {}),
      })),
    nonWorkingWeekdays: [...new Set(offs.filter((o) => o.kind === 'non_working_weekday').map((o) => o.weekday!))],
    rule: settings[0]?.due_date_on_day_off ?? 'NEXT_WORKING_DAY',
  };
}

/** Tenant lending settings (maker-checker threshold). */
export async function loadLendingSettings(tx: Tx): Promise<{ approvalAdminThreshold: bigint | null }> {
  const rows = await tx.query<Pick<LendingSettingsRow, 'approval_admin_threshold'>>(
    `select approval_admin_threshold from lending_settings`,
  );
  return { approvalAdminThreshold: rows[0]?.approval_admin_threshold ?? null };
}

export async function saveLendingSettings(
  tx: Tx,
  tenantId: string,
  settings: { approvalAdminThreshold: bigint | null; dueDateOnDayOff?: WorkingDayRule },
): Promise<void> {
  // Without a rule, an existing row keeps its own (the days-off page sets it: src/lib/days-off).
  await tx.query(
    `insert into lending_settings (tenant_id, approval_admin_threshold, due_date_on_day_off) values ($1, $2, coalesce($3, 'NEXT_WORKING_DAY'))
     on conflict (tenant_id) do update set approval_admin_threshold = excluded.approval_admin_threshold,
       due_date_on_day_off = coalesce($3, lending_settings.due_date_on_day_off)`,
    [tenantId, settings.approvalAdminThreshold, settings.dueDateOnDayOff ?? null],
  );
}

export function productJson(p: ProductRow) {
  const d = p.digits_after_decimal;
  return {
    id: p.id,
    code: p.code,
    name: p.name,
    description: p.description,
    currency: p.currency,
    digitsAfterDecimal: d,
    currencyInMultiplesOf: p.currency_in_multiples_of,
    installmentAmountInMultiplesOf: p.installment_amount_in_multiples_of || null,
    roundingMode: p.rounding_mode,
    minPrincipal: formatMinor(p.min_principal, d),
    maxPrincipal: formatMinor(p.max_principal, d),
    defaultPrincipal: p.default_principal === null ? null : formatMinor(p.default_principal, d),
    minRepayments: p.min_repayments,
    maxRepayments: p.max_repayments,
    defaultRepayments: p.default_repayments,
    annualInterestRate: p.annual_interest_rate,
    repaymentEvery: p.repayment_every,
    repaymentFrequency: p.repayment_frequency,
    scheduleType: p.schedule_type,
    interestMethod: p.interest_method,
    amortization: p.amortization,
    interestCalculationPeriod: p.interest_calculation_period,
    allowPartialPeriodInterest: p.allow_partial_period_interest,
    daysInYear: p.days_in_year,
    daysInMonth: p.days_in_month,
    graceOnPrincipalPeriods: p.grace_on_principal_periods,
    graceOnInterestPaymentPeriods: p.grace_on_interest_payment_periods,
    interestFreePeriods: p.interest_free_periods,
    graceOnArrearsAgeing: p.grace_on_arrears_ageing,
    downPaymentPercent: p.down_payment_percent,
    fees: p.fees,
    penalties: p.penalties,
    allocationStrategy: p.allocation_strategy,
    delinquencyBucketSetId: p.delinquency_bucket_set_id,
    isActive: p.is_active,
    allowOverpayment: p.allow_overpayment,
    fixedLength: p.fixed_length ?? null,
    allowFixedEmi: p.allow_fixed_emi === true,
    allowVariableInstallments: p.allow_variable_installments === true,
    variableInstallmentMinGapDays: p.variable_installment_min_gap_days ?? null,
    variableInstallmentMaxGapDays: p.variable_installment_max_gap_days ?? null,
    multiDisbursement: p.multi_disbursement === true,
    maxTranches: p.max_tranches ?? null,
    interestRecalculation: p.interest_recalculation === true,
    recalculationRestFrequency: p.recalculation_rest_frequency ?? 'DAILY',
    recalculationCompounding: p.recalculation_compounding ?? 'NONE',
    recalculationRestInterval: p.recalculation_rest_interval ?? 1,
    recalculationCompoundingFrequency: p.recalculation_compounding_frequency ?? 'SAME_AS_REPAYMENT_PERIOD',
    recalculationCompoundingInterval: p.recalculation_compounding_interval ?? 1,
    recalculationRescheduleStrategy: p.recalculation_reschedule_strategy ?? 'ADJUST_LAST_UNPAID_PERIOD',
    preClosureStrategy: p.pre_closure_strategy ?? 'TILL_PRE_CLOSURE_DATE',
    version: p.version,
    updatedAt: p.updated_at ? new Date(p.updated_at).toISOString() : null,
  };
}
