import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '#lib/errors/app-error.ts';
import { generateSchedule, parseTerms, previewSchedule } from '#lib/schedule/index.ts';
import { checkVariations } from '#lib/schedule/variations.ts';
import cases from '../fixtures/fineract-fixed-cases.json' with { type: 'json' };
import holidayCases from '../fixtures/fineract-holiday-cases.json' with { type: 'json' };

/**
 * Fixed-length schedules and variable installments, case by case from Apache Fineract's own tests
 * (tests/fixtures/fineract-fixed-cases.json cites file, test and lines of each).
 */

type Expected = {
  installments?: { dueDate: string; total: string; principal?: string; interest?: string }[];
  error?: { field: string };
};
type Case = { id: string; terms: Record<string, unknown>; expected: Expected };

function errorOf(fn: () => unknown): AppError | null {
  try {
    fn();
    return null;
  } catch (e) {
    return e instanceof AppError ? e : null;
  }
}

describe('Fineract fixed-length and variable-installment cases', () => {
  for (const c of cases as unknown as Case[]) {
    it(c.id, () => {
      if (c.expected.error) {
        const e = errorOf(() => previewSchedule(c.terms));
        expect(e?.code).toBe('BAD_REQUEST');
        expect(e?.field).toBe(c.expected.error.field);
        return;
      }
      const out = previewSchedule(c.terms);
      const expected = c.expected.installments ?? [];
      expect(out.installments.length).toBe(expected.length);
      expected.forEach((row, i) => {
        const got = out.installments[i];
        expect(got.dueDate).toBe(row.dueDate);
        expect(got.total).toBe(row.total);
        if (row.principal !== undefined) expect(got.principal).toBe(row.principal);
        if (row.interest !== undefined) expect(got.interest).toBe(row.interest);
      });
      // The schedule repays exactly the principal and ends at zero.
      expect(out.totals.principal).toBe(out.installments.reduce((s, i) => s + Number(i.principal), 0).toFixed(2));
      expect(out.installments.at(-1)?.balance).toBe('0.00');
    });
  }

  it('the CLI prints the same schedule (fixed length and variations through npm run -s schedule)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fixed-'));
    for (const id of ['fixed-length-40-days-3x15', 'variable-db-emi-all']) {
      const c = (cases as unknown as Case[]).find((x) => x.id === id)!;
      const file = join(dir, `${id}.json`);
      writeFileSync(file, JSON.stringify(c.terms));
      const stdout = execFileSync('npx', ['node', 'scripts/schedule.ts', file], { encoding: 'utf8' });
      const json = JSON.parse(stdout) as { installments: { dueDate: string; total: string }[] };
      expect(json.installments.map((i) => [i.dueDate, i.total])).toEqual(
        (c.expected.installments ?? []).map((i) => [i.dueDate, i.total]),
      );
    }
  }, 60_000);
});

describe('Fineract holiday cases (due dates)', () => {
  for (const c of holidayCases as unknown as {
    id: string;
    terms: Record<string, unknown>;
    expected: { periods: string[][] };
  }[]) {
    it(c.id, () => {
      const out = previewSchedule(c.terms);
      expect(out.installments.map((i) => [i.fromDate, i.dueDate])).toEqual(c.expected.periods);
    });
  }

  it('a holiday has a reschedule date or moves to the next repayment date, not both', () => {
    const terms = {
      ...(holidayCases[0].terms as Record<string, unknown>),
      calendar: {
        holidays: [
          {
            from: '2024-04-04',
            to: '2024-04-04',
            repaymentsRescheduledTo: '2024-04-08',
            rescheduleToNextRepaymentDate: true,
          },
        ],
      },
    };
    expect(errorOf(() => previewSchedule(terms))?.field).toBe('calendar.holidays[0].rescheduleToNextRepaymentDate');
  });
});

const base = {
  principal: '100000',
  currency: 'USD',
  annualInterestRate: '24',
  numberOfRepayments: 4,
  disbursementDate: '2011-09-20',
  allowPartialPeriodInterest: true,
};

