import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatMinor, parseMinor } from '#lib/money/money.ts';
import { allocatePayment, DEFAULT_ADVANCED_ALLOCATION, previewSchedule } from '#lib/schedule/index.ts';
import type { AdvancedAllocation, AllocationStrategyCode, OutstandingInstallment } from '#lib/schedule/index.ts';
import { scheduleThroughCli } from '../support/recalculation-cases.ts';

/**
 * Charges after maturity (Fineract's N+1 installment), case by case from Apache Fineract's own tests
 * (tests/fixtures/fineract-charge-after-maturity-cases.json: each case cites its file, test and lines).
 * The schedule comes from the engine (previewSchedule, some through the CLI); the repayments are then
 * split by allocatePayment with the product's strategy, as a loan's repayments are.
 */
type Row = Record<string, string | number | boolean>;
type Event =
  | { type: 'REPAYMENT'; date: string; amount: string }
  | { type: 'WAIVE'; date: string; installment: number; fees?: string; penalties?: string };
type Case = {
  id: string;
  source: { path: string; test: string; lines: string };
  terms: Record<string, unknown>;
  allocation: {
    strategy: AllocationStrategyCode;
    processing?: AdvancedAllocation['processing'];
    futureInstallmentRule?: AdvancedAllocation['futureInstallmentRule'];
  };
  events: Event[];
  expected: {
    installments: Row[];
    transactions?: Record<string, string>[];
    outstanding: string;
  };
  cli?: boolean;
};

const doc = JSON.parse(readFileSync('tests/fixtures/fineract-charge-after-maturity-cases.json', 'utf8')) as {
  cases: Case[];
};
const cases = doc.cases;

/** Every case is in a two-digit currency (EUR, USD). */
const minor = (value: string) => parseMinor(value, 2);

/** The schedule JSON, then every event in order; the installments with what was paid and is still owed. */
function run(c: Case, schedule: ReturnType<typeof previewSchedule>) {
  const f = (v: bigint) => formatMinor(v, 2);
  const owed: OutstandingInstallment[] = schedule.installments.map((i) => ({
    number: i.number,
    dueDate: i.dueDate,
    principal: minor(i.principal),
    interest: minor(i.interest),
    fees: minor(i.fees),
    penalties: minor(i.penalties),
  }));
  const paid = new Map<number, bigint>();
  const transactions: Record<string, string>[] = [];
  const advanced: AdvancedAllocation = {
    order: DEFAULT_ADVANCED_ALLOCATION.order,
    processing: c.allocation.processing ?? 'HORIZONTAL',
    futureInstallmentRule: c.allocation.futureInstallmentRule ?? 'NEXT_INSTALLMENT',
  };
  let state = owed;
  for (const e of c.events) {
    if (e.type === 'WAIVE') {
      state = state.map((i) =>
        i.number === e.installment
          ? {
              ...i,
              fees: i.fees - minor(e.fees ?? '0'),
              penalties: i.penalties - minor(e.penalties ?? '0'),
            }
          : i,
      );
      continue;
    }
    const result = allocatePayment({
      installments: state,
      amount: minor(e.amount),
      date: e.date,
      strategy: c.allocation.strategy,
      advanced,
    });
    for (const part of result.parts)
      paid.set(
        part.installmentNumber,
        (paid.get(part.installmentNumber) ?? 0n) + part.principal + part.interest + part.fees + part.penalties,
      );
    transactions.push({
      date: e.date,
      amount: e.amount.includes('.') ? e.amount : `${e.amount}.00`,
      principal: f(result.principal),
      interest: f(result.interest),
      fees: f(result.fees),
      penalties: f(result.penalties),
      excess: f(result.excess),
    });
    state = result.remaining;
  }
  const installments = schedule.installments.map((i, k) => {
    const left = state[k];
    const row: Row = {
      number: i.number,
      dueDate: i.dueDate,
      principal: i.principal,
      interest: i.interest,
      fees: i.fees,
      penalties: i.penalties,
      total: i.total,
      paid: f(paid.get(i.number) ?? 0n),
      outstanding: f(left.principal + left.interest + left.fees + left.penalties),
    };
    if (i.additional) row.additional = true;
    return row;
  });
  const outstanding = f(state.reduce((s, i) => s + i.principal + i.interest + i.fees + i.penalties, 0n));
  return { installments, transactions, outstanding };
}

