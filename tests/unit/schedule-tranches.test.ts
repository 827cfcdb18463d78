import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateSchedule, parseTerms, previewSchedule } from '#lib/schedule/index.ts';

/**
 * Multi-disbursement (tranches): every case of tests/fixtures/fineract-tranches-cases.json through
 * the schedule contract (previewSchedule, what `npm run -s schedule` prints), compared to the cent,
 * two of them through the real CLI process; then the contract's rules and invariants.
 */

type Expected = {
  number: number;
  dueDate: string;
  total: string;
  interest: string;
  principal: string;
  balance: string;
};
type Case = {
  id: string;
  source: { path: string; test: string; lines: string };
  terms: Record<string, unknown>;
  expected: { installments: Expected[] };
  notes: string;
};

const fixture: { cases: Case[] } = JSON.parse(
  readFileSync(new URL('../fixtures/fineract-tranches-cases.json', import.meta.url), 'utf8'),
);

type Out = {
  installments: Record<string, unknown>[];
  totals: Record<string, string>;
  disbursements?: { date: string; amount: string }[];
};

function pick(out: Out) {
  return out.installments.map((i) => ({
    number: i.number,
    dueDate: i.dueDate,
    total: i.total,
    interest: i.interest,
    principal: i.principal,
    balance: i.balance,
  }));
}

describe('Fineract multi-disbursement cases through the schedule contract', () => {
  it('holds at least 6 cases, cumulative and progressive', () => {
    expect(fixture.cases.length).toBeGreaterThanOrEqual(6);
    const types = new Set(fixture.cases.map((c) => c.terms.scheduleType));
    expect(types).toEqual(new Set(['CUMULATIVE', 'PROGRESSIVE']));
  });

  for (const c of fixture.cases) {
    it(`${c.id} (${c.source.test})`, () => {
      const out = previewSchedule(c.terms) as Out;
      expect(pick(out)).toEqual(c.expected.installments);
      // The contract lists the tranches it was built with.
      const tranches = c.terms.disbursements as { date: string; amount: string }[];
      expect(out.disbursements?.map((d) => d.date)).toEqual(tranches.map((d) => d.date));
      const disbursed = tranches.reduce((s, d) => s + Number(d.amount), 0);
      expect(Number(out.totals.principal)).toBeCloseTo(disbursed, 6);
    });
  }
});

describe('through the CLI process (npm run -s schedule)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tranches-'));
  for (const id of ['progressive-second-tranche-mid-second-period', 'cumulative-fixed-emi-two-tranches']) {
    it(id, () => {
      const c = fixture.cases.find((x) => x.id === id)!;
      const file = join(dir, `${id}.json`);
      writeFileSync(file, JSON.stringify(c.terms));
      const stdout = execFileSync('npx', ['node', 'scripts/schedule.ts', file], { encoding: 'utf8' });
      const out = JSON.parse(stdout) as Out;
      expect(pick(out)).toEqual(c.expected.installments);
      expect(out.disbursements).toEqual(
        (c.terms.disbursements as { date: string; amount: string }[]).map((d) => ({
          date: d.date,
          amount: Number(d.amount).toFixed(2),
        })),
      );
    });
  }
});

const base = {
  principal: '1000',
  currency: 'EUR',
  annualInterestRate: '12',
  numberOfRepayments: 6,
  disbursementDate: '2024-01-01',
};

