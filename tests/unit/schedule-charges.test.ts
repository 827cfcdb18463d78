import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatMinor } from '#lib/money/money.ts';
import {
  chargeMoneyContext,
  generateSchedule,
  overduePenaltyAmount,
  overduePenaltyOccurrences,
  parseTerms,
  previewSchedule,
} from '#lib/schedule/index.ts';
import type { ChargeCalculation, ScheduleJson } from '#lib/schedule/index.ts';

/**
 * Charges in the schedule and overdue penalties, case by case from Apache Fineract's own tests
 * (tests/fixtures/fineract-charges-cases.json: each case cites its file, test and lines).
 */
type Totals = { principal: string; interest: string; fees: string; penalties: string; total: string };
type Case = {
  id: string;
  kind: 'schedule' | 'overduePenalty' | 'overdueAmount';
  source: { path: string; test: string; lines: string };
  terms?: Record<string, unknown>;
  penalty?: { calculation: ChargeCalculation; amount: string; graceDays?: number; frequency?: null };
  businessDate?: string;
  currency?: string;
  expected: any;
};

const cases: Case[] = JSON.parse(readFileSync('tests/fixtures/fineract-charges-cases.json', 'utf8'));

const add = (a: string, b: string) => formatMinor(BigInt(a.replace('.', '')) + BigInt(b.replace('.', '')), 2);

/** Fineract's Total row: our totals plus what is due at disbursement. */
function fineractTotals(s: ScheduleJson): Totals {
  const d = s.disbursement ?? { fees: '0.00', penalties: '0.00', total: '0.00' };
  return {
    principal: s.totals.principal,
    interest: s.totals.interest,
    fees: add(s.totals.fees, d.fees),
    penalties: add(s.totals.penalties, d.penalties),
    total: add(s.totals.total, d.total),
  };
}

describe('Fineract charge cases', () => {
  it('holds at least 8 cases, each citing its source', () => {
    expect(cases.length).toBeGreaterThanOrEqual(8);
    for (const c of cases) expect(c.source.path && c.source.test && c.source.lines).toBeTruthy();
  });

  for (const c of cases.filter((x) => x.kind === 'schedule')) {
    it(`${c.id} (${c.source.test})`, () => {
      const s = previewSchedule(c.terms);
      if (c.expected.installments) {
        expect(
          s.installments.map((i) => ({
            dueDate: i.dueDate,
            principal: i.principal,
            interest: i.interest,
            fees: i.fees,
            penalties: i.penalties,
            total: i.total,
          })),
        ).toEqual(c.expected.installments);
      }
      for (const [n, amount] of Object.entries((c.expected.installmentPenalties ?? {}) as Record<string, string>)) {
        expect(s.installments[Number(n) - 1].penalties).toBe(amount);
      }
      if (c.expected.disbursement) expect(s.disbursement).toEqual(c.expected.disbursement);
      else expect(s.disbursement).toBeUndefined();
      expect(fineractTotals(s)).toEqual(c.expected.fineractTotals);
    });
  }

  for (const c of cases.filter((x) => x.kind === 'overduePenalty')) {
    it(`${c.id} (${c.source.test})`, () => {
      const terms = parseTerms(c.terms);
      const schedule = generateSchedule(terms);
      const ctx = chargeMoneyContext(terms.digits);
      const penalty = c.penalty!;
      let penalties = 0n;
      for (const i of schedule.installments) {
        const occurrences = overduePenaltyOccurrences({
          dueDate: i.dueDate,
          businessDate: c.businessDate!,
          graceDays: penalty.graceDays,
          frequency: penalty.frequency ?? null,
        }).map((o) => {
          const amount = overduePenaltyAmount(ctx, penalty, i);
          penalties += amount;
          return { ...o, amount: formatMinor(amount, terms.digits) };
        });
        expect(occurrences).toEqual(c.expected.occurrences[String(i.number)]);
      }
      const t = schedule.totals;
      expect({
        principal: formatMinor(t.principal, 2),
        interest: formatMinor(t.interest, 2),
        fees: formatMinor(t.fees, 2),
        penalties: formatMinor(t.penalties + penalties, 2),
        total: formatMinor(t.total + penalties, 2),
      }).toEqual(c.expected.fineractTotals);
    });
  }

  for (const c of cases.filter((x) => x.kind === 'overdueAmount')) {
    it(`${c.id} (${c.source.test})`, () => {
      const ctx = chargeMoneyContext(2);
      for (const row of c.expected as { principal: string; interest: string; amount: string }[]) {
        const minor = (v: string) => BigInt(v.replace('.', ''));
        const amount = overduePenaltyAmount(ctx, c.penalty!, {
          principal: minor(row.principal),
          interest: minor(row.interest),
        });
        expect(formatMinor(amount, 2)).toBe(row.amount);
      }
    });
  }

  it('runs a case through the real CLI (npm run -s schedule)', () => {
    const c = cases.find((x) => x.id === 'fee01-disbursement-percent-fee')!;
    const dir = mkdtempSync(join(tmpdir(), 'charges-'));
    const file = join(dir, 'terms.json');
    writeFileSync(file, JSON.stringify(c.terms));
    const out = JSON.parse(execFileSync('npx', ['node', 'scripts/schedule.ts', file], { encoding: 'utf8' }));
    expect(out.disbursement).toEqual(c.expected.disbursement);
    expect(out.installments[0].total).toBe('1000.00');
  });
});

