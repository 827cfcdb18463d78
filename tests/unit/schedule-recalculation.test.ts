import { describe, expect, it } from 'vitest';
import { previewSchedule } from '#lib/schedule/index.ts';
import {
  parseRecalculationTerms,
  preClosureAmount,
  recalculateSchedule,
  recalculatedToJson,
} from '#lib/schedule/recalculation.ts';
import {
  checkRecalculationCase as check,
  loadRecalculationCases,
  scheduleThroughCli,
} from '../support/recalculation-cases.ts';

/**
 * Interest recalculation against Apache Fineract's own assertions (tests/fixtures/fineract-recalculation-cases.json,
 * each case citing its source file, test or scenario and lines). Every case runs through the engine and
 * through the terms contract (previewSchedule, what `npm run -s schedule` prints); one through the CLI process.
 */
const fixture = { cases: loadRecalculationCases('fineract-recalculation-cases.json') };

describe('Fineract interest recalculation cases', () => {
  it('has at least 8 cases from several sources', () => {
    expect(fixture.cases.length).toBeGreaterThanOrEqual(8);
    expect(new Set(fixture.cases.map((c) => c.source.test)).size).toBeGreaterThanOrEqual(6);
  });

  for (const c of fixture.cases) {
    it(`${c.id} (${c.source.test})`, () => {
      const engine = recalculatedToJson(recalculateSchedule(parseRecalculationTerms(c.terms)));
      check(engine, c);
      check(previewSchedule(c.terms), c);
    });
  }

  it('runs a case through the CLI process', () => {
    const c = fixture.cases.find((x) => x.id === 'till-preclose-payoff')!;
    check(scheduleThroughCli(c.terms), c);
  });
});

describe('interest recalculation properties', () => {
  const terms = fixture.cases.find((x) => x.id === 'till-preclose-payoff')!.terms;

  it('an early repayment lowers the interest of the later installments, a late one raises it', () => {
    const plain = previewSchedule({ ...terms, transactions: [], asOf: undefined });
    const early = previewSchedule({
      ...terms,
      transactions: [
        { type: 'REPAYMENT', date: '2024-02-01', amount: '17.01' },
        { type: 'REPAYMENT', date: '2024-02-10', amount: '30' },
      ],
    });
    const interest = (j: typeof plain) => j.installments.reduce((s, i) => s + Number(i.interest), 0);
    expect(interest(early)).toBeLessThan(interest(plain));
    const late = previewSchedule({
      ...terms,
      transactions: [{ type: 'REPAYMENT', date: '2024-02-20', amount: '17.01' }],
    });
    expect(interest(late)).toBeGreaterThan(interest(plain));
  });

  it('principal always adds up to the disbursement, nothing is negative, paid never exceeds due', () => {
    const amounts = ['5', '17.01', '40', '0.3', '120'];
    const dates = ['2024-01-20', '2024-02-01', '2024-02-17', '2024-03-05', '2024-04-01', '2024-05-20'];
    for (let k = 0; k < 30; k++) {
      const transactions = [0, 1, 2].map((j) => ({
        type: 'REPAYMENT',
        date: dates[(k + j * 2) % dates.length],
        amount: amounts[(k * 3 + j) % amounts.length],
      }));
      const json = previewSchedule({ ...terms, transactions, asOf: '2024-06-15' });
      const principal = json.installments.reduce((s, i) => s + Math.round(Number(i.principal) * 100), 0);
      expect(principal).toBe(10000);
      for (const i of json.installments) {
        for (const v of [i.principal, i.interest, i.balance, i.paid!, i.outstanding!])
          expect(Number(v)).toBeGreaterThanOrEqual(0);
      }
      const paidIn = json.transactions!.reduce(
        (s, t) => s + Math.round((Number(t.principal) + Number(t.interest)) * 100),
        0,
      );
      const paidOut = json.installments.reduce((s, i) => s + Math.round(Number(i.paid) * 100), 0);
      expect(paidOut).toBe(paidIn);
    }
  });

  it('the pre-closure amount closes the loan', () => {
    const parsed = parseRecalculationTerms({ ...terms, transactions: [] });
    const quote = preClosureAmount(parsed.terms, parsed.recalculation, [], '2024-03-20');
    const closed = previewSchedule({
      ...terms,
      transactions: [{ type: 'REPAYMENT', date: '2024-03-20', amount: (Number(quote.total) / 100).toFixed(2) }],
      asOf: '2024-03-20',
    });
    // Overdue installments are paid first; everything scheduled is then paid.
    expect(closed.totals.outstanding).toBe('0.00');
  });

  it('refuses options the progressive engine does not have', () => {
    expect(() => previewSchedule({ ...terms, interestRecalculation: { compounding: 'INTEREST' } })).toThrow(/compound/);
    expect(() => previewSchedule({ ...terms, interestRecalculation: { restFrequency: 'WEEKLY' } })).toThrow(
      /restFrequency/,
    );
    expect(() =>
      previewSchedule({ ...terms, transactions: [{ type: 'REPAYMENT', date: '2023-12-01', amount: '1' }] }),
    ).toThrow(/before the disbursement/);
  });

  it('leaves a schedule without recalculation exactly as before', () => {
    const { interestRecalculation: _r, transactions: _t, ...plainTerms } = terms;
    const json = previewSchedule(plainTerms);
    expect(json.transactions).toBeUndefined();
    expect(json.installments[0]).not.toHaveProperty('paid');
  });
});

describe('recalculating products', () => {
  it('the simulator fragment is a valid product; a cumulative one is refused naming the field', async () => {
    const { checkProduct } = await import('#lib/lending/product-admin.ts');
    const { recalculationProduct } = await import('#lib/simulator/features/recalculation.ts');
    expect(() => checkProduct(recalculationProduct('USD', 2))).not.toThrow();
    const cumulative = { ...recalculationProduct('USD', 2), scheduleType: 'CUMULATIVE' as const };
    expect(() => checkProduct(cumulative)).toThrow(
      expect.objectContaining({ field: 'recalculationRescheduleStrategy' }),
    );
    const compounding = { ...recalculationProduct('USD', 2), recalculationCompounding: 'INTEREST' as const };
    expect(() => checkProduct(compounding)).toThrow(expect.objectContaining({ field: 'recalculationCompounding' }));
  });
});
