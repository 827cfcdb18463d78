import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { previewSchedule } from '#lib/schedule/index.ts';

/**
 * Properties of the engine's deeper features taken together (issue 17): whatever the charges,
 * tranches and repayments, the money adds up to the cent and nothing goes negative.
 */
const cents = (text: string) => BigInt(text.replace('.', ''));
const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n);
const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

type Json = ReturnType<typeof previewSchedule>;

/** Repayments near each due date (shifted by days), each a share (factor / 100 %) of that installment. */
function repaymentsAround(
  plan: Json['installments'],
  moves: { shift: number; factor: number }[],
  disbursementDate: string,
): { type: string; date: string; amount: string }[] {
  let last = disbursementDate;
  return moves.slice(0, plan.length).map((m, k) => {
    let date = addDays(plan[k].dueDate, m.shift);
    if (date <= last) date = addDays(last, 1);
    last = date;
    const amount = ((Number(cents(plan[k].total)) * m.factor) / 10_000).toFixed(2);
    return { type: 'REPAYMENT', date, amount: Number(amount) > 0 ? amount : '1.00' };
  });
}

function checkAddsUp(out: Json, principal: bigint) {
  const rows = out.installments;
  expect(sum(rows.map((r) => cents(r.principal)))).toBe(principal);
  for (const r of rows) {
    for (const part of [r.principal, r.interest, r.fees, r.penalties, r.balance]) expect(cents(part) >= 0n).toBe(true);
    expect(cents(r.total)).toBe(cents(r.principal) + cents(r.interest) + cents(r.fees) + cents(r.penalties));
  }
  for (const key of ['principal', 'interest', 'fees', 'penalties', 'total'] as const) {
    expect(cents(out.totals[key])).toBe(sum(rows.map((r) => cents(r[key]))));
  }
  expect(cents(rows.at(-1)!.balance)).toBe(0n);
}

/**
 * Two tranches of `units`: the first `share` % on the disbursement date, the rest somewhere before the
 * plan's last due date (`where` per mille of the way; on a due date now and then).
 */
function twoTranches(
  units: number,
  share: number,
  where: number,
  plan: Json['installments'],
  disbursementDate: string,
) {
  const first = BigInt(Math.max(1, Math.floor((units * share) / 100))) * 100n;
  const second = BigInt(units) * 100n - first;
  const lastDue = plan.at(-1)!.dueDate;
  const span = Math.round((Date.parse(lastDue) - Date.parse(disbursementDate)) / 86_400_000);
  const trancheDate = addDays(disbursementDate, 1 + Math.floor(((span - 2) * where) / 1000));
  const disbursements = [
    { date: disbursementDate, amount: `${first / 100n}.00` },
    ...(second > 0n ? [{ date: trancheDate, amount: `${second / 100n}.00` }] : []),
  ];
  return { lent: first + second, trancheDate, disbursements };
}

/** A recalculated tranche loan: every tranche owed, paid + outstanding = due, payments split, quote sound. */
function checkTranchesRecalculated(out: Json, transactions: { amount: string }[], lent: bigint) {
  const rows = out.installments;
  expect(sum(rows.map((r) => cents(r.principal)))).toBe(lent);
  for (const r of rows) {
    for (const part of [r.principal, r.interest, r.balance, r.paid!, r.outstanding!])
      expect(cents(part) >= 0n).toBe(true);
    expect(cents(r.paid!) + cents(r.outstanding!)).toBe(cents(r.total));
  }
  const paidIn = sum(transactions.map((t) => cents(t.amount)));
  const split = sum(out.transactions!.map((t) => cents(t.principal) + cents(t.interest) + cents(t.excess)));
  expect(split).toBe(paidIn);
  const quote = out.preClosure!;
  for (const part of [quote.principal, quote.interest, quote.total]) expect(cents(part) >= 0n).toBe(true);
  expect(cents(quote.total)).toBe(cents(quote.principal) + cents(quote.interest));
  // The quote's principal is what the repayments left of both tranches (both lent by then).
  const principalPaid = sum(out.transactions!.map((t) => cents(t.principal)));
  expect(cents(quote.principal)).toBe(lent - principalPaid);
}

