import { z } from 'zod';
import type { Tx } from '../db/index.ts';
import { ADMIN } from '../auth/permissions.ts';
import { auditActor, recordAudit } from '../audit/record-audit.ts';
import { AppError } from '../errors/app-error.ts';
import { validationError } from '../errors/messages.ts';
import { defineCommand } from '../http/command.ts';
import { zodAmount } from '../http/input-fields.ts';
import { formatMinor, parseMinor } from '../money/money.ts';
import {
  ALLOCATION_STRATEGY_CODES,
  generateSchedule,
  parseRecalculationTerms,
  parseTerms,
  recalculateSchedule,
} from '../schedule/index.ts';
import type { Actor } from './actor.ts';
import { assertUuid } from './loans.ts';
import {
  assertProductDigits,
  assertProductRanges,
  createProduct,
  getProduct,
  PRODUCT_COLUMNS,
  productColumns,
  productJson,
  termsFor,
  type ProductInput,
  type ProductRow,
} from './products.ts';

/**
 * Creating and changing loan products (issue 12): one validation and one pair of commands that
 * POST/PATCH /v1/products and the admin product form both run. Every change is a new version
 * (migration 0610 keeps each version's snapshot; loans keep the version they were made with), and
 * `{ active: false }` deactivates: no new offers or applications, existing loans unaffected.
 */

export const ROUNDING_MODES = ['HALF_EVEN', 'HALF_UP', 'HALF_DOWN', 'UP', 'DOWN', 'CEILING', 'FLOOR'] as const;
export const REPAYMENT_FREQUENCIES = ['DAYS', 'WEEKS', 'MONTHS'] as const;
export const SCHEDULE_TYPES = ['CUMULATIVE', 'PROGRESSIVE'] as const;
export const INTEREST_METHODS = ['DECLINING_BALANCE', 'FLAT'] as const;
export const AMORTIZATIONS = ['EQUAL_INSTALLMENTS', 'EQUAL_PRINCIPAL'] as const;
export const INTEREST_CALCULATION_PERIODS = ['DAILY', 'SAME_AS_REPAYMENT_PERIOD'] as const;
export const DAYS_IN_YEAR = ['ACTUAL', '360', '364', '365'] as const;
export const DAYS_IN_MONTH = ['ACTUAL', '30'] as const;
/** The repayment allocation strategies the schedule engine implements (src/lib/schedule/allocation.ts). */
export const ALLOCATION_STRATEGIES = ALLOCATION_STRATEGY_CODES;
/** Interest recalculation options (migration 1120, src/lib/schedule/recalculation.ts). */
export const REST_FREQUENCIES = ['SAME_AS_REPAYMENT_PERIOD', 'DAILY', 'WEEKLY', 'MONTHLY'] as const;
export const COMPOUNDINGS = ['NONE', 'INTEREST', 'FEE', 'INTEREST_AND_FEE'] as const;
export const RESCHEDULE_STRATEGIES = [
  'ADJUST_LAST_UNPAID_PERIOD',
  'REDUCE_EMI_AMOUNT',
  'REDUCE_NUMBER_OF_INSTALLMENTS',
  'RESCHEDULE_NEXT_REPAYMENTS',
] as const;
export const PRE_CLOSURE_STRATEGIES = ['TILL_PRE_CLOSURE_DATE', 'TILL_REST_FREQUENCY_DATE'] as const;
/** Penalties the daily close charges (src/lib/close/penalties.ts): overdue, flat or a percent of the installment. */
export const PENALTY_KINDS = [
  'FLAT',
  'PERCENT_OF_INSTALLMENT',
  'PERCENT_OF_OVERDUE_PRINCIPAL',
  'PERCENT_OF_OVERDUE_PRINCIPAL_AND_INTEREST',
  'PERCENT_OF_OVERDUE_INTEREST',
] as const;
/** Recurrence of an overdue penalty (Fineract feeFrequency); absent = charged once per installment. */
export const PENALTY_FREQUENCIES = ['DAYS', 'WEEKS', 'MONTHS', 'YEARS'] as const;
/** Product fees the schedule engine puts into every loan's schedule (src/lib/schedule/charges.ts). */
export const FEE_TIMINGS = ['DISBURSEMENT', 'INSTALLMENT'] as const;
export const FEE_CALCULATIONS = [
  'FLAT',
  'PERCENT_OF_AMOUNT',
  'PERCENT_OF_AMOUNT_AND_INTEREST',
  'PERCENT_OF_INTEREST',
] as const;

