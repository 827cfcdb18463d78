import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '#lib/errors/app-error.ts';
import { previewSchedule } from '#lib/schedule/index.ts';

/**
 * Interest recalculation on progressive loans paid out in tranches, against Apache Fineract
 * (tests/fixtures/fineract-tranche-recalculation-cases.json, each case citing its file, test and lines):
 * loans of Fineract's integration tests through the terms contract (previewSchedule, what
 * `npm run -s schedule` prints), one of them through the CLI process; and Fineract's tranche models
 * (ProgressiveEMICalculatorTest) through the recalculating engine, before and after on-time repayments.
 */

type RecalcOut = {
  installments: {
    number: number;
    dueDate: string;
    principal: string;
    interest: string;
    total: string;
    balance: string;
    paid: string;
    paidInterest: string;
    outstanding: string;
  }[];
  totals: Record<string, string>;
  transactions: { date: string; amount: string; principal: string; interest: string; excess: string }[];
  preClosure?: { date: string; principal: string; interest: string; total: string };
  disbursements?: { date: string; amount: string }[];
};
type Case = {
  id: string;
  source: { path: string; test: string; lines: string };
  terms: Record<string, unknown>;
  expected: {
    interestToDate: string;
    installments?: { number: number; dueDate: string; total: string; paid: string }[];
  };
};
type ModelCase = { id: string; trancheCase: string; source: { path: string; test: string; lines: string } };
/** A case of fineract-tranches-cases.json (its installments: number, dueDate, total, interest, principal, balance). */
type TrancheCase = {
  id: string;
  terms: Record<string, unknown>;
  expected: { installments: Record<string, unknown>[] };
};

const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/fineract-tranche-recalculation-cases.json', import.meta.url), 'utf8'),
) as { cases: Case[]; modelCases: ModelCase[] };
const trancheFixture = JSON.parse(
  readFileSync(new URL('../fixtures/fineract-tranches-cases.json', import.meta.url), 'utf8'),
) as { cases: TrancheCase[] };

const cents = (s: string) => BigInt(s.replace('.', ''));
const decimal = (m: bigint) => `${m / 100n}.${String(m % 100n).padStart(2, '0')}`;

/** The interest the loan bore up to `asOf`: interest paid on installments + the quote's interest then. */
function interestToDate(out: RecalcOut): string {
  const paid = out.installments.reduce((s, i) => s + cents(i.paidInterest), 0n);
  return decimal(paid + cents(out.preClosure!.interest));
}

function checkCase(out: RecalcOut, c: Case) {
  expect(interestToDate(out)).toBe(c.expected.interestToDate);
  for (const e of c.expected.installments ?? []) {
    const got = out.installments.find((i) => i.number === e.number)!;
    expect({ number: got.number, dueDate: got.dueDate, total: got.total, paid: got.paid }).toEqual(e);
  }
  // The schedule repays every tranche, and lists them.
  const tranches = c.terms.disbursements as { date: string; amount: string }[];
  expect(out.disbursements).toEqual(tranches.map((d) => ({ date: d.date, amount: `${d.amount}.00` })));
  expect(cents(out.totals.principal)).toBe(tranches.reduce((s, d) => s + cents(`${d.amount}.00`), 0n));
}

describe('Fineract loans disbursed in tranches on a recalculating progressive product', () => {
  it('holds the three LoanInterestRefundTest loans', () => {
    expect(fixture.cases.map((c) => c.source.test)).toEqual(['verifyUC03', 'verifyUC04', 'verifyUC05']);
  });

  for (const c of fixture.cases) {
    it(`${c.id} (${c.source.test}, lines ${c.source.lines})`, () => {
      checkCase(previewSchedule(c.terms) as RecalcOut, c);
    });
  }

  it('uc05: the payment on the first due date settles installment 1, nothing in advance', () => {
    const c = fixture.cases.find((x) => x.source.test === 'verifyUC05')!;
    const out = previewSchedule(c.terms) as RecalcOut;
    expect(out.transactions).toEqual([
      { type: 'REPAYMENT', date: '2021-02-01', amount: '87.82', principal: '80.16', interest: '7.66', excess: '0.00' },
    ]);
    // Quote on 9 Feb: the balance after installment 1 and 8 days of interest on it.
    expect(out.preClosure).toEqual({ date: '2021-02-09', principal: '919.84', interest: '2.01', total: '921.85' });
  });

  it('uc04 without the second tranche bears less interest (the tranche is really in the model)', () => {
    const c = fixture.cases.find((x) => x.source.test === 'verifyUC04')!;
    const one = previewSchedule({ ...c.terms, disbursements: [(c.terms.disbursements as unknown[])[0]] }) as RecalcOut;
    // 250 × 9.99 % × 21 / 365 = 1.4369…
    expect(interestToDate(one)).toBe('1.44');
  });

  it('runs uc05 through the CLI process (npm run -s schedule)', () => {
    const c = fixture.cases.find((x) => x.source.test === 'verifyUC05')!;
    const file = join(mkdtempSync(join(tmpdir(), 'tranche-recalc-')), 'uc05.json');
    writeFileSync(file, JSON.stringify(c.terms));
    const out = JSON.parse(
      execFileSync('npx', ['node', 'scripts/schedule.ts', file], { encoding: 'utf8' }),
    ) as RecalcOut;
    checkCase(out, c);
  });
});

