import { describe, expect, it } from 'vitest';
import { AppError } from '#lib/errors/app-error.ts';
import { previewSchedule } from '#lib/schedule/index.ts';
import { checkRecalculationCase, loadRecalculationCases, scheduleThroughCli } from '../support/recalculation-cases.ts';

/**
 * Interest recalculation on cumulative loans paid out in tranches: Fineract's RP16
 * (tests/fixtures/fineract-cumulative-tranche-recalculation-cases.json, citing its scenario and lines)
 * through the terms contract and the CLI process, then hand-worked loans where a tranche falls inside a
 * period and is repaid early, late and in part (Fineract's tests give none with amounts).
 */

type Json = ReturnType<typeof previewSchedule> & {
  totals: Record<string, string>;
  preClosure?: { date: string; principal: string; interest: string; total: string };
  transactions?: { date: string; principal: string; interest: string; excess: string }[];
  disbursements?: { date: string; amount: string }[];
};
type Installment = {
  number: number;
  principal: string;
  interest: string;
  total: string;
  paid: string;
  balance: string;
};

const cases = loadRecalculationCases('fineract-cumulative-tranche-recalculation-cases.json');
const totalsOf = (c: (typeof cases)[number]) => (c.expected as unknown as { totals: Record<string, string> }).totals;

describe('Fineract cumulative tranche loans with interest recalculation', () => {
  for (const c of cases) {
    it(`${c.id} (${c.source.test.slice(0, 4)}, lines ${c.source.lines})`, () => {
      const json = previewSchedule(c.terms) as Json;
      checkRecalculationCase(json, c);
      for (const [key, value] of Object.entries(totalsOf(c))) expect(json.totals[key], key).toBe(value);
      expect(json.disbursements).toEqual([
        { date: '2022-11-01', amount: '5000.00' },
        { date: '2023-01-01', amount: '3000.00' },
        { date: '2023-03-01', amount: '2000.00' },
      ]);
    });
  }

  it('runs RP16 through the CLI process (npm run -s schedule)', () => {
    const c = cases[0];
    checkRecalculationCase(scheduleThroughCli(c.terms), c);
  });

  it('RP16 with the last tranche left out repays only what was paid out', () => {
    const c = cases[0];
    const two = (c.terms.disbursements as unknown[]).slice(0, 2);
    const json = previewSchedule({ ...c.terms, disbursements: two }) as Json;
    expect(json.totals.principal).toBe('8000.00');
    // Installments 1-3 do not see the March tranche: the same figures as Fineract's.
    const got = (json.installments as unknown as Installment[]).slice(0, 3).map((i) => i.interest);
    expect(got).toEqual(['50.00', '33.25', '46.33']);
  });
});

/**
 * 600 paid out on 1 Jan 2024 and 400 on 16 Jan, 1000 approved, 3 monthly installments, 12 % a year,
 * daily interest over a 365-day year, daily rests, REDUCE_EMI_AMOUNT. The EMI 339.93 is the annuity
 * of the approved 1000. Every figure below is worked out in its comment.
 */
const handTerms = {
  principal: '1000',
  currency: 'EUR',
  annualInterestRate: '12',
  numberOfRepayments: 3,
  repaymentEvery: 1,
  repaymentFrequency: 'MONTHS',
  disbursementDate: '2024-01-01',
  scheduleType: 'CUMULATIVE',
  interestMethod: 'DECLINING_BALANCE',
  amortization: 'EQUAL_INSTALLMENTS',
  interestCalculationPeriod: 'DAILY',
  daysInYear: '365',
  daysInMonth: 'ACTUAL',
  disbursements: [
    { date: '2024-01-01', amount: '600' },
    { date: '2024-01-16', amount: '400' },
  ],
  interestRecalculation: {
    restFrequency: 'DAILY',
    compounding: 'NONE',
    rescheduleStrategy: 'REDUCE_EMI_AMOUNT',
    preClosureStrategy: 'TILL_PRE_CLOSURE_DATE',
  },
};
const rows = (json: Json) =>
  (json.installments as unknown as Installment[]).map((i) => [i.principal, i.interest, i.total, i.paid, i.balance]);

