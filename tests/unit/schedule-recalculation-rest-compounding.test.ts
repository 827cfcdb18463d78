import { describe, expect, it } from 'vitest';
import { previewSchedule } from '#lib/schedule/index.ts';
import {
  parseInterestRecalculation,
  parseRecalculationTerms,
  recalculateSchedule,
  recalculatedToJson,
} from '#lib/schedule/recalculation.ts';
import { datesWithin, nextOnOrAfter } from '#lib/schedule/recalculation-calendar.ts';
import {
  checkRecalculationCase as check,
  loadRecalculationCases,
  scheduleThroughCli,
} from '../support/recalculation-cases.ts';

/**
 * Cumulative interest recalculation with DAILY/WEEKLY rests, compounding and RESCHEDULE_NEXT_REPAYMENTS
 * against Apache Fineract's ClientLoanIntegrationTest
 * (tests/fixtures/fineract-cumulative-rest-compounding-cases.json, each case citing its test and lines).
 * Every case runs through the engine and the terms contract (previewSchedule); one through the CLI process.
 */
const fixture = { cases: loadRecalculationCases('fineract-cumulative-rest-compounding-cases.json') };

const byId = (id: string) => fixture.cases.find((c) => c.id === id)!;
const copy = (id: string) => JSON.parse(JSON.stringify(byId(id).terms)) as Record<string, unknown>;

describe('Fineract cumulative recalculation with rests and compounding', () => {
  it('has cases from at least 5 tests covering DAILY and WEEKLY rests and every compounding kind used', () => {
    expect(fixture.cases.length).toBeGreaterThanOrEqual(10);
    expect(new Set(fixture.cases.map((c) => c.source.test)).size).toBeGreaterThanOrEqual(5);
    const recs = fixture.cases.map((c) => c.terms.interestRecalculation as Record<string, string>);
    expect(new Set(recs.map((r) => r.restFrequency))).toEqual(new Set(['DAILY', 'WEEKLY']));
    expect(new Set(recs.map((r) => r.compounding))).toEqual(new Set(['INTEREST', 'INTEREST_AND_FEE']));
    expect(recs.some((r) => r.rescheduleStrategy === 'RESCHEDULE_NEXT_REPAYMENTS')).toBe(true);
  });

  for (const c of fixture.cases) {
    it(`${c.id} (${c.source.test})`, () => {
      check(recalculatedToJson(recalculateSchedule(parseRecalculationTerms(c.terms))), c);
      check(previewSchedule(c.terms), c);
    });
  }

  it('runs a case through the CLI process', () => {
    const c = byId('weekly-rest-reschedule-next-repayments');
    check(scheduleThroughCli(c.terms), c);
  });
});