describe('Fineract tranche models through the recalculating engine', () => {
  const recalculating = { restFrequency: 'DAILY', preClosureStrategy: 'TILL_PRE_CLOSURE_DATE' };
  const pick = (out: RecalcOut) =>
    out.installments.map((i) => ({
      number: i.number,
      dueDate: i.dueDate,
      total: i.total,
      interest: i.interest,
      principal: i.principal,
      balance: i.balance,
    }));

  for (const m of fixture.modelCases) {
    const tranche = trancheFixture.cases.find((c) => c.id === m.trancheCase)!;

    it(`${m.id}: no repayment (${m.source.test})`, () => {
      const out = previewSchedule({ ...tranche.terms, interestRecalculation: recalculating }) as RecalcOut;
      expect(pick(out)).toEqual(tranche.expected.installments);
    });

    it(`${m.id}: every installment repaid on its due date leaves Fineract's model as it is`, () => {
      const transactions = tranche.expected.installments.map((i) => ({
        type: 'REPAYMENT',
        date: i.dueDate as string,
        amount: i.total as string,
      }));
      const out = previewSchedule({
        ...tranche.terms,
        interestRecalculation: recalculating,
        transactions,
      }) as RecalcOut;
      expect(pick(out)).toEqual(tranche.expected.installments);
      expect(out.installments.every((i) => i.outstanding === '0.00')).toBe(true);
      expect(out.transactions.every((t) => t.excess === '0.00')).toBe(true);
    });
  }

  it('a repayment in advance before the second tranche: less interest, every tranche still repaid', () => {
    // ProgressiveEMICalculatorTest 816-864: 100 on 1 Jan, 100 on 15 Feb → EMI 37.53 from period 2.
    const tranche = trancheFixture.cases.find((c) => c.id === 'progressive-second-tranche-mid-second-period')!;
    const plain = previewSchedule({ ...tranche.terms, interestRecalculation: recalculating }) as RecalcOut;
    expect(plain.installments[2].total).toBe('37.53');
    // 50 paid on 1 Feb: 17.13 due, then 32.87 principal in advance on installments 2 and 3 (no
    // interest has accrued on them that day). The tranche then recomputes the EMI from period 2; the
    // prepaid principal stays paid on those installments (it does not lower the later EMIs).
    const early = previewSchedule({
      ...tranche.terms,
      interestRecalculation: recalculating,
      transactions: [{ type: 'REPAYMENT', date: '2024-02-01', amount: '50' }],
    }) as RecalcOut;
    expect(early.transactions[0]).toMatchObject({ principal: '49.21', interest: '0.79', excess: '0.00' });
    expect(early.installments.map((i) => i.paid)).toEqual(['17.13', '17.13', '15.74', '0.00', '0.00', '0.00']);
    expect(early.totals.principal).toBe('200.00');
    expect(cents(early.totals.interest) < cents(plain.totals.interest)).toBe(true);
    for (const i of early.installments) {
      expect(cents(i.outstanding) >= 0n).toBe(true);
      expect(cents(i.paid) + cents(i.outstanding)).toBe(cents(i.total));
    }
  });
});

describe('the contract with tranches and recalculation', () => {
  const base = {
    principal: '1000',
    currency: 'USD',
    annualInterestRate: '9.99',
    numberOfRepayments: 6,
    repaymentFrequency: 'MONTHS',
    disbursementDate: '2021-01-01',
    daysInYear: 'ACTUAL',
    daysInMonth: 'ACTUAL',
    interestRecalculation: {},
    disbursements: [
      { date: '2021-01-01', amount: '500' },
      { date: '2021-03-10', amount: '500' },
    ],
  };
  const fieldOf = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      return (error as AppError).field;
    }
    return 'no error';
  };

  it('a CUMULATIVE schedule with several tranches is recalculated too (schedule-cumulative-tranche-recalculation)', () => {
    const out = previewSchedule({ ...base, scheduleType: 'CUMULATIVE' }) as RecalcOut;
    expect(out.disbursements).toEqual(base.disbursements.map((d) => ({ date: d.date, amount: `${d.amount}.00` })));
  });

  it('a tranche after the last due date is refused', () => {
    const late = {
      ...base,
      scheduleType: 'PROGRESSIVE',
      disbursements: [base.disbursements[0], { date: '2021-08-01', amount: '1' }],
    };
    expect(fieldOf(() => previewSchedule(late))).toBe('disbursements');
  });

  it('the outstanding cap counts the principal repaid before the tranche', () => {
    const capped = {
      ...base,
      scheduleType: 'PROGRESSIVE',
      maxOutstandingBalance: '1000',
      transactions: [{ type: 'REPAYMENT', date: '2021-02-01', amount: '100' }],
    };
    expect((previewSchedule(capped) as RecalcOut).totals.principal).toBe('1000.00');
    // 500 still owed before it, the 600 tranche would take it to 1,100.
    const over = {
      ...capped,
      disbursements: [
        { date: '2021-01-01', amount: '500' },
        { date: '2021-03-10', amount: '600' },
      ],
    };
    expect(fieldOf(() => previewSchedule({ ...over, maxOutstandingBalance: '1000' }))).toBe('disbursements');
  });

  it('balances follow the tranches: the second one shows from its period on', () => {
    const out = previewSchedule({ ...base, scheduleType: 'PROGRESSIVE' }) as RecalcOut;
    const [first, second, third] = out.installments;
    expect(cents(first.balance)).toBe(50000n - cents(first.principal));
    expect(cents(second.balance)).toBe(cents(first.balance) - cents(second.principal));
    expect(cents(third.balance)).toBe(cents(second.balance) + 50000n - cents(third.principal));
    expect(out.installments.at(-1)!.balance).toBe('0.00');
  });
});