const count = (max: number) => z.number().int().min(0).max(max);
const percent = z.string().regex(/^\d{1,3}(\.\d{1,4})?$/, 'must be a percentage such as "10.5"');

/**
 * An overdue penalty as the close reads it: `amount` in minor units (FLAT) or `percent` of the
 * installment's principal + interest (PERCENT_OF_INSTALLMENT), charged once the installment is more
 * than `graceDays` overdue.
 */
const penaltyField = z
  .object({
    code: z.string().regex(/^[A-Z0-9][A-Z0-9_-]{0,39}$/i, 'must be letters, digits, - or _ (40 at most)'),
    name: z.string().trim().min(1).max(120),
    kind: z.enum(PENALTY_KINDS),
    trigger: z.literal('OVERDUE').default('OVERDUE'),
    amount: z
      .string()
      .regex(/^\d{1,15}$/, 'must be minor units such as "500"')
      .optional(),
    percent: percent.optional(),
    graceDays: count(365).optional(),
    frequency: z.enum(PENALTY_FREQUENCIES).optional(),
    interval: z.number().int().min(1).max(366).optional(),
  })
  .strict();

/**
 * A product fee (issue 17): due at disbursement or with every installment; `amount` is a decimal
 * string, money in the product currency for FLAT (e.g. "25.50"), a percentage otherwise.
 */
const feeField = z
  .object({
    code: z.string().regex(/^[A-Z0-9][A-Z0-9_-]{0,39}$/i, 'must be letters, digits, - or _ (40 at most)'),
    name: z.string().trim().min(1).max(120),
    timing: z.enum(FEE_TIMINGS),
    calculation: z.enum(FEE_CALCULATIONS),
    amount: z.string().regex(/^\d{1,15}(\.\d{1,6})?$/, 'must be a decimal number such as "25.50"'),
  })
  .strict();
export type ProductFee = z.infer<typeof feeField>;
export type ProductPenalty = z.infer<typeof penaltyField>;

