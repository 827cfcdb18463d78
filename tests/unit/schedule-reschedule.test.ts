import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { AppError } from '#lib/errors/app-error.ts';
import { formatMinor } from '#lib/money/money.ts';
import { generateSchedule, parseTerms } from '#lib/schedule/index.ts';
import { type CurrentInstallment, type RescheduleRequest, rescheduleSchedule } from '#lib/schedule/reschedule.ts';

/**
 * Loan reschedules against the schedules Apache Fineract's own scenarios assert after a reschedule
 * request is approved (tests/fixtures/fineract-reschedule-cases.json, each case citing its scenario).
 */
type Case = {
  id: string;
  source: { path: string; test: string; lines: string };
  terms: Record<string, unknown>;
  request: RescheduleRequest;
  expected: { dueDate: string; principal: string; interest: string; downPayment: boolean }[];
};
const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/fineract-reschedule-cases.json', import.meta.url), 'utf8'),
) as { cases: Case[] };

function currentOf(terms: Record<string, unknown>): CurrentInstallment[] {
  return generateSchedule(parseTerms(terms)).installments.map((i) => ({ ...i }));
}

describe('reschedule: Fineract cases', () => {
  it('has enough cases, each with a source', () => {
    expect(fixture.cases.length).toBeGreaterThanOrEqual(8);
    for (const c of fixture.cases) expect(c.source.path && c.source.test && c.source.lines).toBeTruthy();
  });

  for (const c of fixture.cases) {
    it(`${c.id} (${c.source.test})`, () => {
      const terms = parseTerms(c.terms);
      const result = rescheduleSchedule(terms, currentOf(c.terms), c.request);
      const f = (m: bigint) => formatMinor(m, terms.digits);
      expect(
        result.schedule.installments.map((i) => ({
          dueDate: i.dueDate,
          principal: f(i.principal),
          interest: f(i.interest),
          downPayment: i.isDownPayment,
        })),
      ).toEqual(c.expected);
      // The new schedule still repays exactly the principal, and the balance ends at zero.
      expect(result.schedule.totals.principal).toBe(terms.principal);
      expect(result.schedule.installments.at(-1)?.balance).toBe(0n);
      result.schedule.installments.forEach((i, n) => expect(i.number).toBe(n + 1));
    });
  }
});

const DECLINING = {
  principal: '12000',
  currency: 'EUR',
  annualInterestRate: '12',
  numberOfRepayments: 12,
  disbursementDate: '2024-01-01',
};

describe('reschedule: declining balance and refusals', () => {
  const terms = parseTerms(DECLINING);
  const original = generateSchedule(terms).installments;
  const current: CurrentInstallment[] = original.map((i) => ({ ...i }));

  it('keeps the rows before the from date and re-amortises the rest at the new rate', () => {
    const r = rescheduleSchedule(terms, current, {
      rescheduleFromDate: '2024-07-01',
      newInterestRate: '6',
      submittedOn: '2024-03-10',
    });
    expect(r.kept).toBe(5);
    expect(r.schedule.installments.slice(0, 5)).toEqual(original.slice(0, 5));
    const tail = r.schedule.installments.slice(5);
    expect(tail).toHaveLength(7);
    // Interest of the first new month: the balance after five installments at 6% / 12.
    const balance = original[4].balance;
    expect(tail[0].interest).toBe((balance * 5n + 500n) / 1000n);
    expect(r.schedule.totals.principal).toBe(terms.principal);
    expect(r.schedule.totals.interest).toBeLessThan(generateSchedule(terms).totals.interest);
  });

  it('extra terms lower the installment; a principal grace repays no principal in its periods', () => {
    const longer = rescheduleSchedule(terms, current, {
      rescheduleFromDate: '2024-04-01',
      extraTerms: 6,
      graceOnPrincipal: 2,
      submittedOn: '2024-03-10',
    }).schedule.installments;
    expect(longer).toHaveLength(12 + 6 + 2);
    // Kept: the installments of 1 February and 1 March; the two grace months follow.
    expect(longer[2].principal).toBe(0n);
    expect(longer[3].principal).toBe(0n);
    expect(longer[4].principal).toBeGreaterThan(0n);
    expect(longer[4].total).toBeLessThan(original[4].total);
  });

  const refusals: [string, Partial<RescheduleRequest>][] = [
    ['RESCHEDULE_NOTHING_TO_CHANGE', {}],
    ['RESCHEDULE_FROM_DATE_NOT_A_DUE_DATE', { rescheduleFromDate: '2024-04-02', extraTerms: 1 }],
    ['RESCHEDULE_ADJUSTED_DATE_BEFORE_FROM_DATE', { adjustedDueDate: '2024-03-20' }],
    ['RESCHEDULE_SUBMITTED_BEFORE_DISBURSEMENT', { submittedOn: '2023-12-31', extraTerms: 1 }],
  ];
  for (const [reason, patch] of refusals) {
    it(`refuses with ${reason}`, () => {
      const request = { rescheduleFromDate: '2024-04-01', submittedOn: '2024-03-10', ...patch };
      try {
        rescheduleSchedule(terms, current, request);
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(AppError);
        expect((e as AppError).details?.reason).toBe(reason);
      }
    });
  }

  it('refuses an installment that is already paid, and progressive loans', () => {
    const paid = current.map((i) => (i.number === 3 ? { ...i, obligationsMet: true } : i));
    expect(() =>
      rescheduleSchedule(terms, paid, { rescheduleFromDate: '2024-04-01', extraTerms: 1, submittedOn: '2024-03-10' }),
    ).toThrow(/already paid/);
    const progressive = parseTerms({ ...DECLINING, scheduleType: 'PROGRESSIVE' });
    expect(() =>
      rescheduleSchedule(progressive, currentOf({ ...DECLINING, scheduleType: 'PROGRESSIVE' }), {
        rescheduleFromDate: '2024-04-01',
        extraTerms: 1,
        submittedOn: '2024-03-10',
      }),
    ).toThrow(/Progressive/);
  });
});
