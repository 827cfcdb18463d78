import { describe, expect, it } from 'vitest';
import { previewSchedule } from '#lib/schedule/index.ts';

/**
 * More schedules asserted by Apache Fineract's own tests (commit 4198b0bc), beyond the shared reference
 * file, each citing its source. Rows: [dueDate, principal, interest, balance].
 */
type Row = [string, string, string, string];
const rows = (terms: Record<string, unknown>): Row[] =>
  previewSchedule(terms).installments.map((i) => [i.dueDate, i.principal, i.interest, i.balance]);

describe('Fineract-asserted schedules', () => {
  it('LoanRepayment.feature RS03: cumulative, declining, DAILY, actual/actual, EMI rounded to 1', () => {
    const r = rows({
      principal: '5000',
      currency: 'EUR',
      annualInterestRate: '12',
      numberOfRepayments: 18,
      disbursementDate: '2022-11-01',
      interestCalculationPeriod: 'DAILY',
      installmentAmountInMultiplesOf: 1,
    });
    expect(r.slice(0, 4)).toEqual([
      ['2022-12-01', '255.68', '49.32', '4744.32'],
      ['2023-01-01', '256.65', '48.35', '4487.67'],
      ['2023-02-01', '259.26', '45.74', '4228.41'],
      ['2023-03-01', '266.08', '38.92', '3962.33'],
    ]);
    // 2024 is a leap year but the cumulative DAILY divisor stays 365: 1187.65 × 12% × 31/365 = 12.10
    expect(r[14]).toEqual(['2024-02-01', '292.90', '12.10', '894.75']);
    expect(r[17]).toEqual(['2024-05-01', '299.38', '2.95', '0.00']);
    expect(
      previewSchedule({
        principal: '5000',
        currency: 'EUR',
        annualInterestRate: '12',
        numberOfRepayments: 18,
        disbursementDate: '2022-11-01',
        interestCalculationPeriod: 'DAILY',
        installmentAmountInMultiplesOf: 1,
      }).totals.interest,
    ).toBe('487.33');
  });

  it('LoanRepayment.feature RS05: three periods of principal grace, EMI 361 over the other 15', () => {
    const r = rows({
      principal: '5000',
      currency: 'EUR',
      annualInterestRate: '12',
      numberOfRepayments: 18,
      disbursementDate: '2022-11-01',
      interestCalculationPeriod: 'SAME_AS_REPAYMENT_PERIOD',
      allowPartialPeriodInterest: true,
      installmentAmountInMultiplesOf: 1,
      graceOnPrincipalPeriods: 3,
    });
    expect(r.slice(0, 5)).toEqual([
      ['2022-12-01', '0.00', '50.00', '5000.00'],
      ['2023-01-01', '0.00', '50.00', '5000.00'],
      ['2023-02-01', '0.00', '50.00', '5000.00'],
      ['2023-03-01', '311.00', '50.00', '4689.00'],
      ['2023-04-01', '314.11', '46.89', '4374.89'],
    ]);
    expect(r[17]).toEqual(['2024-05-01', '351.36', '3.51', '0.00']);
  });

  it('ProgressiveEMICalculatorTest: adjusted EMI not better than the original (15.678%, 365/actual)', () => {
    const r = rows({
      principal: '100',
      currency: 'EUR',
      annualInterestRate: '15.678',
      numberOfRepayments: 6,
      disbursementDate: '2024-01-01',
      scheduleType: 'PROGRESSIVE',
      daysInYear: 365,
    });
    expect(r.map((x) => x[2])).toEqual(['1.33', '1.05', '0.90', '0.66', '0.46', '0.22']);
    expect(r.map((x) => x[3])).toEqual(['83.90', '67.52', '50.99', '34.22', '17.25', '0.00']);
  });

  it('ProgressiveEMICalculatorTest: every 2 weeks, 364 days, EMI 33.57 and last 33.58', () => {
    const out = previewSchedule({
      principal: '100',
      currency: 'EUR',
      annualInterestRate: '9.4822',
      numberOfRepayments: 3,
      repaymentEvery: 2,
      repaymentFrequency: 'WEEKS',
      disbursementDate: '2024-01-01',
      scheduleType: 'PROGRESSIVE',
      daysInYear: 364,
    });
    expect(out.installments.map((i) => i.total)).toEqual(['33.57', '33.57', '33.58']);
    expect(out.installments.map((i) => i.interest)).toEqual(['0.36', '0.24', '0.12']);
  });

  it('ProgressiveEMICalculatorTest: every 15 days, 360 days, EMI 16.90', () => {
    const r = rows({
      principal: '100',
      currency: 'EUR',
      annualInterestRate: '9.4822',
      numberOfRepayments: 6,
      repaymentEvery: 15,
      repaymentFrequency: 'DAYS',
      disbursementDate: '2024-01-01',
      scheduleType: 'PROGRESSIVE',
      daysInYear: 360,
    });
    expect(r.slice(0, 5)).toEqual([
      ['2024-01-16', '16.50', '0.40', '83.50'],
      ['2024-01-31', '16.57', '0.33', '66.93'],
      ['2024-02-15', '16.64', '0.26', '50.29'],
      ['2024-03-01', '16.70', '0.20', '33.59'],
      ['2024-03-16', '16.77', '0.13', '16.82'],
    ]);
  });

  it('Loan.feature: progressive DAILY 360/30 at 7%, EMI 17.01', () => {
    const r = rows({
      principal: '100',
      currency: 'EUR',
      annualInterestRate: '7',
      numberOfRepayments: 6,
      disbursementDate: '2024-01-01',
      scheduleType: 'PROGRESSIVE',
      daysInYear: 360,
      daysInMonth: 30,
      interestCalculationPeriod: 'DAILY',
    });
    expect(r.map((x) => x[2])).toEqual(['0.58', '0.49', '0.39', '0.29', '0.20', '0.10']);
    expect(r[5]).toEqual(['2024-07-01', '16.90', '0.10', '0.00']);
  });

  it('ClientLoanIntegrationTest: UGX, 0 digits, multiples of 100, equal principal, 5 periods of principal grace', () => {
    const r = rows({
      principal: '10000000',
      currency: 'UGX',
      digitsAfterDecimal: 0,
      currencyInMultiplesOf: 100,
      annualInterestRate: '24',
      numberOfRepayments: 24,
      disbursementDate: '2014-06-02',
      amortization: 'EQUAL_PRINCIPAL',
      graceOnPrincipalPeriods: 5,
    });
    expect(r[0]).toEqual(['2014-07-02', '0', '200000', '10000000']);
    expect(r[5].slice(0, 3)).toEqual(['2014-12-02', '526300', '200000']);
    expect(r[6].slice(0, 3)).toEqual(['2015-01-02', '526300', '189500']);
    expect(r[9].slice(0, 3)).toEqual(['2015-04-02', '526300', '157900']);
    expect(r[19].slice(0, 3)).toEqual(['2016-02-02', '526300', '52600']);
    expect(r[23]).toEqual(['2016-06-02', '526600', '10500', '0']);
  });

  it('ClientLoanIntegrationTest: 12,000 at 2% a month over 4 months, EMI 3151.49', () => {
    expect(
      rows({
        principal: '12000',
        currency: 'USD',
        annualInterestRate: '24',
        numberOfRepayments: 4,
        disbursementDate: '2011-09-20',
      }),
    ).toEqual([
      ['2011-10-20', '2911.49', '240.00', '9088.51'],
      ['2011-11-20', '2969.72', '181.77', '6118.79'],
      ['2011-12-20', '3029.11', '122.38', '3089.68'],
      ['2012-01-20', '3089.68', '61.79', '0.00'],
    ]);
  });
});