/** The terms of a product (every field of ProductInput the engine and the lending commands use). */
const termFields = {
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000),
  currencyInMultiplesOf: count(1_000_000),
  installmentAmountInMultiplesOf: count(1_000_000),
  roundingMode: z.enum(ROUNDING_MODES),
  minPrincipal: zodAmount(),
  maxPrincipal: zodAmount(),
  defaultPrincipal: zodAmount().nullable(),
  minRepayments: z.number().int().min(1).max(1200),
  maxRepayments: z.number().int().min(1).max(1200),
  defaultRepayments: z.number().int().min(1).max(1200).nullable(),
  annualInterestRate: z.string().regex(/^\d{1,3}(\.\d{1,6})?$/, 'must be a percentage such as "12.5"'),
  repaymentEvery: z.number().int().min(1).max(366),
  repaymentFrequency: z.enum(REPAYMENT_FREQUENCIES),
  scheduleType: z.enum(SCHEDULE_TYPES),
  interestMethod: z.enum(INTEREST_METHODS),
  amortization: z.enum(AMORTIZATIONS),
  interestCalculationPeriod: z.enum(INTEREST_CALCULATION_PERIODS),
  allowPartialPeriodInterest: z.boolean(),
  daysInYear: z.enum(DAYS_IN_YEAR),
  daysInMonth: z.enum(DAYS_IN_MONTH),
  graceOnPrincipalPeriods: count(1200),
  graceOnInterestPaymentPeriods: count(1200),
  interestFreePeriods: count(1200),
  graceOnArrearsAgeing: count(365),
  downPaymentPercent: percent.nullable(),
  // Fees go into each loan's schedule (engine charges.ts); penalties are charged by the daily close.
  fees: z.array(feeField).max(10),
  penalties: z.array(penaltyField).max(10),
  allocationStrategy: z.enum(ALLOCATION_STRATEGIES),
  delinquencyBucketSetId: z.string().uuid().nullable(),
  allowOverpayment: z.boolean(),
  fixedLength: z.number().int().min(1).max(120_000).nullable(),
  allowFixedEmi: z.boolean(),
  allowVariableInstallments: z.boolean(),
  variableInstallmentMinGapDays: z.number().int().min(0).max(3660).nullable(),
  variableInstallmentMaxGapDays: z.number().int().min(1).max(3660).nullable(),
  multiDisbursement: z.boolean(),
  maxTranches: z.number().int().min(2).max(100).nullable(),
  interestRecalculation: z.boolean(),
  recalculationRestFrequency: z.enum(REST_FREQUENCIES),
  recalculationCompounding: z.enum(COMPOUNDINGS),
  recalculationRestInterval: z.number().int().min(1).max(366),
  recalculationCompoundingFrequency: z.enum(REST_FREQUENCIES),
  recalculationCompoundingInterval: z.number().int().min(1).max(366),
  recalculationRescheduleStrategy: z.enum(RESCHEDULE_STRATEGIES),
  preClosureStrategy: z.enum(PRE_CLOSURE_STRATEGIES),
};

export const createProductInput = z
  .object({
    code: z.string().regex(/^[A-Z0-9][A-Z0-9_-]{0,39}$/i, 'must be letters, digits, - or _ (40 at most)'),
    currency: z.string().regex(/^[A-Za-z]{3}$/, 'must be a 3-letter currency code'),
    digitsAfterDecimal: z.number().int().min(0).max(6),
    ...termFields,
    description: termFields.description.default(''),
    currencyInMultiplesOf: termFields.currencyInMultiplesOf.optional(),
    installmentAmountInMultiplesOf: termFields.installmentAmountInMultiplesOf.optional(),
    roundingMode: termFields.roundingMode.optional(),
    defaultPrincipal: termFields.defaultPrincipal.optional(),
    defaultRepayments: termFields.defaultRepayments.optional(),
    repaymentEvery: termFields.repaymentEvery.optional(),
    scheduleType: termFields.scheduleType.optional(),
    interestMethod: termFields.interestMethod.optional(),
    amortization: termFields.amortization.optional(),
    interestCalculationPeriod: termFields.interestCalculationPeriod.optional(),
    allowPartialPeriodInterest: termFields.allowPartialPeriodInterest.optional(),
    daysInYear: termFields.daysInYear.optional(),
    daysInMonth: termFields.daysInMonth.optional(),
    graceOnPrincipalPeriods: termFields.graceOnPrincipalPeriods.optional(),
    graceOnInterestPaymentPeriods: termFields.graceOnInterestPaymentPeriods.optional(),
    interestFreePeriods: termFields.interestFreePeriods.optional(),
    graceOnArrearsAgeing: termFields.graceOnArrearsAgeing.optional(),
    downPaymentPercent: termFields.downPaymentPercent.optional(),
    fees: termFields.fees.optional(),
    penalties: termFields.penalties.optional(),
    allocationStrategy: termFields.allocationStrategy.optional(),
    delinquencyBucketSetId: termFields.delinquencyBucketSetId.optional(),
    allowOverpayment: termFields.allowOverpayment.optional(),
    fixedLength: termFields.fixedLength.optional(),
    allowFixedEmi: termFields.allowFixedEmi.optional(),
    allowVariableInstallments: termFields.allowVariableInstallments.optional(),
    variableInstallmentMinGapDays: termFields.variableInstallmentMinGapDays.optional(),
    variableInstallmentMaxGapDays: termFields.variableInstallmentMaxGapDays.optional(),
    multiDisbursement: termFields.multiDisbursement.optional(),
    maxTranches: termFields.maxTranches.optional(),
    interestRecalculation: termFields.interestRecalculation.optional(),
    recalculationRestFrequency: termFields.recalculationRestFrequency.optional(),
    recalculationCompounding: termFields.recalculationCompounding.optional(),
    recalculationRestInterval: termFields.recalculationRestInterval.optional(),
    recalculationCompoundingFrequency: termFields.recalculationCompoundingFrequency.optional(),
    recalculationCompoundingInterval: termFields.recalculationCompoundingInterval.optional(),
    recalculationRescheduleStrategy: termFields.recalculationRescheduleStrategy.optional(),
    preClosureStrategy: termFields.preClosureStrategy.optional(),
  })
  .strict();