/** The tranche split and the repayments of a two-tranche property run. */
type TrancheRun = { share: number; where: number; moves: { shift: number; factor: number }[]; quoteAfter: number };

const trancheRun = fc.record({
  share: fc.integer({ min: 10, max: 90 }),
  where: fc.integer({ min: 0, max: 1000 }),
  moves: fc.array(fc.record({ shift: fc.integer({ min: -25, max: 45 }), factor: fc.integer({ min: 10, max: 300 }) }), {
    minLength: 1,
    maxLength: 8,
  }),
  quoteAfter: fc.integer({ min: 0, max: 60 }),
});

/** The loan of `terms` paid out in two tranches, repaid around its due dates, recalculated and checked. */
function recalculateTwoTranches(
  terms: Record<string, unknown> & { principal: string; disbursementDate: string },
  interestRecalculation: Record<string, unknown>,
  run: TrancheRun,
): Json {
  const plan = previewSchedule(terms).installments;
  const units = Number(terms.principal.split('.')[0]);
  const { lent, trancheDate, disbursements } = twoTranches(units, run.share, run.where, plan, terms.disbursementDate);
  const transactions = repaymentsAround(plan, run.moves, terms.disbursementDate);
  const last = transactions.at(-1)!.date;
  const out = previewSchedule({
    ...terms,
    disbursements,
    interestRecalculation,
    transactions,
    asOf: addDays(last > trancheDate ? last : trancheDate, run.quoteAfter),
  });
  checkTranchesRecalculated(out, transactions, lent);
  return out;
}

const base = fc.record({
  units: fc.integer({ min: 1_000, max: 50_000 }),
  rate: fc.integer({ min: 0, max: 3600 }).map((x) => (x / 100).toString()),
  n: fc.integer({ min: 3, max: 36 }),
  day: fc.integer({ min: 0, max: 1500 }),
  scheduleType: fc.constantFrom('CUMULATIVE', 'PROGRESSIVE'),
});

/** The terms every property starts from: `units` at `rate` % over `n` periods, interest by the day. */
function baseTerms(b: { units: number; rate: string; n: number; day: number; scheduleType: string }) {
  return {
    principal: `${b.units}.00`,
    currency: 'EUR',
    annualInterestRate: b.rate,
    numberOfRepayments: b.n,
    disbursementDate: addDays('2023-01-01', b.day),
    scheduleType: b.scheduleType,
    interestCalculationPeriod: 'DAILY',
  };
}

