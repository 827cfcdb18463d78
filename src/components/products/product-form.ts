import type { TFunction } from 'i18next';
import type { FieldGroup } from '../../islands/products/ProductForm.tsx';
import {
  ALLOCATION_STRATEGIES,
  AMORTIZATIONS,
  DAYS_IN_MONTH,
  DAYS_IN_YEAR,
  INTEREST_CALCULATION_PERIODS,
  INTEREST_METHODS,
  REPAYMENT_FREQUENCIES,
  ROUNDING_MODES,
  SCHEDULE_TYPES,
  REST_FREQUENCIES,
  COMPOUNDINGS,
  RESCHEDULE_STRATEGIES,
  PRE_CLOSURE_STRATEGIES,
} from '#lib/lending/product-admin.ts';
import { currencyDigits } from '#lib/money/money.ts';
import { productJson, type ProductRow } from '#lib/lending/products.ts';

/**
 * The product form's fields (ProductForm island), grouped as a Mambu/Fineract product page groups
 * them: every term the schedule engine and the lending commands understand. Fees and overdue
 * penalties are edited in their own block of the island (ChargesEditor).
 */
export const PRODUCT_FIELD_GROUPS: FieldGroup[] = [
  {
    title: 'identity',
    fields: [
      { name: 'code', kind: 'text', createOnly: true },
      { name: 'name', kind: 'text' },
      { name: 'description', kind: 'textarea', optional: true },
      { name: 'currency', kind: 'text', createOnly: true },
      { name: 'digitsAfterDecimal', kind: 'int', createOnly: true },
    ],
  },
  {
    title: 'amounts',
    fields: [
      { name: 'minPrincipal', kind: 'money' },
      { name: 'defaultPrincipal', kind: 'money', optional: true },
      { name: 'maxPrincipal', kind: 'money' },
      { name: 'minRepayments', kind: 'int' },
      { name: 'defaultRepayments', kind: 'int', optional: true },
      { name: 'maxRepayments', kind: 'int' },
      { name: 'annualInterestRate', kind: 'percent' },
      { name: 'repaymentEvery', kind: 'int' },
      { name: 'repaymentFrequency', kind: 'select', options: REPAYMENT_FREQUENCIES },
      { name: 'downPaymentPercent', kind: 'percent', optional: true },
    ],
  },
  {
    title: 'interest',
    fields: [
      { name: 'scheduleType', kind: 'select', options: SCHEDULE_TYPES },
      { name: 'interestMethod', kind: 'select', options: INTEREST_METHODS },
      { name: 'amortization', kind: 'select', options: AMORTIZATIONS },
      { name: 'interestCalculationPeriod', kind: 'select', options: INTEREST_CALCULATION_PERIODS },
      { name: 'allowPartialPeriodInterest', kind: 'yesno' },
      { name: 'daysInYear', kind: 'select', options: DAYS_IN_YEAR },
      { name: 'daysInMonth', kind: 'select', options: DAYS_IN_MONTH },
      { name: 'roundingMode', kind: 'select', options: ROUNDING_MODES },
      { name: 'currencyInMultiplesOf', kind: 'int' },
      { name: 'installmentAmountInMultiplesOf', kind: 'int' },
    ],
  },
  {
    title: 'grace',
    fields: [
      { name: 'graceOnPrincipalPeriods', kind: 'int' },
      { name: 'graceOnInterestPaymentPeriods', kind: 'int' },
      { name: 'interestFreePeriods', kind: 'int' },
      { name: 'graceOnArrearsAgeing', kind: 'int' },
    ],
  },
  {
    title: 'repayments',
    fields: [
      { name: 'allocationStrategy', kind: 'select', options: ALLOCATION_STRATEGIES },
      { name: 'allowOverpayment', kind: 'yesno' },
    ],
  },
  {
    title: 'installments',
    fields: [
      { name: 'fixedLength', kind: 'int', optional: true },
      { name: 'allowFixedEmi', kind: 'yesno' },
      { name: 'allowVariableInstallments', kind: 'yesno' },
      { name: 'variableInstallmentMinGapDays', kind: 'int', optional: true },
      { name: 'variableInstallmentMaxGapDays', kind: 'int', optional: true },
    ],
  },
  {
    title: 'tranches',
    fields: [
      { name: 'multiDisbursement', kind: 'yesno' },
      { name: 'maxTranches', kind: 'int', optional: true },
    ],
  },
  {
    // Interest recalculation (issue 17): progressive, and cumulative with every rest, compounding and strategy;
    // with tranches (the group above) progressive only, which product-admin.ts checks (422 on interestRecalculation).
    title: 'recalculation',
    fields: [
      { name: 'interestRecalculation', kind: 'yesno' },
      { name: 'recalculationRestFrequency', kind: 'select', options: REST_FREQUENCIES },
      { name: 'recalculationRestInterval', kind: 'int' },
      { name: 'recalculationCompounding', kind: 'select', options: COMPOUNDINGS },
      { name: 'recalculationCompoundingFrequency', kind: 'select', options: REST_FREQUENCIES },
      { name: 'recalculationCompoundingInterval', kind: 'int' },
      { name: 'recalculationRescheduleStrategy', kind: 'select', options: RESCHEDULE_STRATEGIES },
      { name: 'preClosureStrategy', kind: 'select', options: PRE_CLOSURE_STRATEGIES },
    ],
  },
];