export type CreateProductBody = z.infer<typeof createProductInput>;

export const updateProductInput = z
  .object({
    productId: z.string(),
    /** The version the writer read; a stale one is a 409. */
    expectedVersion: z.number().int().positive().optional(),
    active: z.boolean().optional(),
    ...Object.fromEntries(Object.entries(termFields).map(([k, v]) => [k, v.optional()])),
  })
  .strict() as unknown as z.ZodType<UpdateProductBody>;
export type UpdateProductBody = { productId: string; expectedVersion?: number; active?: boolean } & Partial<
  Omit<CreateProductBody, 'code' | 'currency' | 'digitsAfterDecimal'>
>;

/** The typed product input of a body, with every domain rule checked (400/422 naming the field). */
export function productInputOf(body: CreateProductBody): ProductInput {
  assertProductDigits(body.currency, body.digitsAfterDecimal);
  const d = body.digitsAfterDecimal;
  const money = (field: string, value: string) => parseMinor(value, d, field, {});
  const input: ProductInput = {
    ...body,
    code: body.code.toUpperCase(),
    currency: body.currency.toUpperCase(),
    minPrincipal: money('minPrincipal', body.minPrincipal),
    maxPrincipal: money('maxPrincipal', body.maxPrincipal),
    defaultPrincipal:
      body.defaultPrincipal === undefined || body.defaultPrincipal === null
        ? null
        : money('defaultPrincipal', body.defaultPrincipal),
  };
  checkProduct(input);
  return input;
}

