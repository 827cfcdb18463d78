import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { runDailyClose } from '#lib/close/daily-close.ts';
import { recalculateOverdueInterest } from '#lib/close/recalculate-interest.ts';
import { openLoanForCommand } from '#lib/lending/commands/common.ts';
import { repayLoan } from '#lib/lending/commands/repay-loan.ts';
import { loanOutstanding } from '#lib/lending/installments.ts';
import { loanLedgerBalances } from '#lib/lending/ledger/post-entry.ts';
import { checkLedger } from '#lib/lending/ledger/check-ledger.ts';
import { loanPreClosure } from '#lib/lending/recalculation.ts';
import { listAudit } from '#lib/audit/record-audit.ts';
import { createLendingFixture, setBusinessDate, type LendingFixture } from '../support/lending-fixtures.ts';

/**
 * The daily close recalculates interest on overdue principal (Fineract's COB step
 * LOAN_INTEREST_RECALCULATION). Loans and expected installments from Fineract's
 * integration-tests/.../LoanInterestRecalculationCOBTest.java (snapshot 4198b0bc): the 4I progressive
 * product (BaseLoanIntegrationTest.create4IProgressive: 10 % a year, DAILY interest, 360/30 days,
 * 4 monthly repayments, ADJUST_LAST_UNPAID_PERIOD), 8,000.00 disbursed on 1 January 2023 and never paid.
 * Fineract's `runAt(X)` + inline COB is our close of the day before X (the business date becomes X).
 */
