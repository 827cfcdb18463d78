import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { previewSchedule } from '#lib/schedule/index.ts';
import { parseRecalculationTerms, recalculateSchedule, recalculatedToJson } from '#lib/schedule/recalculation.ts';

/**
 * Interest recalculation on cumulative schedules against Apache Fineract's ClientLoanIntegrationTest
 * (tests/fixtures/fineract-cumulative-recalculation-cases.json, each case citing its test and lines).
 * Every case runs through the engine and the terms contract (previewSchedule); one through the CLI process.
 */
type Case = {
  id: string;
  source: { path: string; test: string; lines: string };
  terms: Record<string, unknown>;
  expected: {
    installments: {
      number: number;
      dueDate: string;
      balance: string;
      principal: string;
      interest: string;
      paid: string;
    }[];
    transactions?: { date: string; amount: string; principal: string; interest: string }[];
    preClosure?: Partial<Record<'principal' | 'interest' | 'total', string>>;
  };
};

const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/fineract-cumulative-recalculation-cases.json', import.meta.url), 'utf8'),
) as { cases: Case[] };

function check(json: ReturnType<typeof previewSchedule>, c: Case) {
  const got = json.installments.map((i) => ({
    number: i.number,
    dueDate: i.dueDate,
    balance: i.balance,
    principal: i.principal,
    interest: i.interest,
    paid: i.paid,
  }));
  expect(got).toEqual(c.expected.installments);
  for (const tx of c.expected.transactions ?? []) {
    const found = json.transactions?.find((t) => t.date === tx.date);
    expect(found, `transaction on ${tx.date}`).toBeDefined();
    expect({
      date: found!.date,
      amount: found!.amount,
      principal: found!.principal,
      interest: found!.interest,
    }).toEqual(tx);
  }
  if (c.expected.preClosure) {
    expect(json.preClosure).toBeDefined();
    for (const [key, value] of Object.entries(c.expected.preClosure)) {
      expect(json.preClosure![key as 'principal'], key).toBe(value);
    }
  }
}

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
    const dir = mkdtempSync(join(tmpdir(), 'recalc-cum-'));
    const file = join(dir, 'terms.json');
    writeFileSync(file, JSON.stringify(c.terms));
    check(JSON.parse(execFileSync('npx', ['node', 'scripts/schedule.ts', file], { encoding: 'utf8' })), c);
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
      ['interestRecalculation.restFrequency', { restFrequency: 'DAILY' }],
      ['interestRecalculation.compounding', { compounding: 'INTEREST' }],
      ['interestRecalculation.rescheduleStrategy', { rescheduleStrategy: 'RESCHEDULE_NEXT_REPAYMENTS' }],
    ];
    for (const [field, patch] of cases) {
      const terms = base();
      terms.interestRecalculation = { ...(terms.interestRecalculation as object), ...patch };
      expect(() => recalculateSchedule(parseRecalculationTerms(terms))).toThrow(field);
    }
  });
});

describe('recalculating cumulative products', () => {
  it('accepts the supported combination and refuses the rest naming the product field', async () => {
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
    expect(() => checkProduct({ ...supported, recalculationRestFrequency: 'DAILY' })).toThrow(
      expect.objectContaining({ field: 'recalculationRestFrequency' }),
    );
    expect(() => checkProduct({ ...supported, recalculationRescheduleStrategy: 'RESCHEDULE_NEXT_REPAYMENTS' })).toThrow(
      expect.objectContaining({ field: 'recalculationRescheduleStrategy' }),
    );
    expect(() => checkProduct({ ...supported, amortization: 'EQUAL_PRINCIPAL' })).toThrow(
      expect.objectContaining({ field: 'amortization' }),
    );
  });
});