describe('progressive first period split by disbursements (ProgressiveEMICalculatorTest, backdated multi-disbursement)', () => {
  it('100 on 5 Jan, 50 + 25 on 8 Jan: EMI 29.94, first interest 1.15', async () => {
    const { parseTerms } = await import('#lib/schedule/index.ts');
    const { progressiveSchedule } = await import('#lib/schedule/progressive.ts');
    const terms = parseTerms({
      principal: '175',
      currency: 'EUR',
      annualInterestRate: '9.4822',
      numberOfRepayments: 6,
      expectedDisbursementDate: '2024-01-01',
      disbursementDate: '2024-01-05',
      scheduleType: 'PROGRESSIVE',
      daysInYear: 360,
      daysInMonth: 30,
    });
    const rows = progressiveSchedule(
      terms,
      { digits: 2, mode: 'HALF_EVEN', currencyMultiple: 0, installmentMultiple: null },
      undefined,
      [
        { date: '2024-01-05', amount: 10000n },
        { date: '2024-01-08', amount: 5000n },
        { date: '2024-01-08', amount: 2500n },
      ],
    );
    expect(rows.map((r) => [r.total, r.interest, r.principal, r.balance])).toEqual([
      [2994n, 115n, 2879n, 14621n],
      [2994n, 116n, 2878n, 11743n],
      [2994n, 93n, 2901n, 8842n],
      [2994n, 70n, 2924n, 5918n],
      [2994n, 47n, 2947n, 2971n],
      [2994n, 23n, 2971n, 0n],
    ]);
  });
});