describe('terms contract', () => {
  it('without the new fields the schedule is unchanged', () => {
    expect(previewSchedule({ ...base, variations: [] })).toEqual(previewSchedule(base));
    expect(parseTerms(base).fixedLength).toBeUndefined();
  });

  it('refuses fixed length on cumulative schedules and fixed EMI / variations where Fineract has none', () => {
    const field = (t: Record<string, unknown>) => errorOf(() => previewSchedule(t))?.field;
    expect(field({ ...base, annualInterestRate: '0', fixedLength: 4 })).toBe('fixedLength');
    expect(field({ ...base, fixedEmiAmount: '30000', amortization: 'EQUAL_PRINCIPAL' })).toBe('fixedEmiAmount');
    expect(
      field({ ...base, scheduleType: 'PROGRESSIVE', variations: [{ type: 'DELETE', dueDate: '2011-10-20' }] }),
    ).toBe('variations');
    expect(field({ ...base, variations: [{ type: 'MOVE', dueDate: '2011-10-20' }] })).toBe('variations[0].type');
    expect(field({ ...base, variations: [{ type: 'AMOUNT', dueDate: '2011-10-20' }] })).toBe('variations[0].amount');
  });

  it("applies Fineract's variation checks against the schedule without variations", () => {
    const field = (v: unknown[]) => errorOf(() => previewSchedule({ ...base, variations: v }))?.field;
    expect(field([{ type: 'DELETE', dueDate: '2011-10-21' }])).toBe('variations[0].dueDate');
    expect(field([{ type: 'DELETE', dueDate: '2012-01-20' }])).toBe('variations[0].dueDate');
    expect(field([{ type: 'AMOUNT', dueDate: '2012-01-20', amount: '10' }])).toBe('variations[0].dueDate');
    expect(field([{ type: 'INSERT', dueDate: '2012-02-01', amount: '10' }])).toBe('variations[0].dueDate');
    expect(field([{ type: 'INSERT', dueDate: '2011-11-20' }])).toBe('variations[0]');
    // An installment amount below its interest is refused, as Fineract does.
    expect(field([{ type: 'AMOUNT', dueDate: '2011-10-20', amount: '100' }])).toBe('variations');
  });

  it('checks the product gap between installments (minimum and maximum days)', () => {
    const dates = ['2011-10-20', '2011-11-20', '2011-12-20', '2012-01-20'];
    expect(checkVariations([{ type: 'INSERT', dueDate: '2011-10-31' }], dates, '2011-09-20')).toHaveLength(5);
    expect(() =>
      checkVariations([{ type: 'INSERT', dueDate: '2011-10-22' }], dates, '2011-09-20', {
        minimumGapDays: 5,
        maximumGapDays: 90,
      }),
    ).toThrow(/2011-10-22: 2 days/);
    expect(() =>
      checkVariations(
        [
          { type: 'DELETE', dueDate: '2011-11-20' },
          { type: 'DELETE', dueDate: '2011-12-20' },
        ],
        dates,
        '2011-09-20',
        {
          minimumGapDays: 5,
          maximumGapDays: 60,
        },
      ),
    ).toThrow(/92 days/);
  });
});

describe('fixed EMI amount (cumulative, declining balance, equal installments)', () => {
  const fixed = {
    principal: '1000',
    currency: 'USD',
    annualInterestRate: '12',
    numberOfRepayments: 4,
    disbursementDate: '2024-01-01',
  };

  it('a larger EMI than the annuity repays the loan in fewer installments; totals still add up', () => {
    const s = generateSchedule(parseTerms({ ...fixed, fixedEmiAmount: '400' }));
    // 1% a month: 1000 → 610 → 216.10 → the third installment takes the rest.
    expect(s.installments.map((i) => [i.dueDate, i.principal, i.interest])).toEqual([
      ['2024-02-01', 39000n, 1000n],
      ['2024-03-01', 39390n, 610n],
      ['2024-04-01', 21610n, 216n],
    ]);
    expect(s.totals.principal).toBe(100000n);
  });

  it('a smaller EMI extends the loan past numberOfRepayments; the threshold folds a small rest into the installment', () => {
    const none = generateSchedule(parseTerms({ ...fixed, fixedEmiAmount: '300' }));
    // 1000 → 710 → 417.10 → 121.27; the 4th installment is 121.27 + 1.21 interest.
    expect(none.installments).toHaveLength(4);
    expect(none.installments.map((i) => i.principal + i.interest)).toEqual([30000n, 30000n, 30000n, 12248n]);
    const small = generateSchedule(parseTerms({ ...fixed, fixedEmiAmount: '240' }));
    expect(small.installments.length).toBeGreaterThan(4);
    expect(small.totals.principal).toBe(100000n);
    // 1000 → 770 → 537.70 → 303.08 → 66.11 left after the 4th: under 50 % of its principal (236.97), it joins it.
    const folded = generateSchedule(
      parseTerms({ ...fixed, fixedEmiAmount: '240', principalThresholdForLastInstallment: 50 }),
    );
    expect(folded.installments).toHaveLength(4);
    expect(folded.installments[3].balance).toBe(0n);
    expect(folded.totals.principal).toBe(100000n);
  });

  it('refuses an EMI that does not cover the interest', () => {
    expect(errorOf(() => previewSchedule({ ...fixed, fixedEmiAmount: '5' }))?.field).toBe('fixedEmiAmount');
  });
});