/** The rules across fields: ranges, defaults inside them, down payment, penalties, the engine's own checks. */
export function checkProduct(p: ProductInput): void {
  const d = p.digitsAfterDecimal;
  assertProductRanges(p);
  if (p.defaultPrincipal != null && (p.defaultPrincipal < p.minPrincipal || p.defaultPrincipal > p.maxPrincipal))
    throw validationError('defaultPrincipal', 'money.outOfRange', {
      min: formatMinor(p.minPrincipal, d),
      max: formatMinor(p.maxPrincipal, d),
    });
  if (p.defaultRepayments != null && (p.defaultRepayments < p.minRepayments || p.defaultRepayments > p.maxRepayments))
    throw validationError('defaultRepayments', 'number.between', { min: p.minRepayments, max: p.maxRepayments });
  if (p.downPaymentPercent != null) {
    const value = Number(p.downPaymentPercent);
    if (!(value > 0 && value < 100))
      throw validationError('downPaymentPercent', 'number.between', { min: '0.0001', max: '99.9999' });
  }
  const codes = new Set<string>();
  (p.penalties ?? []).forEach((raw, k) => {
    const pen = raw as z.infer<typeof penaltyField>;
    const field = `penalties.${k}`;
    if (codes.has(pen.code.toUpperCase())) throw validationError(`${field}.code`, 'invalid');
    codes.add(pen.code.toUpperCase());
    if (pen.kind === 'FLAT' && (!pen.amount || BigInt(pen.amount) <= 0n))
      throw validationError(`${field}.amount`, 'money.mustBePositive');
    if (pen.kind !== 'FLAT' && (!pen.percent || !(Number(pen.percent) > 0)))
      throw validationError(`${field}.percent`, 'number.between', { min: '0.0001', max: '999' });
    if (pen.interval !== undefined && pen.frequency === undefined)
      throw validationError(`${field}.frequency`, 'required');
  });
  const feeCodes = new Set<string>();
  (p.fees ?? []).forEach((raw, k) => {
    const fee = raw as ProductFee;
    const field = `fees.${k}`;
    if (feeCodes.has(fee.code.toUpperCase())) throw validationError(`${field}.code`, 'invalid');
    feeCodes.add(fee.code.toUpperCase());
    const value = Number(fee.amount);
    if (!(value > 0)) throw validationError(`${field}.amount`, 'money.mustBePositive');
    if (fee.calculation === 'FLAT' && (fee.amount.split('.')[1] ?? '').length > d)
      throw validationError(`${field}.amount`, 'money.tooManyDecimals', { digits: d });
    if (fee.calculation !== 'FLAT' && value > 100)
      throw validationError(`${field}.amount`, 'number.between', { min: '0.0001', max: '100' });
  });
  checkFixedAndVariable(p);
  if ((p.graceOnPrincipalPeriods ?? 0) >= p.minRepayments)
    throw validationError('graceOnPrincipalPeriods', 'number.max', { max: p.minRepayments - 1 });
  // The engine judges the remaining combinations: a schedule of the smallest loan must exist.
  const sample = { ...rowOf(p), id: '', tenant_id: '' } as unknown as ProductRow;
  const terms = termsFor(sample, {
    principal: p.minPrincipal,
    numberOfRepayments: p.minRepayments,
    annualInterestRate: p.annualInterestRate,
    disbursementDate: '2026-01-15',
  });
  try {
    generateSchedule(parseTerms(terms));
  } catch (error) {
    if (error instanceof AppError) throw new AppError('UNPROCESSABLE', error.message, { field: error.field });
    throw error;
  }
  if (p.interestRecalculation) checkRecalculation(terms);
}

/** The product field behind each option of the engine's `interestRecalculation` object. */
const RECALCULATION_FIELDS: Record<string, string> = {
  'interestRecalculation.restFrequency': 'recalculationRestFrequency',
  'interestRecalculation.compounding': 'recalculationCompounding',
  'interestRecalculation.restInterval': 'recalculationRestInterval',
  'interestRecalculation.compoundingFrequency': 'recalculationCompoundingFrequency',
  'interestRecalculation.compoundingInterval': 'recalculationCompoundingInterval',
  'interestRecalculation.rescheduleStrategy': 'recalculationRescheduleStrategy',
  'interestRecalculation.preClosureStrategy': 'preClosureStrategy',
  allocationStrategy: 'allocationStrategy',
  scheduleType: 'interestRecalculation',
  downPaymentPercent: 'downPaymentPercent',
  interestMethod: 'interestRecalculation',
  amortization: 'amortization',
  graceOnPrincipalPeriods: 'graceOnPrincipalPeriods',
};

/** A recalculating product: the engine must accept its options (422 naming the product field). */
function checkRecalculation(terms: Record<string, unknown>): void {
  try {
    recalculateSchedule(parseRecalculationTerms({ ...terms, asOf: terms.disbursementDate }));
  } catch (error) {
    if (error instanceof AppError) {
      const field = RECALCULATION_FIELDS[error.field ?? ''] ?? 'interestRecalculation';
      throw new AppError('UNPROCESSABLE', error.message, { field });
    }
    throw error;
  }
}