function check(c: Case, schedule: ReturnType<typeof previewSchedule>) {
  const got = run(c, schedule);
  expect(got.installments).toEqual(c.expected.installments);
  for (const t of c.expected.transactions ?? []) expect(got.transactions).toContainEqual(t);
  expect(got.outstanding).toBe(c.expected.outstanding);
}

describe('Fineract charge-after-maturity cases (N+1 installment)', () => {
  it('holds the cases, each citing its source', () => {
    expect(cases.length).toBeGreaterThanOrEqual(20);
    for (const c of cases) expect(c.source.path && c.source.test && c.source.lines).toBeTruthy();
  });

  for (const c of cases) {
    it(`${c.id} (${c.source.test}, lines ${c.source.lines})`, () => check(c, previewSchedule(c.terms)));
  }

  for (const c of cases.filter((x) => x.cli)) {
    it(`${c.id} through the CLI (npm run -s schedule)`, () => check(c, scheduleThroughCli(c.terms)));
  }
});

describe('charges after maturity: contract rules', () => {
  const base = {
    principal: '1000',
    currency: 'EUR',
    annualInterestRate: '12',
    numberOfRepayments: 3,
    disbursementDate: '2024-01-01',
  };

  it('leaves a schedule whose charges all fall inside it without an N+1 installment', () => {
    const s = previewSchedule({
      ...base,
      charges: [{ timing: 'SPECIFIED_DUE_DATE', amount: '7', dueDate: '2024-04-01' }],
    });
    expect(s.installments).toHaveLength(3);
    expect(s.installments.some((i) => 'additional' in i)).toBe(false);
    expect(s.installments[2].fees).toBe('7.00');
  });

  it('puts every charge after maturity on one N+1 installment due on the latest date, on an interest-bearing loan too', () => {
    const s = previewSchedule({
      ...base,
      charges: [
        { timing: 'SPECIFIED_DUE_DATE', amount: '7', dueDate: '2024-04-20' },
        { timing: 'SPECIFIED_DUE_DATE', type: 'PENALTY', amount: '3', dueDate: '2024-04-02' },
        { timing: 'INSTALLMENT', amount: '1' },
      ],
    });
    expect(s.installments).toHaveLength(4);
    expect(s.installments[3]).toEqual({
      number: 4,
      fromDate: '2024-04-01',
      dueDate: '2024-04-20',
      principal: '0.00',
      interest: '0.00',
      fees: '7.00',
      penalties: '3.00',
      total: '10.00',
      balance: '0.00',
      downPayment: false,
      additional: true,
    });
    // An installment fee is not charged on the N+1 installment.
    expect(s.installments.slice(0, 3).map((i) => i.fees)).toEqual(['1.00', '1.00', '1.00']);
    expect(s.totals.fees).toBe('10.00');
    expect(s.totals.penalties).toBe('3.00');
  });

  it('still refuses a charge dated before the disbursement, naming the field', () => {
    expect(() =>
      previewSchedule({ ...base, charges: [{ timing: 'SPECIFIED_DUE_DATE', amount: '7', dueDate: '2023-12-31' }] }),
    ).toThrow(/charges\[0\]\.dueDate: must not fall before the disbursement/);
  });

  it('refuses a charge after maturity with interest recalculation (cumulative and progressive), by name', () => {
    for (const scheduleType of ['CUMULATIVE', 'PROGRESSIVE']) {
      const terms = {
        ...base,
        scheduleType,
        interestRecalculation: {},
        charges: [{ timing: 'SPECIFIED_DUE_DATE', amount: '7', dueDate: '2024-05-01' }],
      };
      expect(() => previewSchedule(terms)).toThrow(
        /charges\[0\]\.dueDate: a charge after the last due date \(2024-04-01\) is not supported with interest recalculation/,
      );
    }
  });
});