/** The form's starting values: the product's (editing) or the usual defaults in the tenant's currency. */
export function productFormValues(product: ProductRow | null, tenantCurrency: string): Record<string, string> {
  if (!product) {
    const currency = tenantCurrency.trim().toUpperCase();
    return {
      code: '',
      name: '',
      description: '',
      currency,
      digitsAfterDecimal: String(currencyDigits(currency)),
      minPrincipal: '100',
      defaultPrincipal: '',
      maxPrincipal: '10000',
      minRepayments: '3',
      defaultRepayments: '',
      maxRepayments: '36',
      annualInterestRate: '12',
      repaymentEvery: '1',
      repaymentFrequency: 'MONTHS',
      downPaymentPercent: '',
      scheduleType: 'CUMULATIVE',
      interestMethod: 'DECLINING_BALANCE',
      amortization: 'EQUAL_INSTALLMENTS',
      interestCalculationPeriod: 'SAME_AS_REPAYMENT_PERIOD',
      allowPartialPeriodInterest: 'false',
      daysInYear: 'ACTUAL',
      daysInMonth: 'ACTUAL',
      roundingMode: 'HALF_EVEN',
      currencyInMultiplesOf: '0',
      installmentAmountInMultiplesOf: '0',
      graceOnPrincipalPeriods: '0',
      graceOnInterestPaymentPeriods: '0',
      interestFreePeriods: '0',
      graceOnArrearsAgeing: '0',
      allocationStrategy: 'mifos-standard-strategy',
      allowOverpayment: 'false',
      fixedLength: '',
      allowFixedEmi: 'false',
      allowVariableInstallments: 'false',
      variableInstallmentMinGapDays: '',
      variableInstallmentMaxGapDays: '',
      multiDisbursement: 'false',
      maxTranches: '',
      interestRecalculation: 'false',
      recalculationRestFrequency: 'DAILY',
      recalculationRestInterval: '1',
      recalculationCompounding: 'NONE',
      recalculationCompoundingFrequency: 'SAME_AS_REPAYMENT_PERIOD',
      recalculationCompoundingInterval: '1',
      recalculationRescheduleStrategy: 'ADJUST_LAST_UNPAID_PERIOD',
      preClosureStrategy: 'TILL_PRE_CLOSURE_DATE',
    };
  }
  const json = productJson(product) as Record<string, unknown>;
  const values: Record<string, string> = {};
  for (const field of PRODUCT_FIELD_GROUPS.flatMap((g) => g.fields)) {
    const value = json[field.name];
    values[field.name] =
      value === null || value === undefined
        ? field.name === 'installmentAmountInMultiplesOf'
          ? '0'
          : ''
        : field.kind === 'percent'
          ? String(Number(value))
          : String(value);
  }
  return values;
}

/** The ProductForm island's words: the `products` subtrees it reads, from the page's translator. */
export function productFormLabels(t: TFunction): unknown {
  const tree = (key: string) => t(`products:${key}`, { returnObjects: true }) as unknown;
  return {
    fields: tree('fields'),
    options: tree('options'),
    groups: tree('groups'),
    preview: tree('preview'),
    form: tree('form'),
    charges: tree('charges'),
  };
}