describe.each(testDbKinds())('interest recalculation by the daily close on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
  });
  afterAll(async () => {
    expect((await checkLedger(db)).differences).toEqual([]);
    await drop();
  });

  /** The 4I loan's schedule at disbursement (both tests, e.g. lines 110-113 and 420-423). */
  const original = [
    [197517n, 6667n],
    [199163n, 5021n],
    [200823n, 3361n],
    [202497n, 1687n],
  ];

  async function fixture(code: string, rest: 'DAILY' | 'SAME_AS_REPAYMENT_PERIOD') {
    return createLendingFixture(db, {
      businessDate: '2023-01-01',
      currency: 'EUR',
      product: {
        code,
        annualInterestRate: '10',
        scheduleType: 'PROGRESSIVE',
        interestCalculationPeriod: 'DAILY',
        daysInYear: '360',
        daysInMonth: '30',
        minRepayments: 1,
        interestRecalculation: true,
        recalculationRestFrequency: rest,
        preClosureStrategy: 'TILL_PRE_CLOSURE_DATE',
        allocationStrategy: 'advanced-payment-allocation-strategy',
      },
    });
  }
  const state = (f: LendingFixture, loanId: string) =>
    db.tenant(f.tenantId, (tx) => openLoanForCommand(tx, f.checker, loanId));
  /** [principal, interest] of each installment, in cents. */
  const dues = async (f: LendingFixture, loanId: string) =>
    (await state(f, loanId)).installments.map((r) => [r.principal_due, r.interest_due]);
  /** Closes the day before `date`, so the business date becomes `date` (Fineract's runAt + COB). */
  async function closeInto(f: LendingFixture, date: string) {
    const [y, m, d] = date.split('-').map(Number);
    const before = new Date(Date.UTC(y, m - 1, d - 1)).toISOString().slice(0, 10);
    await setBusinessDate(db, f.tenantId, before);
    return runDailyClose(db, f.tenantId, { businessDate: before, originate: false });
  }
  async function ledgerMatches(f: LendingFixture, loanId: string) {
    const s = await state(f, loanId);
    const ledger = await db.tenant(f.tenantId, (tx) => loanLedgerBalances(tx, loanId));
    const o = loanOutstanding(s.installments);
    expect(ledger.get('INTEREST_RECEIVABLE') ?? 0n).toBe(o.interest);
    expect(ledger.get('LOAN_PORTFOLIO') ?? 0n).toBe(o.principal);
    expect((await checkLedger(db, [f.tenantId])).differences).toEqual([]);
  }
  const entries = (f: LendingFixture, loanId: string) =>
    db.tenant(f.tenantId, async (tx) => {
      const [{ n }] = await tx.query<{ n: number }>(
        `select count(*)::int as n from journal_entries where loan_id = $1`,
        [loanId],
      );
      return n;
    });

  test('DAILY rest: the overdue principal bears interest day by day (…COBStepDaily, lines 95-188)', async () => {
    const f = await fixture('COB4ID', 'DAILY');
    const { loanId } = await f.disbursedLoan({ principal: '8000.00', numberOfRepayments: 4 });
    // Lines 110-113: the schedule at disbursement.
    expect(await dues(f, loanId)).toEqual(original);

    // Lines 118-130: on 1 February nothing is overdue yet.
    let run = await closeInto(f, '2023-02-01');
    expect(run.stats.interestRecalculated).toBe(0);
    expect(await dues(f, loanId)).toEqual(original);

    // Lines 131-143: one day of interest on the 1,975.17 overdue since 1 February.
    run = await closeInto(f, '2023-02-02');
    expect(run.stats.interestRecalculated).toBe(1);
    expect(await dues(f, loanId)).toEqual([
      [197517n, 6667n],
      [199105n, 5079n],
      [200823n, 3361n],
      [202555n, 1688n],
    ]);
    await ledgerMatches(f, loanId);
    const quote2 = await db.tenant(f.tenantId, (tx) => loanPreClosure(tx, f.tenantId, loanId, null));

    // Closing again the day already closed changes nothing (the close answers wasAlreadyClosed) …
    const entriesBefore = await entries(f, loanId);
    const again = await runDailyClose(db, f.tenantId, { businessDate: '2023-02-01', originate: false });
    expect(again.wasAlreadyClosed).toBe(true);
    // … and the step itself, run a second time as of the same day, finds the schedule already there.
    expect(await db.tenant(f.tenantId, (tx) => recalculateOverdueInterest(tx, f.tenantId, '2023-02-02', 'x'))).toBe(0);
    expect(await entries(f, loanId)).toBe(entriesBefore);

    // The next day's close adds one more day; the pay-off quote grows with it.
    await closeInto(f, '2023-02-03');
    const quote3 = await db.tenant(f.tenantId, (tx) => loanPreClosure(tx, f.tenantId, loanId, null));
    expect(BigInt(Math.round(Number(quote3.interest) * 100))).toBeGreaterThan(
      BigInt(Math.round(Number(quote2.interest) * 100)),
    );
    expect(quote3.principal).toBe('8000.00');

    // Installments 2 to 4 after the closes into 20 February (lines 144-157), 1 March (lines 158-171)
    // and 20 April (lines 172-186); installment 1 stays 1,975.17 + 66.67.
    const later: [string, bigint[][]][] = [
      [
        '2023-02-20',
        [
          [198046n, 6138n],
          [200814n, 3370n],
          [203623n, 1697n],
        ],
      ],
      [
        '2023-03-01',
        [
          [197517n, 6667n],
          [200809n, 3375n],
          [204157n, 1701n],
        ],
      ],
      [
        '2023-04-20',
        [
          [197517n, 6667n],
          [197517n, 6667n],
          [207449n, 4856n],
        ],
      ],
    ];
    for (const [date, rest] of later) {
      await closeInto(f, date);
      expect(await dues(f, loanId)).toEqual([[197517n, 6667n], ...rest]);
    }
    await ledgerMatches(f, loanId);

    // Each change is audited as the close's system actor.
    const audit = (await db.tenant(f.tenantId, (tx) => listAudit(tx, 'loan', loanId))).filter(
      (a) => a.action === 'loan.interest_recalculate',
    );
    // 2 and 3 February, 20 February, 1 March, 20 April.
    expect(audit.length).toBe(5);
    expect(audit[0]).toMatchObject({ actor_id: 'system:close', actor_kind: 'system', outcome: 'success' });

    // The quote pays the loan off (Fineract's payoffOnDateAndVerifyStatus: status 600, closed).
    const quote = await db.tenant(f.tenantId, (tx) => loanPreClosure(tx, f.tenantId, loanId, null));
    const paid = await db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: quote.total }));
    expect(paid.loan.status).toBe('CLOSED_OBLIGATIONS_MET');
    await ledgerMatches(f, loanId);
  });

  test('SAME_AS_REPAYMENT_PERIOD rest: the overdue principal bears a whole period (…COBStep, lines 406-480)', async () => {
    const f = await fixture('COB4IP', 'SAME_AS_REPAYMENT_PERIOD');
    const { loanId } = await f.disbursedLoan({ principal: '8000.00', numberOfRepayments: 4 });
    // A loan of a product without recalculation, overdue too, is left alone.
    const plain = await createLendingFixture(db, { businessDate: '2023-01-01', currency: 'EUR' });
    const { loanId: other } = await plain.disbursedLoan({ principal: '8000.00', numberOfRepayments: 4 });
    const otherBefore = await dues(plain, other);

    await closeInto(f, '2023-02-01');
    expect(await dues(f, loanId)).toEqual(original);
    // Lines 440-452 and 453-465: from the first day overdue, the whole next period.
    const expected = [
      [197517n, 6667n],
      [197517n, 6667n],
      [200809n, 3375n],
      [204157n, 1701n],
    ];
    await closeInto(f, '2023-02-02');
    expect(await dues(f, loanId)).toEqual(expected);
    await closeInto(f, '2023-02-03');
    await closeInto(f, '2023-02-20');
    expect(await dues(f, loanId)).toEqual(expected);
    // Lines 466-479.
    await closeInto(f, '2023-03-02');
    expect(await dues(f, loanId)).toEqual([
      [197517n, 6667n],
      [197517n, 6667n],
      [197517n, 6667n],
      [207449n, 1729n],
    ]);
    await ledgerMatches(f, loanId);
    await setBusinessDate(db, plain.tenantId, '2023-03-01');
    await runDailyClose(db, plain.tenantId, { businessDate: '2023-03-01', originate: false });
    expect(await dues(plain, other)).toEqual(otherBefore);
  });
});
