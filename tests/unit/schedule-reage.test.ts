import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateSchedule, parseTerms } from '#lib/schedule/index.ts';
import {
  reAgeInstallments,
  reAmortizeInstallments,
  type ReAgeRequest,
  type ReshapeInstallment,
  type ReshapeMoney,
} from '#lib/schedule/reage.ts';

/**
 * Fineract's re-age and re-amortisation cases (tests/fixtures/fineract-reage-cases.json): each gives
 * the installments as Fineract's test asserted them just before the transaction, the request, and
 * the schedule Fineract asserted after it. Every case runs through the pure engine.
 */
type Row = Record<string, string | number | boolean | null | undefined>;
type Case = {
  id: string;
  operation: 'REAGE' | 'REAMORTIZE';
  source: { path: string; test: string; lines: string };
  money: { digits: number; installmentAmountInMultiplesOf: number | null };
  transactionDate: string;
  request?: Omit<ReAgeRequest, 'transactionDate'>;
  before: Row[];
  expected: {
    principal: string;
    installments: { dueDate: string; principal: string; outstanding: string; fees?: string; penalties?: string }[];
  };
};

const cases: Case[] = JSON.parse(
  readFileSync(new URL('../fixtures/fineract-reage-cases.json', import.meta.url), 'utf8'),
);

/** "234.38" → 23438n at 2 digits (exact, no floating point). */
function minor(value: string | number | null | undefined, digits = 2): bigint {
  const text = String(value ?? '0');
  const [whole, frac = ''] = text.split('.');
  return BigInt(whole + frac.padEnd(digits, '0').slice(0, digits));
}

function toInstallment(row: Row): ReshapeInstallment {
  return {
    number: Number(row.number),
    fromDate: String(row.fromDate),
    dueDate: String(row.dueDate),
    isDownPayment: row.isDownPayment === true,
    isAdditional: row.isAdditional === true,
    principal: minor(row.principal as string),
    principalPaid: minor(row.principalPaid as string),
    interest: 0n,
    interestPaid: 0n,
    fees: minor(row.fees as string),
    feesPaid: minor(row.feesPaid as string),
    penalties: minor(row.penalties as string),
    penaltiesPaid: minor(row.penaltiesPaid as string),
  };
}

function run(c: Case) {
  const money: ReshapeMoney = {
    digits: c.money.digits,
    installmentAmountInMultiplesOf: c.money.installmentAmountInMultiplesOf,
  };
  const before = c.before.map(toInstallment);
  return c.operation === 'REAGE'
    ? reAgeInstallments(before, { ...c.request!, transactionDate: c.transactionDate }, money)
    : reAmortizeInstallments(before, c.transactionDate, money);
}

describe('Fineract re-age / re-amortisation cases', () => {
  it('holds at least 8 cases of each operation, from different scenarios', () => {
    for (const op of ['REAGE', 'REAMORTIZE'] as const) {
      const mine = cases.filter((c) => c.operation === op);
      expect(mine.length).toBeGreaterThanOrEqual(8);
      expect(new Set(mine.map((c) => `${c.source.path}#${c.source.test}`)).size).toBeGreaterThanOrEqual(8);
    }
  });

  for (const c of cases) {
    it(`${c.id} (${c.source.path.split('/').pop()}: ${c.source.test}, lines ${c.source.lines})`, () => {
      const result = run(c);
      expect(result.principal).toBe(minor(c.expected.principal));
      const got = result.installments.map((i) => ({
        number: i.number,
        dueDate: i.dueDate,
        principal: i.principal,
        fees: i.fees,
        penalties: i.penalties,
        outstanding:
          i.principal -
          i.principalPaid +
          i.interest -
          i.interestPaid +
          i.fees -
          i.feesPaid +
          i.penalties -
          i.penaltiesPaid,
      }));
      expect(got).toEqual(
        c.expected.installments.map((e, k) => ({
          number: k + 1,
          dueDate: e.dueDate,
          principal: minor(e.principal),
          fees: minor(e.fees),
          penalties: minor(e.penalties),
          outstanding: minor(e.outstanding),
        })),
      );
      // Only principal moves, and none is created or lost.
      const principalBefore = c.before.reduce((s, r) => s + minor(r.principal as string), 0n);
      expect(result.installments.reduce((s, i) => s + i.principal, 0n)).toBe(principalBefore);
    });
  }
});

