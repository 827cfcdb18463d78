import { describe, expect, it } from 'vitest';
import { previewSchedule } from '#lib/schedule/index.ts';
import { parseRecalculationTerms, recalculateSchedule, recalculatedToJson } from '#lib/schedule/recalculation.ts';
import {
  checkRecalculationCase as check,
  loadRecalculationCases,
  scheduleThroughCli,
} from '../support/recalculation-cases.ts';

/**
 * Interest recalculation on cumulative schedules against Apache Fineract's ClientLoanIntegrationTest
 * (tests/fixtures/fineract-cumulative-recalculation-cases.json, each case citing its test and lines).
 * Every case runs through the engine and the terms contract (previewSchedule); one through the CLI process.
 */
const fixture = { cases: loadRecalculationCases('fineract-cumulative-recalculation-cases.json') };

const base = () => JSON.parse(JSON.stringify(fixture.cases[0].terms)) as Record<string, unknown>;

describe('Fineract cumulative interest recalculation cases', () => {
  it('has at least 6 cases from 3 tests', () => {
    expect(fixture.cases.length).toBeGreaterThanOrEqual(6);
    expect(new Set(fixture.cases.map((c) => c.source.test.split(' ')[0])).size).toBeGreaterThanOrEqual(3);
  });

  for (const c of fixture.cases) {
    it(`${c.id} (${c.source.test})`, () => {
      check(recalculatedToJson(recalculateSchedule(parseRecalculationTerms(c.terms))), c);
      check(previewSchedule(c.terms), c);
    });
  }

  it('runs a case through the CLI process', () => {
    const c = fixture.cases.find((x) => x.id === 'reduce-emi-early-payment')!;
    check(scheduleThroughCli(c.terms), c);
  });
});

describe('cumulative recalculation properties', () => {
  it('REDUCE_NUMBER_OF_INSTALLMENTS keeps the EMI and ends the loan earlier after a large prepayment', () => {
    const terms = base();
    terms.interestRecalculation = {
      ...(terms.interestRecalculation as object),
      rescheduleStrategy: 'REDUCE_NUMBER_OF_INSTALLMENTS',
    };
    terms.transactions = [
      { type: 'REPAYMENT', date: '2024-03-11', amount: '2528.91' },
      { type: 'REPAYMENT', date: '2024-03-13', amount: '6000' },
    ];
    terms.asOf = '2024-03-18';
    const s = recalculateSchedule(parseRecalculationTerms(terms));
    const principal = s.installments.reduce((a, i) => a + i.principal, 0n);
    expect(principal).toBe(1000000n);
    expect(s.installments.length).toBeLessThan(4);
    // Installment 3 keeps the original EMI (2528.91) or closes the loan with less.
    const third = s.installments[2];
    if (third) expect(third.total).toBeLessThanOrEqual(252891n);
  });

  it('principal adds up to the disbursement and paid never exceeds due', () => {
    for (const c of fixture.cases) {
      const s = recalculateSchedule(parseRecalculationTerms(c.terms));
      expect(s.installments.reduce((a, i) => a + i.principal, 0n)).toBe(1000000n);
      for (const i of s.installments) expect(i.paid <= i.total).toBe(true);
    }
  });

  it('refuses what it does not support, naming the field', () => {
    const cases: [string, Record<string, unknown>][] = [
      [
        'interestRecalculation.rescheduleStrategy',
        { interestRecalculation: { rescheduleStrategy: 'ADJUST_LAST_UNPAID_PERIOD' } },
      ],
      ['amortization', { amortization: 'EQUAL_PRINCIPAL' }],
      ['graceOnPrincipalPeriods', { graceOnPrincipalPeriods: 1 }],
      ['interestRecalculation.restNthDay', { interestRecalculation: { restFrequency: 'MONTHLY', restNthDay: 2 } }],
    ];
    for (const [field, patch] of cases) {
      const terms = { ...base(), ...patch };
      if (patch.interestRecalculation)
        terms.interestRecalculation = { ...(base().interestRecalculation as object), ...patch.interestRecalculation };
      expect(() => recalculateSchedule(parseRecalculationTerms(terms))).toThrow(field);
    }
  });

  it('accepts every rest, compounding and strategy of Fineract on a cumulative schedule', () => {
    for (const restFrequency of ['SAME_AS_REPAYMENT_PERIOD', 'DAILY', 'WEEKLY', 'MONTHLY'])
      for (const compounding of ['NONE', 'INTEREST', 'FEE', 'INTEREST_AND_FEE'])
        for (const rescheduleStrategy of [
          'REDUCE_EMI_AMOUNT',
          'REDUCE_NUMBER_OF_INSTALLMENTS',
          'RESCHEDULE_NEXT_REPAYMENTS',
        ]) {
          const terms = base();
          terms.interestRecalculation = { restFrequency, compounding, rescheduleStrategy };
          const s = recalculateSchedule(parseRecalculationTerms(terms));
          expect(s.installments.reduce((a, i) => a + i.principal, 0n)).toBe(1000000n);
        }
  });
});

describe('recalculating cumulative products', () => {
  it('accepts rests, compounding and strategies and refuses the rest naming the product field', async () => {
    const { checkProduct } = await import('#lib/lending/product-admin.ts');
    const { recalculationProduct } = await import('#lib/simulator/features/recalculation.ts');
    const supported = {
      ...recalculationProduct('USD', 2),
      scheduleType: 'CUMULATIVE' as const,
      interestCalculationPeriod: 'SAME_AS_REPAYMENT_PERIOD' as const,
      recalculationRestFrequency: 'SAME_AS_REPAYMENT_PERIOD' as const,
      recalculationRescheduleStrategy: 'REDUCE_EMI_AMOUNT' as const,
    };
    expect(() => checkProduct(supported)).not.toThrow();
    expect(() =>
      checkProduct({ ...supported, recalculationRescheduleStrategy: 'REDUCE_NUMBER_OF_INSTALLMENTS' }),
    ).not.toThrow();
    expect(() =>
      checkProduct({
        ...supported,
        recalculationRestFrequency: 'DAILY',
        recalculationCompounding: 'INTEREST_AND_FEE',
        recalculationCompoundingFrequency: 'WEEKLY',
        recalculationRescheduleStrategy: 'RESCHEDULE_NEXT_REPAYMENTS',
      }),
    ).not.toThrow();
    expect(() => checkProduct({ ...supported, recalculationRescheduleStrategy: 'ADJUST_LAST_UNPAID_PERIOD' })).toThrow(
      expect.objectContaining({ field: 'recalculationRescheduleStrategy' }),
    );
    expect(() => checkProduct({ ...supported, amortization: 'EQUAL_PRINCIPAL' })).toThrow(
      expect.objectContaining({ field: 'amortization' }),
    );
  });
});