describe('engine depth properties (fast-check)', () => {
  it('charges: fees land on installments and totals, the principal is untouched', () => {
    fc.assert(
      fc.property(
        base,
        fc.constantFrom('FLAT', 'PERCENT_OF_AMOUNT', 'PERCENT_OF_AMOUNT_AND_INTEREST', 'PERCENT_OF_INTEREST'),
        fc.integer({ min: 1, max: 500 }).map((x) => (x / 100).toFixed(2)),
        fc.boolean(),
        (b, calculation, amount, withDisbursementFee) => {
          const terms = baseTerms(b);
          const plain = previewSchedule(terms);
          const charged = previewSchedule({
            ...terms,
            charges: [
              { type: 'FEE', timing: 'INSTALLMENT', calculation, amount },
              ...(withDisbursementFee
                ? [{ type: 'FEE', timing: 'DISBURSEMENT', calculation: 'PERCENT_OF_AMOUNT', amount: '1' }]
                : []),
            ],
          });
          checkAddsUp(charged, BigInt(b.units) * 100n);
          // Charges never change principal, interest or dates.
          expect(charged.installments.map((r) => [r.dueDate, r.principal, r.interest])).toEqual(
            plain.installments.map((r) => [r.dueDate, r.principal, r.interest]),
          );
          for (const r of charged.installments) expect(cents(r.fees) >= 0n).toBe(true);
          if (withDisbursementFee) expect(cents(charged.disbursement!.fees)).toBe(BigInt(b.units));
          else expect(charged.disbursement).toBeUndefined();
        },
      ),
      { numRuns: 150 },
    );
  });

  it('charges after maturity: one N+1 installment due on the latest of them carries them all, nothing else moves', () => {
    fc.assert(
      fc.property(
        base,
        fc.array(
          fc.record({
            after: fc.integer({ min: 1, max: 400 }),
            cents: fc.integer({ min: 1, max: 50_000 }),
            type: fc.constantFrom('FEE', 'PENALTY'),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        fc.integer({ min: 0, max: 2 }),
        (b, late, inside) => {
          const terms = baseTerms(b);
          const plain = previewSchedule(terms);
          const maturity = plain.installments.at(-1)!.dueDate;
          const amount = (c: number) => (c / 100).toFixed(2);
          // Charges inside the schedule too (on the first installments' due dates): they stay where they are.
          const within = plain.installments.slice(0, inside).map((r) => ({
            type: 'FEE',
            timing: 'SPECIFIED_DUE_DATE',
            calculation: 'FLAT',
            amount: '10.00',
            dueDate: r.dueDate,
          }));
          const after = late.map((c) => ({
            type: c.type,
            timing: 'SPECIFIED_DUE_DATE',
            calculation: 'FLAT',
            amount: amount(c.cents),
            dueDate: addDays(maturity, c.after),
          }));
          const out = previewSchedule({ ...terms, charges: [...within, ...after] });
          checkAddsUp(out, BigInt(b.units) * 100n);
          const rows = out.installments;
          expect(rows).toHaveLength(plain.installments.length + 1);
          const extra = rows.at(-1)!;
          expect(extra.additional).toBe(true);
          expect(rows.filter((r) => r.additional)).toHaveLength(1);
          expect(extra.fromDate).toBe(maturity);
          expect(extra.dueDate).toBe(addDays(maturity, Math.max(...late.map((c) => c.after))));
          expect([cents(extra.principal), cents(extra.interest)]).toEqual([0n, 0n]);
          const fees = late.filter((c) => c.type === 'FEE').reduce((s, c) => s + BigInt(c.cents), 0n);
          const penalties = late.filter((c) => c.type === 'PENALTY').reduce((s, c) => s + BigInt(c.cents), 0n);
          expect([cents(extra.fees), cents(extra.penalties)]).toEqual([fees, penalties]);
          // The regular installments keep their dates, principal and interest; only the inside fees land on them.
          expect(rows.slice(0, -1).map((r) => [r.dueDate, r.principal, r.interest])).toEqual(
            plain.installments.map((r) => [r.dueDate, r.principal, r.interest]),
          );
          expect(sum(rows.slice(0, -1).map((r) => cents(r.fees)))).toBe(BigInt(within.length) * 1000n);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('tranches: every tranche is repaid, balances never go negative', () => {
    fc.assert(
      fc.property(base, fc.integer({ min: 10, max: 90 }), fc.integer({ min: 1, max: 50 }), (b, share, later) => {
        const disbursementDate = addDays('2023-01-01', b.day);
        const total = BigInt(b.units) * 100n;
        const first = (total * BigInt(share)) / 100n;
        const tranches = [
          { date: disbursementDate, amount: (Number(first) / 100).toFixed(2) },
          { date: addDays(disbursementDate, later), amount: (Number(total - first) / 100).toFixed(2) },
        ];
        const out = previewSchedule({
          principal: `${b.units}.00`,
          currency: 'EUR',
          annualInterestRate: b.rate,
          numberOfRepayments: b.n,
          disbursementDate,
          scheduleType: b.scheduleType,
          interestCalculationPeriod: 'DAILY',
          disbursements: tranches,
        });
        checkAddsUp(out, total);
        expect(out.disbursements?.map((d) => d.amount)).toEqual(tranches.map((t) => t.amount));
      }),
      { numRuns: 150 },
    );
  });

  it('recalculation with charges-free progressive loans: paid + outstanding = due, never negative', () => {
    fc.assert(
      fc.property(
        base,
        fc.array(fc.record({ shift: fc.integer({ min: -20, max: 40 }), factor: fc.integer({ min: 20, max: 250 }) }), {
          minLength: 1,
          maxLength: 8,
        }),
        (b, moves) => {
          const disbursementDate = addDays('2023-01-01', b.day);
          const terms = {
            principal: `${b.units}.00`,
            currency: 'EUR',
            annualInterestRate: b.rate,
            numberOfRepayments: b.n,
            disbursementDate,
            scheduleType: 'PROGRESSIVE',
            interestCalculationPeriod: 'DAILY',
            daysInYear: 360,
            daysInMonth: 30,
          };
          const transactions = repaymentsAround(previewSchedule(terms).installments, moves, disbursementDate);
          const last = transactions.at(-1)!.date;
          const out = previewSchedule({
            ...terms,
            interestRecalculation: { restFrequency: 'DAILY', compounding: 'NONE' },
            transactions,
            asOf: addDays(last, 1),
          });
          const rows = out.installments;
          expect(sum(rows.map((r) => cents(r.principal)))).toBe(BigInt(b.units) * 100n);
          for (const r of rows) {
            expect(cents(r.outstanding!) >= 0n).toBe(true);
            expect(cents(r.paid!) + cents(r.outstanding!)).toBe(cents(r.total));
          }
          // Money in = money allocated + excess.
          const paidIn = sum(transactions.map((t) => cents(t.amount)));
          const split = sum(out.transactions!.map((t) => cents(t.principal) + cents(t.interest) + cents(t.excess)));
          expect(split).toBe(paidIn);
          expect(cents(out.preClosure!.total) >= 0n).toBe(true);
        },
      ),
      { numRuns: 100 },
    );
  });
  it('cumulative recalculation with rests, compounding, every strategy, interest first or not: money adds up, never negative', () => {
    const frequencies = ['SAME_AS_REPAYMENT_PERIOD', 'DAILY', 'WEEKLY', 'MONTHLY'] as const;
    fc.assert(
      fc.property(
        base,
        fc.record({
          every: fc.constantFrom('WEEKS', 'MONTHS'),
          rest: fc.constantFrom(...frequencies),
          restInterval: fc.integer({ min: 1, max: 3 }),
          compounding: fc.constantFrom('NONE', 'INTEREST', 'FEE', 'INTEREST_AND_FEE'),
          compoundingFrequency: fc.constantFrom(...frequencies),
          compoundingInterval: fc.integer({ min: 1, max: 2 }),
          strategy: fc.constantFrom('REDUCE_EMI_AMOUNT', 'REDUCE_NUMBER_OF_INSTALLMENTS', 'RESCHEDULE_NEXT_REPAYMENTS'),
          preClosure: fc.constantFrom('TILL_PRE_CLOSURE_DATE', 'TILL_REST_FREQUENCY_DATE'),
          fee: fc.integer({ min: 0, max: 3000 }),
          // An interest-first strategy splits a period at a repayment between due dates.
          allocation: fc.constantFrom('mifos-standard-strategy', 'rbi-india-strategy'),
        }),
        fc.array(fc.record({ shift: fc.integer({ min: -20, max: 40 }), factor: fc.integer({ min: 20, max: 300 }) }), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.integer({ min: 0, max: 60 }),
        (b, o, moves, lookAfter) => {
          const disbursementDate = addDays('2023-01-01', b.day);
          const terms = {
            principal: `${b.units}.00`,
            currency: 'EUR',
            annualInterestRate: b.rate,
            numberOfRepayments: Math.min(b.n, 12),
            repaymentFrequency: o.every,
            disbursementDate,
            scheduleType: 'CUMULATIVE',
            allocationStrategy: o.allocation,
            ...(o.fee > 0
              ? {
                  charges: [
                    { type: 'FEE', timing: 'INSTALLMENT', calculation: 'FLAT', amount: (o.fee / 100).toFixed(2) },
                  ],
                }
              : {}),
          };
          const transactions = repaymentsAround(previewSchedule(terms).installments, moves, disbursementDate);
          const last = transactions.at(-1)!.date;
          const out = previewSchedule({
            ...terms,
            interestRecalculation: {
              restFrequency: o.rest,
              restInterval: o.restInterval,
              compounding: o.compounding,
              ...(o.compounding === 'NONE'
                ? {}
                : { compoundingFrequency: o.compoundingFrequency, compoundingInterval: o.compoundingInterval }),
              rescheduleStrategy: o.strategy,
              preClosureStrategy: o.preClosure,
            },
            transactions,
            asOf: addDays(last, lookAfter),
          });
          const rows = out.installments;
          expect(sum(rows.map((r) => cents(r.principal)))).toBe(BigInt(b.units) * 100n);
          for (const r of rows) {
            for (const part of [r.principal, r.interest, r.fees, r.paid!, r.outstanding!])
              expect(cents(part) >= 0n).toBe(true);
            expect(cents(r.paid!) + cents(r.outstanding!)).toBe(cents(r.total));
          }
          const paidIn = sum(transactions.map((t) => cents(t.amount)));
          const split = sum(
            out.transactions!.map(
              (t) =>
                cents(t.principal) +
                cents(t.interest) +
                cents(t.fees ?? '0.00') +
                cents(t.penalties ?? '0.00') +
                cents(t.excess),
            ),
          );
          expect(split).toBe(paidIn);
          const pre = out.preClosure!;
          expect(cents(pre.total) >= 0n && cents(pre.interest) >= 0n).toBe(true);
          // The quote never asks for less principal than is still owed.
          expect(cents(pre.principal)).toBe(
            sum(rows.map((r) => cents(r.principal))) - sum(out.transactions!.map((t) => cents(t.principal))),
          );
        },
      ),
      { numRuns: 120 },
    );
  });

  it('two-tranche recalculating progressive loans: every tranche owed, paid + outstanding = due, quote never negative', () => {
    fc.assert(
      fc.property(
        base,
        trancheRun,
        fc.constantFrom('DAILY', 'SAME_AS_REPAYMENT_PERIOD'),
        fc.constantFrom('TILL_PRE_CLOSURE_DATE', 'TILL_REST_FREQUENCY_DATE'),
        fc.constantFrom({ daysInYear: 360, daysInMonth: 30 }, { daysInYear: 'ACTUAL', daysInMonth: 'ACTUAL' }),
        (b, run, restFrequency, preClosureStrategy, days) => {
          const terms = {
            principal: `${b.units}.00`,
            currency: 'EUR',
            annualInterestRate: b.rate,
            numberOfRepayments: Math.min(b.n, 18),
            disbursementDate: addDays('2023-01-01', b.day),
            scheduleType: 'PROGRESSIVE',
            interestCalculationPeriod: 'DAILY',
            ...days,
          };
          recalculateTwoTranches(terms, { restFrequency, preClosureStrategy }, run);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('two-tranche recalculating cumulative loans: principal due = disbursed, paid + outstanding = due, quote never negative', () => {
    fc.assert(
      fc.property(
        base,
        trancheRun,
        fc.record({
          rest: fc.constantFrom('SAME_AS_REPAYMENT_PERIOD', 'DAILY', 'WEEKLY', 'MONTHLY'),
          period: fc.constantFrom('DAILY', 'SAME_AS_REPAYMENT_PERIOD'),
          strategy: fc.constantFrom('REDUCE_EMI_AMOUNT', 'REDUCE_NUMBER_OF_INSTALLMENTS', 'RESCHEDULE_NEXT_REPAYMENTS'),
          preClosure: fc.constantFrom('TILL_PRE_CLOSURE_DATE', 'TILL_REST_FREQUENCY_DATE'),
        }),
        (b, run, o) => {
          const terms = {
            principal: `${b.units}.00`,
            currency: 'EUR',
            annualInterestRate: b.rate,
            numberOfRepayments: Math.min(b.n, 12),
            repaymentFrequency: 'MONTHS',
            disbursementDate: addDays('2023-01-01', b.day),
            scheduleType: 'CUMULATIVE',
            interestCalculationPeriod: o.period,
          };
          const recalculation = {
            restFrequency: o.rest,
            rescheduleStrategy: o.strategy,
            preClosureStrategy: o.preClosure,
          };
          const out = recalculateTwoTranches(terms, recalculation, run);
          expect(cents(out.installments.at(-1)!.balance)).toBe(0n);
        },
      ),
      { numRuns: 100 },
    );
  });
});
