/**
 * Turns a Fineract reference case (tests/fixtures/fineract-reference-cases.json) into the terms JSON
 * of our CLI contract, so the cases run through `npm run schedule` exactly as outside checks do.
 */
export type RefCase = {
  id: string;
  kind: string;
  conventions: Record<string, any>;
  inputs: Record<string, any>;
  expected: Record<string, any>;
};

const PER_YEAR: Record<string, number> = { DAYS: 365, WEEKS: 52, MONTHS: 12, YEARS: 1 };

function word(value: unknown, allowed: string[], fallback: string): string {
  const text = String(value ?? '')
    .trim()
    .split(/[\s(]/)[0]
    .toUpperCase();
  return allowed.includes(text) ? text : fallback;
}

function decimalTimes(text: string, factor: number): string {
  const [whole, fraction = ''] = text.split('.');
  const scaled = BigInt(whole + fraction) * BigInt(factor);
  const digits = scaled.toString().padStart(fraction.length + 1, '0');
  return fraction.length ? `${digits.slice(0, -fraction.length)}.${digits.slice(-fraction.length)}` : digits;
}

export function caseToTerms(c: RefCase, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const conv = c.conventions;
  const inp = c.inputs;
  const rounding = conv.rounding ?? {};
  const freq = conv.repayment_frequency ?? { every: 1, unit: 'MONTHS' };
  const rate =
    inp.annual_nominal_interest_rate_pct ??
    decimalTimes(
      String(inp.interest_rate_per_period_pct),
      PER_YEAR[String(inp.interest_rate_frequency ?? freq.unit).toUpperCase()],
    );
  const diy = String(conv.days_in_year ?? 'ACTUAL').toUpperCase();
  const dim = String(conv.days_in_month ?? 'ACTUAL').toUpperCase();
  const terms: Record<string, unknown> = {
    principal: String(inp.principal),
    currency: conv.currency ?? 'USD',
    digitsAfterDecimal: rounding.digits_after_decimal ?? 2,
    currencyInMultiplesOf: rounding.currency_in_multiples_of ?? 0,
    roundingMode: rounding.rounding_mode ?? 'HALF_EVEN',
    annualInterestRate: String(rate),
    numberOfRepayments: inp.number_of_repayments,
    repaymentEvery: freq.every,
    repaymentFrequency: freq.unit,
    disbursementDate: inp.disbursement_date,
    scheduleType: String(conv.schedule_engine).toUpperCase(),
    interestMethod: word(conv.interest_method, ['DECLINING_BALANCE', 'FLAT'], 'DECLINING_BALANCE'),
    amortization: word(conv.amortization, ['EQUAL_INSTALLMENTS', 'EQUAL_PRINCIPAL'], 'EQUAL_INSTALLMENTS'),
    interestCalculationPeriod: word(conv.interest_calculation_period, ['DAILY', 'SAME_AS_REPAYMENT_PERIOD'], 'DAILY'),
    allowPartialPeriodInterest: conv.allow_partial_period_interest ?? false,
    daysInYear: diy.startsWith('DAYS_') ? diy.slice(5) : word(diy, ['ACTUAL', '360', '364', '365'], 'ACTUAL'),
    daysInMonth: dim.startsWith('DAYS_') ? dim.slice(5) : word(dim, ['ACTUAL', '30'], 'ACTUAL'),
  };
  if (rounding.installment_amount_in_multiples_of != null)
    terms.installmentAmountInMultiplesOf = rounding.installment_amount_in_multiples_of;
  if (inp.expected_disbursement_date) terms.expectedDisbursementDate = inp.expected_disbursement_date;
  if (inp.first_repayment_date) terms.firstRepaymentDate = inp.first_repayment_date;
  if (inp.grace) {
    terms.graceOnPrincipalPeriods = inp.grace.principal ?? 0;
    terms.graceOnInterestPaymentPeriods = inp.grace.interest_payment ?? 0;
    terms.interestFreePeriods = inp.grace.interest_free ?? 0;
  }
  const down = inp.down_payment_pct ?? inp.down_payment_percent ?? inp.down_payment?.percent;
  if (down != null) terms.downPaymentPercent = String(down);
  return { ...terms, ...overrides };
}

/** An expected JSON amount (number or string) as the contract's decimal string. */
export function amountText(value: number | string, digits: number): string {
  const text = typeof value === 'number' ? String(value) : value;
  const negative = text.startsWith('-');
  const [whole, fraction = ''] = text.replace('-', '').split('.');
  const padded = fraction.padEnd(digits, '0');
  if (padded.length > digits && /[1-9]/.test(padded.slice(digits))) throw new Error(`unexpected precision in ${text}`);
  return `${negative ? '-' : ''}${whole}${digits ? `.${padded.slice(0, digits)}` : ''}`;
}