describe('hand-worked cumulative tranche loans with interest recalculation', () => {
  it('a tranche inside a period bears interest from its own date', () => {
    const json = previewSchedule({ ...handTerms, transactions: [], asOf: '2024-01-20' }) as Json;
    // Period 1: 600 × 12 % × 15/365 = 2.96 + 1000 × 12 % × 16/365 = 5.26 → 8.22.
    // Period 2: 668.29 × 12 % × 29/365 = 6.37; period 3: 334.73 × 12 % × 31/365 = 3.41.
    expect(rows(json)).toEqual([
      ['331.71', '8.22', '339.93', '0.00', '668.29'],
      ['333.56', '6.37', '339.93', '0.00', '334.73'],
      ['334.73', '3.41', '338.14', '0.00', '0.00'],
    ]);
    // Quote on 20 Jan: 2.96 + 1000 × 12 % × 4/365 = 1.32.
    expect(json.preClosure).toEqual({ date: '2024-01-20', principal: '1000.00', interest: '4.28', total: '1004.28' });
  });

  it('a quote before the tranche leaves it out', () => {
    const json = previewSchedule({ ...handTerms, transactions: [], asOf: '2024-01-10' }) as Json;
    // 600 × 12 % × 9/365 = 1.78; the 400 of 16 Jan is not owed yet.
    expect(json.preClosure).toEqual({ date: '2024-01-10', principal: '600.00', interest: '1.78', total: '601.78' });
    expect(json.totals.principal).toBe('1000.00');
  });

  it('an early payment after the tranche reduces the EMI on what was lent', () => {
    const json = previewSchedule({
      ...handTerms,
      transactions: [{ type: 'REPAYMENT', date: '2024-01-25', amount: '400' }],
      asOf: '2024-01-25',
    }) as Json;
    // 400 pays period 1 (interest 8.08, principal 331.85) and 60.07 in advance, out of the balance
    // from 25 Jan: 2.96 + 1000 × 12 % × 9/365 = 2.96 + 939.93 × 12 % × 7/365 = 2.16 → 8.08.
    // 608.08 left over two installments: EMI 308.55; period 2: 608.08 × 12 % × 29/365 = 5.80,
    // period 3: 305.33 × 12 % × 31/365 = 3.11.
    expect(rows(json)).toEqual([
      ['391.92', '8.08', '400.00', '400.00', '608.08'],
      ['302.75', '5.80', '308.55', '0.00', '305.33'],
      ['305.33', '3.11', '308.44', '0.00', '0.00'],
    ]);
    expect(json.transactions).toEqual([
      {
        type: 'REPAYMENT',
        date: '2024-01-25',
        amount: '400.00',
        principal: '391.92',
        interest: '8.08',
        excess: '0.00',
      },
    ]);
    expect(json.preClosure?.total).toBe('608.08');
  });

  it('a late partial payment keeps the unpaid principal bearing interest until it is paid', () => {
    const json = previewSchedule({
      ...handTerms,
      transactions: [{ type: 'REPAYMENT', date: '2024-02-11', amount: '200' }],
      asOf: '2024-02-11',
    }) as Json;
    // 200 on 11 Feb pays interest 8.22 and 191.78 of installment 1's principal. Period 2: the whole
    // 1000 until 11 Feb (1000 × 12 % × 10/365 = 3.29), then 668.29 (× 19/365 = 4.17) → 7.46.
    // Period 3: 335.82 × 12 % × 31/365 = 3.42.
    expect(rows(json)).toEqual([
      ['331.71', '8.22', '339.93', '200.00', '668.29'],
      ['332.47', '7.46', '339.93', '0.00', '335.82'],
      ['335.82', '3.42', '339.24', '0.00', '0.00'],
    ]);
    // Quote on 11 Feb: 1000 − 191.78 principal, 3.29 of period 2's interest.
    expect(json.preClosure).toEqual({ date: '2024-02-11', principal: '808.22', interest: '3.29', total: '811.51' });
  });

  it('a tranche after the term gets an installment of its own, as in the plain schedule', () => {
    const late = [...handTerms.disbursements, { date: '2024-04-02', amount: '10' }];
    const json = previewSchedule({ ...handTerms, disbursements: late, transactions: [] }) as Json;
    // 10 × 12 % × 29/365 = 0.10 (2 Apr – 1 May).
    expect(rows(json)[3]).toEqual(['10.00', '0.10', '10.10', '0.00', '0.00']);
    expect(json.totals.principal).toBe('1010.00');
  });

  it('refuses a tranche above the outstanding cap', () => {
    expect(() =>
      previewSchedule({ ...handTerms, maxOutstandingBalance: '900', transactions: [], asOf: '2024-01-20' }),
    ).toThrow(AppError);
  });
});