describe('terms rules', () => {
  it('without disbursements the output has no disbursements key (existing schedules unchanged)', () => {
    expect('disbursements' in (previewSchedule(base) as object)).toBe(false);
  });

  it('a single tranche of the whole principal gives the single-disbursement schedule', () => {
    for (const scheduleType of ['CUMULATIVE', 'PROGRESSIVE']) {
      const plain = previewSchedule({ ...base, scheduleType }) as Out;
      const one = previewSchedule({
        ...base,
        scheduleType,
        disbursements: [{ date: '2024-01-01', amount: '1000' }],
      }) as Out;
      expect(one.installments).toEqual(plain.installments);
    }
  });

  it('refuses a first tranche that is not the disbursement, tranches out of order, and bad amounts', () => {
    expect(() => parseTerms({ ...base, disbursements: [{ date: '2024-01-02', amount: '10' }] })).toThrow(
      /disbursements\[0\]\.date/,
    );
    expect(() =>
      parseTerms({
        ...base,
        disbursements: [
          { date: '2024-01-01', amount: '10' },
          { date: '2024-03-01', amount: '10' },
          { date: '2024-02-01', amount: '10' },
        ],
      }),
    ).toThrow(/date order/);
    expect(() => parseTerms({ ...base, disbursements: [{ date: '2024-01-01', amount: '0' }] })).toThrow(
      /disbursements\[0\]\.amount/,
    );
    expect(() => parseTerms({ ...base, disbursements: [] })).toThrow(/disbursements/);
  });

  it('refuses a tranche that takes the outstanding above maxOutstandingBalance (cumulative)', () => {
    const terms = parseTerms({
      ...base,
      maxOutstandingBalance: '1200',
      disbursements: [
        { date: '2024-01-01', amount: '1000' },
        { date: '2024-02-15', amount: '400' },
      ],
    });
    expect(() => generateSchedule(terms)).toThrow(/maxOutstandingBalance/);
    // 1000 − first principal (≈ 162) + 400 stays under 1300.
    const ok = parseTerms({
      ...base,
      maxOutstandingBalance: '1300',
      disbursements: [
        { date: '2024-01-01', amount: '1000' },
        { date: '2024-02-15', amount: '400' },
      ],
    });
    expect(generateSchedule(ok).totals.principal).toBe(140000n);
  });

  it('refuses a tranche after the last due date (progressive)', () => {
    const terms = parseTerms({
      ...base,
      scheduleType: 'PROGRESSIVE',
      disbursements: [
        { date: '2024-01-01', amount: '500' },
        { date: '2024-09-01', amount: '500' },
      ],
    });
    expect(() => generateSchedule(terms)).toThrow(/outside the repayment periods/);
  });
});

describe('invariants', () => {
  const shapes = [
    { scheduleType: 'CUMULATIVE' },
    { scheduleType: 'CUMULATIVE', amortization: 'EQUAL_PRINCIPAL' },
    { scheduleType: 'CUMULATIVE', interestCalculationPeriod: 'DAILY' },
    { scheduleType: 'PROGRESSIVE' },
    { scheduleType: 'PROGRESSIVE', daysInYear: 360, daysInMonth: 30 },
  ];
  const trancheSets = [
    [
      ['2024-01-01', '300'],
      ['2024-02-10', '400'],
      ['2024-04-01', '300'],
    ],
    [
      ['2024-01-01', '50'],
      ['2024-01-20', '950'],
    ],
    [
      ['2024-01-01', '999.99'],
      ['2024-06-01', '0.01'],
    ],
  ];
  for (const shape of shapes) {
    for (const set of trancheSets) {
      it(`${JSON.stringify(shape)} with ${set.map((s) => s.join(':')).join(', ')}`, () => {
        const terms = parseTerms({
          ...base,
          ...shape,
          disbursements: set.map(([date, amount]) => ({ date, amount })),
        });
        const s = generateSchedule(terms);
        const disbursed = terms.disbursements!.reduce((acc, d) => acc + d.amount, 0n);
        expect(s.totals.principal).toBe(disbursed);
        for (const i of s.installments) {
          expect(i.principal >= 0n && i.interest >= 0n && i.balance >= 0n).toBe(true);
          expect(i.total).toBe(i.principal + i.interest + i.fees + i.penalties);
        }
        expect(s.installments[s.installments.length - 1].balance).toBe(0n);
        // The balance after each installment = tranches paid out by its due date − principal so far.
        let principalSoFar = 0n;
        for (const i of s.installments) {
          principalSoFar += i.principal;
          const out = terms.disbursements!.filter((d) => d.date <= i.dueDate).reduce((a, d) => a + d.amount, 0n);
          expect(i.balance).toBe(out - principalSoFar);
        }
      });
    }
  }
});
