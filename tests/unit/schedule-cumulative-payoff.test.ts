import { describe, expect, it } from 'vitest';
import { parseRecalculationTerms, recalculateSchedule } from '#lib/schedule/recalculation.ts';
// The cumulative engine registers itself with recalculateSchedule (the entry point of loans) on import.
import '#lib/schedule/recalculation-cumulative.ts';
import { loadRecalculationCases } from '../support/recalculation-cases.ts';

/**
 * A repayment of the pre-closure quote between two due dates closes a recalculating cumulative loan
 * (Fineract's rule in its cumulative generator: the period's interest is worked out again up to the
 * payment's day, or its rest date, when the payment leaves no more principal than the interest it
 * saves). Fineract's ClientLoanIntegrationTest asserts it for rests SAME_AS_REPAYMENT_PERIOD (the
 * `preclose-*-payoff` cases of fineract-cumulative-recalculation-cases.json); here every rest
 * frequency and both pre-closure strategies, on one disbursement and on two tranches.
 */

// Fineract's cumulative recalculation product (fineract-cumulative-recalculation-cases.json), made a
// 6-month loan with daily interest so that weekly and monthly rests fall inside its periods.
const base = {
  ...loadRecalculationCases('fineract-cumulative-recalculation-cases.json')[0].terms,
  annualInterestRate: '12',
  numberOfRepayments: 6,
  repaymentFrequency: 'MONTHS',
  disbursementDate: '2024-01-15',
  interestCalculationPeriod: 'DAILY',
  daysInYear: '365',
  daysInMonth: 'ACTUAL',
};
const tranches = [
  { date: '2024-01-15', amount: '6000' },
  { date: '2024-02-27', amount: '4000' },
];

type Terms = Record<string, unknown>;
const run = (terms: Terms) => recalculateSchedule(parseRecalculationTerms(terms));
const money = (minor: bigint) => `${minor / 100n}.${String(minor % 100n).padStart(2, '0')}`;

function termsOf(restFrequency: string, preClosureStrategy: string, twoTranches: boolean): Terms {
  return {
    ...base,
    ...(twoTranches ? { disbursements: tranches } : {}),
    interestRecalculation: {
      restFrequency,
      compounding: 'NONE',
      rescheduleStrategy: 'REDUCE_EMI_AMOUNT',
      preClosureStrategy,
    },
  };
}

/** The first installment paid on its due date, then the quote of `date` (an early payment in between). */
function quoteOn(terms: Terms, date: string) {
  const plain = run({ ...terms, transactions: [], asOf: '2024-01-15' });
  const first = plain.installments[0];
  const transactions = [
    { type: 'REPAYMENT', date: first.dueDate, amount: money(first.total) },
    { type: 'REPAYMENT', date: '2024-03-05', amount: '500' },
  ];
  const quoted = run({ ...terms, transactions, asOf: date });
  return { transactions, quote: quoted.preClosure!.total, scheduled: quoted.installments };
}

const rests = ['SAME_AS_REPAYMENT_PERIOD', 'DAILY', 'WEEKLY', 'MONTHLY'];
const strategies = ['TILL_PRE_CLOSURE_DATE', 'TILL_REST_FREQUENCY_DATE'];
// Due dates fall on the 15th: 2024-03-22 and 2024-04-09 are strictly inside period 3 (one a week
// after its start, one a few days before its end), 2024-05-02 inside period 4; the second tranche
// (27 February) is paid out before all of them.
const dates = ['2024-03-22', '2024-04-09', '2024-05-02'];

describe('a pay-off of the quote between due dates closes a recalculating cumulative loan', () => {
  for (const twoTranches of [false, true])
    for (const restFrequency of rests)
      for (const preClosureStrategy of strategies)
        it(`${twoTranches ? 'two tranches' : 'one disbursement'}, ${restFrequency} rests, ${preClosureStrategy}`, () => {
          const terms = termsOf(restFrequency, preClosureStrategy, twoTranches);
          for (const date of dates) {
            const { transactions, quote, scheduled } = quoteOn(terms, date);
            expect(scheduled.some((i) => i.dueDate === date)).toBe(false);
            const paidOff = run({
              ...terms,
              transactions: [...transactions, { type: 'REPAYMENT', date, amount: money(quote) }],
              asOf: date,
            });
            for (const i of paidOff.installments) expect(i.outstanding, `${date} #${i.number}`).toBe(0n);
            expect(paidOff.totals.outstanding).toBe(0n);
            expect(paidOff.transactions.at(-1)!.excess).toBe(0n);
            // The closing installment falls due on the payment day; none follows it.
            expect(paidOff.installments.at(-1)!.dueDate).toBe(date);
            expect(paidOff.totals.principal).toBe(1000000n);

            // A cent short is no pay-off: the period keeps charging interest to its due date on the
            // principal paid early, so more than the cent is left, and the schedule runs on.
            const short = run({
              ...terms,
              transactions: [...transactions, { type: 'REPAYMENT', date, amount: money(quote - 1n) }],
              asOf: date,
            });
            expect(short.transactions.at(-1)!.excess).toBe(0n);
            expect(short.installments.some((i) => i.dueDate === date)).toBe(false);
            expect(short.totals.outstanding).toBeGreaterThanOrEqual(1n);
            expect(short.totals.paid).toBe(paidOff.totals.paid - 1n);
          }
        });

  it('a cent short leaves the cent plus the interest the pay-off would have saved as principal', () => {
    const terms = termsOf('DAILY', 'TILL_PRE_CLOSURE_DATE', false);
    const date = '2024-03-22';
    const { transactions, quote } = quoteOn(terms, date);
    const pay = (amount: bigint) =>
      run({
        ...terms,
        transactions: [...transactions, { type: 'REPAYMENT', date, amount: money(amount) }],
        asOf: date,
      });
    const paidOff = pay(quote);
    const short = pay(quote - 1n);
    const saved = short.installments[2].interest - paidOff.installments[2].interest;
    expect(saved).toBeGreaterThan(0n);
    // The third installment keeps its whole interest, paid out of the payment: the principal left is
    // the cent plus what the pay-off would have saved, and it bears interest of its own after.
    const principalLeft = short.installments.reduce((sum, i) => sum + i.principal - i.paidPrincipal, 0n);
    expect(principalLeft).toBe(saved + 1n);
    expect(short.totals.outstanding).toBeGreaterThan(principalLeft);
    expect(short.installments.at(-1)!.dueDate).toBe('2024-07-15');
  });

  it('an overpayment between due dates closes the loan too, the rest being excess', () => {
    const terms = termsOf('WEEKLY', 'TILL_PRE_CLOSURE_DATE', false);
    const date = '2024-04-09';
    const { transactions, quote } = quoteOn(terms, date);
    const s = run({
      ...terms,
      transactions: [...transactions, { type: 'REPAYMENT', date, amount: money(quote + 1234n) }],
      asOf: date,
    });
    expect(s.totals.outstanding).toBe(0n);
    expect(s.transactions.at(-1)!.excess).toBe(1234n);
    expect(s.installments.at(-1)!.dueDate).toBe(date);
  });
});