describe('charges: contract rules', () => {
  const base = {
    principal: '1000',
    currency: 'EUR',
    annualInterestRate: '12',
    numberOfRepayments: 3,
    disbursementDate: '2024-01-01',
  };

  it('leaves a schedule without charges exactly as before', () => {
    expect(previewSchedule({ ...base, charges: [] })).toEqual(previewSchedule(base));
    expect(previewSchedule(base)).not.toHaveProperty('disbursement');
  });

  it('refuses malformed charges, naming the field', () => {
    const bad = (charges: unknown) => () => previewSchedule({ ...base, charges });
    expect(bad({})).toThrow(/charges/);
    expect(bad([{ timing: 'NEVER', amount: '1' }])).toThrow(/charges\[0\]\.timing/);
    expect(bad([{ timing: 'INSTALLMENT', amount: '-1' }])).toThrow(/charges\[0\]\.amount/);
    expect(bad([{ timing: 'INSTALLMENT', amount: '1.001' }])).toThrow(/charges\[0\]\.amount/);
    expect(bad([{ timing: 'SPECIFIED_DUE_DATE', amount: '5' }])).toThrow(/charges\[0\]\.dueDate/);
    // Before the disbursement (a date after maturity gets an N+1 installment: schedule-charge-after-maturity.test.ts).
    expect(bad([{ timing: 'SPECIFIED_DUE_DATE', amount: '5', dueDate: '2023-12-31' }])).toThrow(
      /charges\[0\]\.dueDate/,
    );
    expect(bad([{ timing: 'DISBURSEMENT', type: 'PENALTY', amount: '5' }])).toThrow(/charges\[0\]\.type/);
  });

  it('skips a down payment for installment fees and sums charges per installment', () => {
    const s = previewSchedule({
      ...base,
      downPaymentPercent: '25',
      charges: [
        { timing: 'INSTALLMENT', calculation: 'FLAT', amount: '2.5' },
        { timing: 'INSTALLMENT', calculation: 'PERCENT_OF_INTEREST', amount: '10', type: 'PENALTY' },
      ],
    });
    expect(s.installments[0].downPayment).toBe(true);
    expect(s.installments[0].fees).toBe('0.00');
    for (const i of s.installments.slice(1)) {
      expect(i.fees).toBe('2.50');
      const interest = BigInt(i.interest.replace('.', ''));
      // 10% of the interest, half-even to the cent
      const tenth =
        interest / 10n + (interest % 10n > 5n || (interest % 10n === 5n && (interest / 10n) % 2n === 1n) ? 1n : 0n);
      expect(i.penalties).toBe(formatMinor(tenth, 2));
    }
    const sum = s.installments.reduce((a, i) => a + BigInt(i.total.replace('.', '')), 0n);
    expect(formatMinor(sum, 2)).toBe(s.totals.total);
  });

  it('a specified-due-date charge on a due date belongs to that installment, the day after to the next', () => {
    const terms = { ...base, firstRepaymentDate: '2024-02-01' };
    const onDue = previewSchedule({
      ...terms,
      charges: [{ timing: 'SPECIFIED_DUE_DATE', amount: '7', dueDate: '2024-02-01' }],
    });
    expect(onDue.installments.map((i) => i.fees)).toEqual(['7.00', '0.00', '0.00']);
    const after = previewSchedule({
      ...terms,
      charges: [{ timing: 'SPECIFIED_DUE_DATE', amount: '7', dueDate: '2024-02-02' }],
    });
    expect(after.installments.map((i) => i.fees)).toEqual(['0.00', '7.00', '0.00']);
  });
});

describe('overdue penalty occurrences (Fineract applyChargeToOverdueLoanInstallment date rule)', () => {
  it('nothing within the grace period, then once dated the due date', () => {
    const due = '2024-03-10';
    expect(overduePenaltyOccurrences({ dueDate: due, businessDate: '2024-03-10' })).toEqual([]);
    expect(overduePenaltyOccurrences({ dueDate: due, businessDate: '2024-03-11' })).toEqual([
      { occurrence: 1, date: due },
    ]);
    expect(overduePenaltyOccurrences({ dueDate: due, businessDate: '2024-03-13', graceDays: 3 })).toEqual([]);
    expect(overduePenaltyOccurrences({ dueDate: due, businessDate: '2024-03-14', graceDays: 3 })).toEqual([
      { occurrence: 1, date: due },
    ]);
  });

  it('recurring: one more occurrence every interval after the first trigger day', () => {
    const got = overduePenaltyOccurrences({
      dueDate: '2024-03-10',
      businessDate: '2024-03-25',
      graceDays: 2,
      frequency: { unit: 'WEEKS', interval: 1 },
    });
    // first trigger 2024-03-13 (due + grace + 1), then 03-20; the dates are shifted back by grace + 1 days
    expect(got).toEqual([
      { occurrence: 1, date: '2024-03-10' },
      { occurrence: 2, date: '2024-03-17' },
    ]);
  });
});