describe('rest and compounding rules', () => {
  it('without compounding the overdue installment only bears interest on its principal', () => {
    const terms = copy('daily-rest-compound-interest-overdue');
    terms.interestRecalculation = { restFrequency: 'DAILY', rescheduleStrategy: 'REDUCE_NUMBER_OF_INSTALLMENTS' };
    const out = previewSchedule(terms);
    // 10000 still owed in period 2 (46.15), not 10046.15 (46.37).
    expect(out.installments.map((i) => i.interest)).toEqual(['46.15', '46.15', '23.24', '11.67']);
  });

  it('a daily rest counts a late payment from its own day inside the period', () => {
    const terms = copy('daily-rest-compound-interest-fee-overdue');
    terms.transactions = [{ type: 'REPAYMENT', date: '2024-03-08', amount: '2528.91' }];
    const out = previewSchedule(terms);
    // Installment 1 (due 03-04) paid on 03-08: 4 days of period 2 on 10046.15, 3 on 7517.24 + 0 compounded.
    expect(out.installments[1].interest).toBe('41.37');
    terms.interestRecalculation = { ...(terms.interestRecalculation as object), restFrequency: 'WEEKLY' };
    // Weekly rest on the disbursement weekday (the due dates): the payment counts from 03-11.
    expect(previewSchedule(terms).installments[1].interest).toBe('46.37');
  });

  it('FEE compounding compounds the fee but not the interest', () => {
    const terms = copy('weekly-rest-compound-interest-fee-overdue');
    terms.interestRecalculation = { ...(terms.interestRecalculation as object), compounding: 'FEE' };
    // Period 2 on 10000 + the 100 fee: 10100 × 24 % / 52 = 46.62.
    expect(previewSchedule(terms).installments[1].interest).toBe('46.62');
  });

  it('RESCHEDULE_NEXT_REPAYMENTS, REDUCE_EMI_AMOUNT and REDUCE_NUMBER_OF_INSTALLMENTS differ after a prepayment', () => {
    const out = (strategy: string) => {
      const terms = copy('weekly-rest-reschedule-next-repayments');
      terms.interestRecalculation = { ...(terms.interestRecalculation as object), rescheduleStrategy: strategy };
      return previewSchedule(terms).installments;
    };
    const next = out('RESCHEDULE_NEXT_REPAYMENTS');
    const emi = out('REDUCE_EMI_AMOUNT');
    const count = out('REDUCE_NUMBER_OF_INSTALLMENTS');
    expect(next[2].principal).toBe('0.00');
    // REDUCE_EMI: the two installments left share the balance (2451.93) with a new EMI.
    expect(emi).toHaveLength(4);
    expect(emi[2].principal).not.toBe('0.00');
    expect(Number(emi[2].principal) + Number(emi[3].principal)).toBeCloseTo(2451.93, 2);
    // REDUCE_NUMBER: the EMI stays, the loan ends one installment earlier.
    expect(count).toHaveLength(3);
    expect(count[2].principal).toBe('2451.93');
  });

  it('monthly rest on a day of the month and weekly rest on a weekday', () => {
    const cal = { interval: 1, start: '2024-03-04', dueDates: [] as string[] };
    const monthly = { ...cal, frequency: 'MONTHLY' as const, day: { dayOfWeek: null, dayOfMonth: 15 } };
    expect(nextOnOrAfter(monthly, '2024-03-05')).toBe('2024-03-15');
    expect(nextOnOrAfter(monthly, '2024-03-16')).toBe('2024-04-15');
    expect(datesWithin(monthly, '2024-03-04', '2024-06-15')).toEqual([
      '2024-03-15',
      '2024-04-15',
      '2024-05-15',
      '2024-06-15',
    ]);
    const weekly = { ...cal, interval: 2, frequency: 'WEEKLY' as const, day: { dayOfWeek: 5, dayOfMonth: null } };
    expect(nextOnOrAfter(weekly, '2024-03-04')).toBe('2024-03-08');
    expect(nextOnOrAfter(weekly, '2024-03-09')).toBe('2024-03-22');
    const daily = { ...cal, interval: 3, frequency: 'DAILY' as const, day: { dayOfWeek: null, dayOfMonth: null } };
    expect(nextOnOrAfter(daily, '2024-03-05')).toBe('2024-03-07');
    const plainMonthly = {
      ...cal,
      start: '2024-01-31',
      frequency: 'MONTHLY' as const,
      day: { dayOfWeek: null, dayOfMonth: null },
    };
    expect(datesWithin(plainMonthly, '2024-01-31', '2024-04-30')).toEqual(['2024-02-29', '2024-03-31', '2024-04-30']);
  });

  it('a monthly rest with a day works end to end on a monthly loan', () => {
    const terms = {
      ...copy('daily-rest-compound-interest-overdue'),
      repaymentFrequency: 'MONTHS',
      numberOfRepayments: 6,
      interestRecalculation: { restFrequency: 'MONTHLY', restDayOfMonth: 20, rescheduleStrategy: 'REDUCE_EMI_AMOUNT' },
      transactions: [{ type: 'REPAYMENT', date: '2024-04-10', amount: '3000' }],
      asOf: '2024-05-01',
    };
    const out = previewSchedule(terms);
    expect(out.installments.reduce((s, i) => s + Number(i.principal) * 100, 0)).toBeCloseTo(1_000_000, 3);
    // The 3000 counts from the rest date 04-20: period 04-04..05-04 has 16 days on the higher balance.
    const plainTerms = {
      ...terms,
      interestRecalculation: { restFrequency: 'DAILY', rescheduleStrategy: 'REDUCE_EMI_AMOUNT' },
    };
    expect(Number(out.installments[1].interest)).toBeGreaterThan(
      Number(previewSchedule(plainTerms).installments[1].interest),
    );
  });
});

describe('interestRecalculation parsing', () => {
  const parse = (o: Record<string, unknown>) => parseInterestRecalculation(o, 'CUMULATIVE');

  it('defaults the new fields', () => {
    const r = parse({ compounding: 'INTEREST' })!;
    expect(r.compoundingFrequency).toBe('SAME_AS_REPAYMENT_PERIOD');
    expect(r.compoundingInterval).toBe(1);
    expect(r.restDay).toEqual({ dayOfWeek: null, dayOfMonth: null });
    expect(parse({ restFrequency: 'WEEKLY', restDayOfWeek: 3 })!.restDay.dayOfWeek).toBe(3);
  });

  it('refuses bad input naming the field', () => {
    const cases: [string, Record<string, unknown>][] = [
      ['interestRecalculation.compoundingFrequency', { compounding: 'INTEREST', compoundingFrequency: 'YEARLY' }],
      ['interestRecalculation.compoundingInterval', { compounding: 'INTEREST', compoundingInterval: 0 }],
      ['interestRecalculation.compoundingFrequency', { compoundingFrequency: 'DAILY' }],
      ['interestRecalculation.restDayOfWeek', { restFrequency: 'MONTHLY', restDayOfWeek: 2 }],
      ['interestRecalculation.restDayOfWeek', { restFrequency: 'WEEKLY', restDayOfWeek: 8 }],
      ['interestRecalculation.restDayOfMonth', { restFrequency: 'MONTHLY', restDayOfMonth: 31 }],
      [
        'interestRecalculation.compoundingDayOfMonth',
        { compounding: 'FEE', compoundingFrequency: 'WEEKLY', compoundingDayOfMonth: 3 },
      ],
      ['interestRecalculation.restNthDay', { restFrequency: 'MONTHLY', restNthDay: 2 }],
      ['interestRecalculation.restInterval', { restInterval: 1.5 }],
    ];
    for (const [field, o] of cases) expect(() => parse(o), field).toThrow(field);
  });

  it('refuses a specified-due-date charge on a percentage of interest with recalculation', () => {
    const terms = copy('weekly-rest-compound-interest-fee-overdue');
    terms.charges = [
      {
        type: 'FEE',
        timing: 'SPECIFIED_DUE_DATE',
        calculation: 'PERCENT_OF_INTEREST',
        amount: '2',
        dueDate: '2024-03-06',
      },
    ];
    expect(() => previewSchedule(terms)).toThrow('charges[0].calculation');
  });
});