/**
 * Fixed length (progressive, zero interest, long enough for the largest term), fixed EMI (cumulative,
 * declining balance, equal installments) and variable installments (cumulative; gaps in order), as
 * Fineract's LoanProductDataValidator and the engine's terms contract (src/lib/schedule/fixed.ts).
 */
function checkFixedAndVariable(p: ProductInput): void {
  if (p.fixedLength != null) {
    if ((p.scheduleType ?? 'CUMULATIVE') !== 'PROGRESSIVE') throw validationError('fixedLength', 'invalid');
    if (Number(p.annualInterestRate) !== 0) throw validationError('fixedLength', 'invalid');
    const minimum = (p.maxRepayments - 1) * (p.repaymentEvery ?? 1) + 1;
    if (p.fixedLength < minimum) throw validationError('fixedLength', 'number.min', { min: minimum });
  }
  if (
    p.allowFixedEmi &&
    ((p.scheduleType ?? 'CUMULATIVE') !== 'CUMULATIVE' ||
      (p.interestMethod ?? 'DECLINING_BALANCE') !== 'DECLINING_BALANCE' ||
      (p.amortization ?? 'EQUAL_INSTALLMENTS') !== 'EQUAL_INSTALLMENTS')
  )
    throw validationError('allowFixedEmi', 'invalid');
  if (p.allowVariableInstallments) {
    if ((p.scheduleType ?? 'CUMULATIVE') !== 'CUMULATIVE' || p.downPaymentPercent != null)
      throw validationError('allowVariableInstallments', 'invalid');
    const min = p.variableInstallmentMinGapDays ?? null;
    const max = p.variableInstallmentMaxGapDays ?? null;
    if (min !== null && max !== null && max < min)
      throw validationError('variableInstallmentMaxGapDays', 'number.min', { min });
  }
}

/** ProductInput → the loan_products columns (the defaults of Fineract's usual product settings). */
export function rowOf(p: ProductInput): Record<(typeof PRODUCT_COLUMNS)[number], unknown> {
  return productColumns(p);
}

async function assertBucketSet(tx: Tx, id: string | null | undefined): Promise<void> {
  if (!id) return;
  const rows = await tx.query('select 1 from delinquency_bucket_sets where id = $1', [id]);
  if (rows.length === 0) throw validationError('delinquencyBucketSetId', 'invalid', {}, 'UNPROCESSABLE');
}

async function audit(tx: Tx, actor: Actor, action: string, id: string, before: unknown, after: unknown) {
  await recordAudit(tx, {
    ...auditActor(actor),
    action,
    objectType: 'loan_product',
    objectId: id,
    outcome: 'success',
    before,
    after,
  });
}

/** Creates a product (version 1). A taken code is a 409 naming `code`. */
export async function createProductVersioned(tx: Tx, actor: Actor, body: CreateProductBody): Promise<ProductRow> {
  const input = productInputOf(body);
  await assertBucketSet(tx, input.delinquencyBucketSetId);
  const taken = await tx.query('select 1 from loan_products where upper(code) = $1', [input.code]);
  if (taken.length > 0)
    throw new AppError('ALREADY_EXISTS', `A loan product with the code ${input.code} already exists`, {
      field: 'code',
    });
  const product = await createProduct(tx, actor.tenantId, input, actor.userId);
  await audit(tx, actor, 'product.create', product.id, null, productJson(product));
  return product;
}