describe('cumulative flat with a down payment (LoanDownPayment.feature, LP2_DOWNPAYMENT_INTEREST)', () => {
  it('charges flat interest on the whole disbursed principal, down payment included', () => {
    expect(
      rows({
        principal: '1000',
        currency: 'EUR',
        annualInterestRate: '12',
        numberOfRepayments: 3,
        disbursementDate: '2022-01-01',
        interestMethod: 'FLAT',
        downPaymentPercent: '25',
        installmentAmountInMultiplesOf: 1,
        allowPartialPeriodInterest: true,
      }),
    ).toEqual([
      ['2022-01-01', '250.00', '0.00', '750.00'],
      ['2022-02-01', '250.00', '10.00', '500.00'],
      ['2022-03-01', '250.00', '10.00', '250.00'],
      ['2022-04-01', '250.00', '10.00', '0.00'],
    ]);
  });
});

describe('installment multiples (LoanInstallmentMultiplesOfTest)', () => {
  const base = { principal: '1250', currency: 'EUR', disbursementDate: '2023-01-01' };
  it('no interest: 1250 / 4 = 312.5 → 312 (half-even on the multiple of 1), the last takes 314', () => {
    for (const interestMethod of ['DECLINING_BALANCE', 'FLAT']) {
      expect(
        rows({
          ...base,
          annualInterestRate: '0',
          numberOfRepayments: 4,
          interestMethod,
          installmentAmountInMultiplesOf: 1,
        }).map((r) => r[1]),
      ).toEqual(['312.00', '312.00', '312.00', '314.00']);
    }
  });
  it('flat 12%, multiples of 1: principal 417 + 12 − 12.50 = 416.50', () => {
    expect(
      rows({
        ...base,
        annualInterestRate: '12',
        numberOfRepayments: 3,
        interestMethod: 'FLAT',
        installmentAmountInMultiplesOf: 1,
      }),
    ).toEqual([
      ['2023-02-01', '416.50', '12.50', '833.50'],
      ['2023-03-01', '416.50', '12.50', '417.00'],
      ['2023-04-01', '417.00', '12.50', '0.00'],
    ]);
  });
  it('flat 12%, multiples of 20: principal 420 + 20 − 12.50 = 427.50, the last 395', () => {
    expect(
      rows({
        ...base,
        annualInterestRate: '12',
        numberOfRepayments: 3,
        interestMethod: 'FLAT',
        installmentAmountInMultiplesOf: 20,
      }).map((r) => [r[1], r[2]]),
    ).toEqual([
      ['427.50', '12.50'],
      ['427.50', '12.50'],
      ['395.00', '12.50'],
    ]);
  });
});

describe('progressive partial first period (LoanScheduleGeneratorTest)', () => {
  it('schedule from 1 Jan, 192.22 disbursed on 15 Jan: the first period earns 17/31 of its interest', () => {
    expect(
      rows({
        principal: '192.22',
        currency: 'USD',
        annualInterestRate: '9.99',
        numberOfRepayments: 6,
        expectedDisbursementDate: '2024-01-01',
        disbursementDate: '2024-01-15',
        scheduleType: 'PROGRESSIVE',
        daysInYear: 360,
        daysInMonth: 30,
      }),
    ).toEqual([
      ['2024-02-01', '31.97', '0.88', '160.25'],
      ['2024-03-01', '31.52', '1.33', '128.73'],
      ['2024-04-01', '31.78', '1.07', '96.95'],
      ['2024-05-01', '32.04', '0.81', '64.91'],
      ['2024-06-01', '32.31', '0.54', '32.60'],
      ['2024-07-01', '32.60', '0.27', '0.00'],
    ]);
  });
});

describe('progressive down payment with interest (AdvancedPaymentAllocationLoanRepaymentScheduleTest uc141/uc142)', () => {
  const base = {
    principal: '100',
    currency: 'EUR',
    numberOfRepayments: 5,
    disbursementDate: '2024-01-01',
    scheduleType: 'PROGRESSIVE',
    daysInYear: 360,
    daysInMonth: 30,
    downPaymentPercent: '25',
  };
  it('5%: EMI 15.19, interest 0.31 … 0.06', () => {
    const r = rows({ ...base, annualInterestRate: '5' });
    expect(r[0]).toEqual(['2024-01-01', '25.00', '0.00', '75.00']);
    expect(r.slice(1).map((x) => [x[1], x[2]])).toEqual([
      ['14.88', '0.31'],
      ['14.94', '0.25'],
      ['15.00', '0.19'],
      ['15.06', '0.13'],
      ['15.12', '0.06'],
    ]);
  });
  it('12.3%: the EMI 15.46 is adjusted to 15.47', () => {
    const r = rows({ ...base, annualInterestRate: '12.3' });
    expect(r.slice(1).map((x) => [x[1], x[2]])).toEqual([
      ['14.70', '0.77'],
      ['14.85', '0.62'],
      ['15.00', '0.47'],
      ['15.16', '0.31'],
      ['15.29', '0.16'],
    ]);
  });
});