describe('re-age engine details', () => {
  const base = (): ReshapeInstallment[] =>
    cases.find((c) => c.id === 'reage-happy-path-monthly-6')!.before.map(toInstallment);

  it('the "before" schedule of the feature scenarios is what the schedule engine generates for their loan', () => {
    // LP2_DOWNPAYMENT_AUTO_ADVANCED_PAYMENT_ALLOCATION: 1000 at 0 %, 25 % down payment, 3 × 15 days, multiples of 1.
    const schedule = generateSchedule(
      parseTerms({
        principal: '1000',
        currency: 'EUR',
        annualInterestRate: '0',
        numberOfRepayments: 3,
        repaymentEvery: 15,
        repaymentFrequency: 'DAYS',
        disbursementDate: '2024-01-01',
        scheduleType: 'PROGRESSIVE',
        downPaymentPercent: '25',
        installmentAmountInMultiplesOf: 1,
      }),
    );
    expect(schedule.installments.map((i) => [i.dueDate, i.principal])).toEqual(
      base().map((i) => [i.dueDate, i.principal]),
    );
  });

  it('new installments are marked re-aged, run from the last non-down-payment installment and are renumbered', () => {
    const result = reAgeInstallments(
      base(),
      {
        transactionDate: '2024-02-20',
        startDate: '2024-03-31',
        frequencyType: 'MONTHS',
        frequencyNumber: 1,
        numberOfInstallments: 3,
      },
      { digits: 2 },
    );
    const created = result.installments.filter((i) => i.isReAged);
    expect(created.map((i) => [i.number, i.fromDate, i.dueDate])).toEqual([
      [5, '2024-02-15', '2024-03-31'],
      [6, '2024-03-31', '2024-04-30'],
      [7, '2024-04-30', '2024-05-30'], // plusMonths from the previous due date, as Fineract chains them
    ]);
    expect(created.map((i) => i.principal)).toEqual([25000n, 25000n, 25000n]);
  });

  it('weeks and years step from the previous due date', () => {
    const weeks = reAgeInstallments(
      base(),
      {
        transactionDate: '2024-02-20',
        startDate: '2024-03-01',
        frequencyType: 'WEEKS',
        frequencyNumber: 2,
        numberOfInstallments: 2,
      },
      { digits: 2 },
    );
    expect(weeks.installments.filter((i) => i.isReAged).map((i) => i.dueDate)).toEqual(['2024-03-01', '2024-03-15']);
    const years = reAgeInstallments(
      base(),
      {
        transactionDate: '2024-02-20',
        startDate: '2024-02-29',
        frequencyType: 'YEARS',
        frequencyNumber: 1,
        numberOfInstallments: 2,
      },
      { digits: 2 },
    );
    expect(years.installments.filter((i) => i.isReAged).map((i) => i.dueDate)).toEqual(['2024-02-29', '2025-02-28']);
  });

  // LoanReAgingValidatorTest (fineract-provider/src/test/java/.../service/reaging/LoanReAgingValidatorTest.java):
  // testValidateReAge_ShouldThrowException_WhenNumberOfInstallmentsIsZero / …IsNegative / WhenFrequencyNumberIsZero /
  // WhenFrequencyTypeIsMissing / WhenStartDateIsMissing. The business rules (maturity, product, once a day) are the
  // command's: tests/integration/lending-reage.test.ts.
  it('refuses requests Fineract refuses', () => {
    const request = {
      transactionDate: '2024-02-20',
      startDate: '2024-03-01',
      frequencyType: 'MONTHS' as const,
      frequencyNumber: 1,
      numberOfInstallments: 2,
    };
    expect(() => reAgeInstallments(base(), { ...request, numberOfInstallments: 0 }, { digits: 2 })).toThrow(
      /numberOfInstallments/,
    );
    expect(() => reAgeInstallments(base(), { ...request, frequencyNumber: -1 }, { digits: 2 })).toThrow(
      /frequencyNumber/,
    );
    expect(() => reAgeInstallments(base(), { ...request, frequencyType: 'QUARTERS' as never }, { digits: 2 })).toThrow(
      /frequencyType/,
    );
    expect(() => reAgeInstallments(base(), { ...request, startDate: '2024-02-30' }, { digits: 2 })).toThrow(
      /startDate/,
    );
  });

  it('re-amortisation leaves re-aged installments alone and needs a future installment', () => {
    const reaged = reAgeInstallments(
      base(),
      {
        transactionDate: '2024-02-20',
        startDate: '2024-03-01',
        frequencyType: 'MONTHS',
        frequencyNumber: 1,
        numberOfInstallments: 2,
      },
      { digits: 2 },
    ).installments;
    expect(() => reAmortizeInstallments(reaged, '2024-03-02', { digits: 2 })).toThrow(/no installment falls due/);
    expect(() => reAmortizeInstallments(base(), '2024-02-15', { digits: 2 })).toThrow(/no installment falls due/);
  });
});