/** The ProductInput of a stored product (to merge a change onto). */
export function inputOfRow(p: ProductRow): ProductInput {
  return {
    code: p.code,
    name: p.name,
    description: p.description,
    currency: p.currency,
    digitsAfterDecimal: p.digits_after_decimal,
    currencyInMultiplesOf: p.currency_in_multiples_of,
    installmentAmountInMultiplesOf: p.installment_amount_in_multiples_of,
    roundingMode: p.rounding_mode,
    minPrincipal: p.min_principal,
    maxPrincipal: p.max_principal,
    defaultPrincipal: p.default_principal,
    minRepayments: p.min_repayments,
    maxRepayments: p.max_repayments,
    defaultRepayments: p.default_repayments,
    annualInterestRate: p.annual_interest_rate,
    repaymentEvery: p.repayment_every,
    repaymentFrequency: p.repayment_frequency,
    scheduleType: p.schedule_type as ProductInput['scheduleType'],
    interestMethod: p.interest_method as ProductInput['interestMethod'],
    amortization: p.amortization as ProductInput['amortization'],
    interestCalculationPeriod: p.interest_calculation_period as ProductInput['interestCalculationPeriod'],
    allowPartialPeriodInterest: p.allow_partial_period_interest,
    daysInYear: p.days_in_year as ProductInput['daysInYear'],
    daysInMonth: p.days_in_month as ProductInput['daysInMonth'],
    graceOnPrincipalPeriods: p.grace_on_principal_periods,
    graceOnInterestPaymentPeriods: p.grace_on_interest_payment_periods,
    interestFreePeriods: p.interest_free_periods,
    graceOnArrearsAgeing: p.grace_on_arrears_ageing,
    downPaymentPercent: p.down_payment_percent === null ? null : String(p.down_payment_percent),
    fees: p.fees,
    penalties: p.penalties,
    allocationStrategy: p.allocation_strategy,
    delinquencyBucketSetId: p.delinquency_bucket_set_id,
    allowOverpayment: p.allow_overpayment,
    fixedLength: p.fixed_length ?? null,
    allowFixedEmi: p.allow_fixed_emi === true,
    allowVariableInstallments: p.allow_variable_installments === true,
    variableInstallmentMinGapDays: p.variable_installment_min_gap_days ?? null,
    variableInstallmentMaxGapDays: p.variable_installment_max_gap_days ?? null,
    multiDisbursement: p.multi_disbursement === true,
    maxTranches: p.max_tranches ?? null,
    interestRecalculation: p.interest_recalculation === true,
    recalculationRestFrequency: p.recalculation_rest_frequency as ProductInput['recalculationRestFrequency'],
    recalculationCompounding: p.recalculation_compounding as ProductInput['recalculationCompounding'],
    recalculationRestInterval: p.recalculation_rest_interval ?? 1,
    recalculationCompoundingFrequency:
      (p.recalculation_compounding_frequency as ProductInput['recalculationCompoundingFrequency']) ??
      'SAME_AS_REPAYMENT_PERIOD',
    recalculationCompoundingInterval: p.recalculation_compounding_interval ?? 1,
    recalculationRescheduleStrategy:
      p.recalculation_reschedule_strategy as ProductInput['recalculationRescheduleStrategy'],
    preClosureStrategy: p.pre_closure_strategy as ProductInput['preClosureStrategy'],
  };
}

/**
 * Changes a product: a new version with the merged terms (or its activation), never touching the
 * loans, applications and offers made with earlier versions. A stale `expectedVersion` is a 409;
 * a change that changes nothing answers the product as it is (no new version).
 */
