import { describe, expect, it } from 'vitest';
import { AppError } from '#lib/errors/app-error.ts';
import { previewSchedule } from '#lib/schedule/index.ts';
import { checkRecalculationCase, loadRecalculationCases, scheduleThroughCli } from '../support/recalculation-cases.ts';

/**
 * Cumulative interest recalculation with an interest-first repayment strategy (RBI India,
 * interest-principal-penalties-fees order): a repayment between two due dates closes an installment on
 * its own day. Fineract's three schedules (tests/fixtures/fineract-cumulative-interest-first-cases.json)
 * through the terms contract and the CLI, then hand-worked variants of the same loan.
 */

type Json = ReturnType<typeof previewSchedule> & {
  totals: Record<string, string>;
  preClosure?: { date: string; principal: string; interest: string; total: string };
  transactions?: { date: string; principal: string; interest: string; excess: string }[];
};
type Row = { number: number; fromDate: string; dueDate: string; principal: string; interest: string; paid: string };

const cases = loadRecalculationCases('fineract-cumulative-interest-first-cases.json');
const loan = cases[0].terms;
const firstRepayment = (loan.transactions as unknown[])[0];
const rowsOf = (json: Json) =>
  (json.installments as unknown as Row[]).map((i) => [i.dueDate, i.principal, i.interest, i.paid]);
const withPayments = (...payments: [string, string][]) => ({
  ...loan,
  transactions: [firstRepayment, ...payments.map(([date, amount]) => ({ type: 'REPAYMENT', date, amount }))],
});

describe('Fineract cumulative recalculation with an interest-first strategy', () => {
  for (const c of cases) {
    it(`${c.id} (lines ${c.source.lines})`, () => {
      checkRecalculationCase(previewSchedule(c.terms), c);
    });
  }

  it('runs the interest-first prepayment through the CLI process (npm run -s schedule)', () => {
    checkRecalculationCase(scheduleThroughCli(cases[0].terms), cases[0]);
  });

  it('does not split a period for the other strategies: the repayment pays the period’s installment', () => {
    const json = previewSchedule({ ...cases[0].terms, allocationStrategy: 'mifos-standard-strategy' }) as Json;
    expect(rowsOf(json)).toEqual([
      ['2024-03-11', '2482.76', '46.15', '2528.91'],
      ['2024-03-18', '3970.16', '29.84', '4000.00'],
      ['2024-03-25', '2512.54', '16.37', '0.00'],
      ['2024-04-01', '1034.54', '4.77', '0.00'],
    ]);
  });

  it('refuses an unknown strategy, naming the field', () => {
    expect(() => previewSchedule({ ...loan, allocationStrategy: 'no-such-strategy' })).toThrow(AppError);
    try {
      previewSchedule({ ...loan, allocationStrategy: 'no-such-strategy' });
    } catch (error) {
      expect((error as AppError).field).toBe('allocationStrategy');
    }
  });

  it('closes the loan on the payment day when the repayment covers the principal left', () => {
    const json = previewSchedule(withPayments(['2024-03-13', '8000'])) as Json;
    expect(rowsOf(json)).toEqual([
      ['2024-03-11', '2482.76', '46.15', '2528.91'],
      ['2024-03-13', '7517.24', '9.91', '7527.15'],
    ]);
    expect(json.transactions?.[1]).toMatchObject({ principal: '7517.24', interest: '9.91', excess: '472.85' });
    expect(json.totals.outstanding).toBe('0.00');
  });

  it('puts a second repayment of the same day into the installment the first one opened', () => {
    const json = previewSchedule(withPayments(['2024-03-13', '1000'], ['2024-03-13', '3000'])) as Json;
    checkRecalculationCase(json, { ...cases[0], expected: { installments: cases[0].expected.installments } });
  });

  it('leaves a repayment below the interest to its day on that installment, with no principal', () => {
    const json = previewSchedule(withPayments(['2024-03-13', '5'])) as Json;
    expect(rowsOf(json)).toEqual([
      ['2024-03-11', '2482.76', '46.15', '2528.91'],
      ['2024-03-13', '0.00', '9.91', '5.00'],
      ['2024-03-18', '2504.14', '24.77', '0.00'],
      ['2024-03-25', '2505.77', '23.14', '0.00'],
      ['2024-04-01', '2507.33', '11.57', '0.00'],
    ]);
    expect(json.totals.principal).toBe('10000.00');
  });

  it('pays an overdue installment first, then the interest to the day, the rest in advance', () => {
    const json = previewSchedule({
      ...loan,
      transactions: [{ type: 'REPAYMENT', date: '2024-03-13', amount: '3000' }],
    }) as Json;
    // 13.25: two days on 10000 + the 46.15 compounded on 11 March (the overdue principal bears interest until paid).
    expect(rowsOf(json).slice(0, 2)).toEqual([
      ['2024-03-11', '2482.76', '46.15', '2528.91'],
      ['2024-03-13', '457.84', '13.25', '471.09'],
    ]);
    expect(json.totals.principal).toBe('10000.00');
  });

  it('REDUCE_EMI_AMOUNT works the annuity out again over the periods left, the split one included', () => {
    const terms = { ...cases[0].terms } as Record<string, unknown>;
    terms.interestRecalculation = {
      ...(terms.interestRecalculation as object),
      rescheduleStrategy: 'REDUCE_EMI_AMOUNT',
    };
    const json = previewSchedule(terms) as Json;
    // pmt(3527.15, 3 weeks) = 1186.59: 1174.99 + 11.60, 1175.73 + 10.86; the last takes the rest.
    expect(rowsOf(json).slice(2)).toEqual([
      ['2024-03-18', '1174.99', '11.60', '0.00'],
      ['2024-03-25', '1175.73', '10.86', '0.00'],
      ['2024-04-01', '1176.43', '5.43', '0.00'],
    ]);
  });

  it('without compounding the interest paid stays on the balance (11.63 for the five days left)', () => {
    const terms = {
      ...cases[0].terms,
      interestRecalculation: { restFrequency: 'DAILY', rescheduleStrategy: 'REDUCE_NUMBER_OF_INSTALLMENTS' },
    };
    const json = previewSchedule(terms) as Json;
    expect(rowsOf(json)[2]).toEqual(['2024-03-18', '2517.28', '11.63', '0.00']);
  });
});