export async function updateProductVersioned(tx: Tx, actor: Actor, body: UpdateProductBody): Promise<ProductRow> {
  assertUuid(body.productId, 'productId');
  await tx.query('select 1 from loan_products where id = $1 for update', [body.productId]);
  const before = await getProduct(tx, body.productId);
  if (body.expectedVersion !== undefined && body.expectedVersion !== before.version)
    throw new AppError(
      'CONFLICT',
      `This product changed since you read it (version ${before.version}, you had ${body.expectedVersion}); reload it`,
      { field: 'expectedVersion', details: { version: before.version } },
    );
  const { productId: _id, expectedVersion: _v, active, ...changes } = body;
  const current = inputOfRow(before);
  const d = before.digits_after_decimal;
  const money = (field: string, value: string | null | undefined, fallback: bigint | null | undefined) =>
    value === undefined ? fallback : value === null ? null : parseMinor(value, d, field, {});
  const next: ProductInput = {
    ...current,
    ...Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)),
    minPrincipal: money('minPrincipal', changes.minPrincipal, current.minPrincipal) as bigint,
    maxPrincipal: money('maxPrincipal', changes.maxPrincipal, current.maxPrincipal) as bigint,
    defaultPrincipal: money('defaultPrincipal', changes.defaultPrincipal, current.defaultPrincipal),
  };
  checkProduct(next);
  await assertBucketSet(tx, next.delinquencyBucketSetId);
  const columns = productColumns(next);
  const isActive = active ?? before.is_active;
  const changed =
    isActive !== before.is_active ||
    PRODUCT_COLUMNS.some(
      (c) => c !== 'tenant_id' && JSON.stringify(columns[c], big) !== JSON.stringify(normaliseColumn(before, c), big),
    );
  if (!changed) return before;
  const names = PRODUCT_COLUMNS.filter((c) => c !== 'tenant_id' && c !== 'code' && c !== 'currency');
  const params = names.map((c) => (c === 'fees' || c === 'penalties' ? JSON.stringify(columns[c]) : columns[c]));
  const sets = names.map((c, k) => `${c} = $${k + 2}${c === 'fees' || c === 'penalties' ? '::jsonb' : ''}`);
  await tx.query(
    `update loan_products set ${sets.join(', ')}, is_active = $${names.length + 2}, updated_by = $${names.length + 3},
       updated_at = now(), version = version + 1 where id = $1`,
    [before.id, ...params, isActive, actor.userId],
  );
  const after = await getProduct(tx, before.id);
  const action =
    active === false && before.is_active
      ? 'product.deactivate'
      : active === true && !before.is_active
        ? 'product.activate'
        : 'product.update';
  await audit(tx, actor, action, before.id, productJson(before), productJson(after));
  return after;
}

const big = (_k: string, v: unknown) => (typeof v === 'bigint' ? v.toString() : v);

function normaliseColumn(row: ProductRow, column: string): unknown {
  const value = (row as unknown as Record<string, unknown>)[column];
  if (column === 'annual_interest_rate' || column === 'down_payment_percent')
    return value === null ? null : String(Number(value));
  return value;
}

export const createProductCommand = defineCommand({
  action: 'product.create',
  objectType: 'loan_product',
  permission: ADMIN,
  input: createProductInput,
  run: (tx, actor, input) => createProductVersioned(tx, actor, input),
});

export const updateProductCommand = defineCommand({
  action: 'product.update',
  objectType: 'loan_product',
  permission: ADMIN,
  input: updateProductInput,
  run: (tx, actor, input) => updateProductVersioned(tx, actor, input),
});

export type ProductVersionView = { version: number; createdBy: string | null; createdAt: string; changes: string[] };

/** The versions of a product, newest first, with the fields each changed from the one before. */
export async function listProductVersions(tx: Tx, productId: string): Promise<ProductVersionView[]> {
  assertUuid(productId, 'productId');
  const rows = await tx.query<{
    version: number;
    created_by: string | null;
    created_at: Date | string;
    snapshot: Record<string, unknown>;
  }>(
    `select v.version, coalesce(u.display_name, v.created_by) as created_by, v.created_at, v.snapshot
       from loan_product_versions v left join users u on u.tenant_id = v.tenant_id and u.id::text = v.created_by
      where v.product_id = $1 order by v.version`,
    [productId],
  );
  const skip = new Set(['version', 'updated_by', 'updated_at', 'created_at']);
  const views = rows.map((row, k) => {
    const prev = rows[k - 1]?.snapshot;
    const changes = prev
      ? Object.keys(row.snapshot).filter(
          (key) => !skip.has(key) && JSON.stringify(row.snapshot[key]) !== JSON.stringify(prev[key]),
        )
      : [];
    return {
      version: row.version,
      createdBy: row.created_by,
      createdAt: new Date(row.created_at).toISOString(),
      changes,
    };
  });
  return views.reverse();
}
