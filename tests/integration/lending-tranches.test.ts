import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { disburseLoan } from '#lib/lending/commands/disburse-loan.ts';
import { repayLoan } from '#lib/lending/commands/repay-loan.ts';
import { disburseNextTranche, loadTranches, setLoanTranches } from '#lib/lending/commands/tranches.ts';
import { loadInstallments, loanOutstanding } from '#lib/lending/installments.ts';
import { loanLedgerBalances } from '#lib/lending/ledger/post-entry.ts';
import { checkLedger } from '#lib/lending/ledger/check-ledger.ts';
import { generateSchedule, parseTerms, previewSchedule } from '#lib/schedule/index.ts';
import { reverseLoanTransaction } from '#lib/lending/commands/reverse-loan-transaction.ts';
import { openLoanForCommand } from '#lib/lending/commands/common.ts';
import { loanPreClosure } from '#lib/lending/recalculation.ts';
import { recalculateOverdueInterest } from '#lib/close/recalculate-interest.ts';
import { simulateNextTranche } from '#lib/simulator/features/tranches.ts';
import { createLendingFixture, setBusinessDate, type LendingFixture } from '../support/lending-fixtures.ts';

/**
 * Multi-disbursement loans end to end: a tranche product, a loan approved for 1,200.00 with two
 * tranches, the first paid out by the disbursement, a repayment, then the second tranche. The loan's
 * installments must be the engine's schedule for both disbursements, the repayment replayed on them,
 * the ledger in line (npm run ledger:check), the audit trail written.
 */
describe.each(testDbKinds())('tranches on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
  });
  afterAll(async () => {
    await drop();
  });

  for (const scheduleType of ['CUMULATIVE', 'PROGRESSIVE'] as const) {
    test(`${scheduleType}: approve with 2 tranches → disburse → repay → disburse the second`, async () => {
      const f: LendingFixture = await createLendingFixture(db, {
        businessDate: '2026-01-15',
        product: { scheduleType, multiDisbursement: true, maxTranches: 3 },
      });
      const { loanId } = await f.approvedLoan({ principal: '1200.00', numberOfRepayments: 6 });
      const { tranches } = await f.db.tenant(f.tenantId, (tx) =>
        setLoanTranches(tx, f.checker, {
          loanId,
          tranches: [
            { date: '2026-01-15', amount: '700.00' },
            { date: '2026-03-01', amount: '500.00' },
          ],
        }),
      );
      expect(tranches.map((t) => [t.number, t.amount, t.disbursed_on])).toEqual([
        [1, 70000n, null],
        [2, 50000n, null],
      ]);

      await f.db.tenant(f.tenantId, (tx) => disburseLoan(tx, f.checker, { loanId }));
      let installments = await f.db.tenant(f.tenantId, (tx) => loadInstallments(tx, loanId));
      expect(installments.reduce((s, i) => s + i.principal_due, 0n)).toBe(70000n);

      await setBusinessDate(db, f.tenantId, '2026-02-15');
      const firstDue = installments[0].principal_due + installments[0].interest_due;
      await f.db.tenant(f.tenantId, (tx) =>
        repayLoan(tx, f.checker, { loanId, amount: (Number(firstDue) / 100).toFixed(2) }),
      );

      await setBusinessDate(db, f.tenantId, '2026-03-01');
      const result = await f.db.tenant(f.tenantId, (tx) => disburseNextTranche(tx, f.checker, { loanId }));
      expect(result.transaction.type).toBe('DISBURSEMENT');
      expect(result.transaction.principal_portion).toBe(50000n);
      expect(result.tranches.map((t) => t.disbursed_on)).toEqual(['2026-01-15', '2026-03-01']);

      // The installments are the engine's schedule for both disbursements.
      const expected = generateSchedule(
        parseTerms({
          ...result.loan.terms,
          principal: '1200.00',
          disbursements: [
            { date: '2026-01-15', amount: '700.00' },
            { date: '2026-03-01', amount: '500.00' },
          ],
        }),
      );
      installments = result.installments;
      expect(installments.map((i) => [i.due_date, i.principal_due, i.interest_due])).toEqual(
        expected.installments.map((i) => [i.dueDate, i.principal, i.interest]),
      );
      expect(expected.disbursements?.map((d) => d.amount)).toEqual([70000n, 50000n]);
      // The repayment of the first installment is replayed onto the new dues.
      const paid = installments.reduce((s, i) => s + i.principal_paid + i.interest_paid, 0n);
      expect(paid).toBe(firstDue);

      // Ledger: portfolio = principal outstanding, receivable = interest outstanding, whole ledger checks.
      const ledger = await f.db.tenant(f.tenantId, (tx) => loanLedgerBalances(tx, loanId));
      const o = loanOutstanding(installments);
      expect(ledger.get('LOAN_PORTFOLIO') ?? 0n).toBe(o.principal);
      expect(ledger.get('INTEREST_RECEIVABLE') ?? 0n).toBe(o.interest);
      expect(o.principal).toBe(120000n - (paid - installments.reduce((s, i) => s + i.interest_paid, 0n)));
      expect((await checkLedger(db, [f.tenantId])).differences).toEqual([]);

      const audit = await f.db.tenant(f.tenantId, (tx) =>
        tx.query<{ action: string }>(
          `select action from audit_log where object_id = $1 and action like 'loan.tranche%' order by occurred_at`,
          [loanId],
        ),
      );
      expect(audit.map((a) => a.action)).toEqual(['loan.tranches.set', 'loan.tranche.disburse']);

      // Nothing left to pay out.
      await expect(f.db.tenant(f.tenantId, (tx) => disburseNextTranche(tx, f.checker, { loanId }))).rejects.toThrow(
        /Every tranche/,
      );
    });
  }

  test('refusals: not a tranche product, a total other than the approved amount, too many tranches', async () => {
    const plain = await createLendingFixture(db, { businessDate: '2026-01-15' });
    const { loanId: plainLoan } = await plain.approvedLoan({ principal: '1000.00', numberOfRepayments: 3 });
    await expect(
      plain.db.tenant(plain.tenantId, (tx) =>
        setLoanTranches(tx, plain.checker, {
          loanId: plainLoan,
          tranches: [{ date: '2026-01-15', amount: '1000.00' }],
        }),
      ),
    ).rejects.toThrow(/does not pay loans out in tranches/);

    const f = await createLendingFixture(db, {
      businessDate: '2026-01-15',
      product: { multiDisbursement: true, maxTranches: 2 },
    });
    const { loanId } = await f.approvedLoan({ principal: '1000.00', numberOfRepayments: 3 });
    await expect(
      f.db.tenant(f.tenantId, (tx) =>
        setLoanTranches(tx, f.checker, {
          loanId,
          tranches: [
            { date: '2026-01-15', amount: '600.00' },
            { date: '2026-02-01', amount: '300.00' },
          ],
        }),
      ),
    ).rejects.toThrow(/add up to the approved amount/);
    await expect(
      f.db.tenant(f.tenantId, (tx) =>
        setLoanTranches(tx, f.checker, {
          loanId,
          tranches: [
            { date: '2026-01-15', amount: '400.00' },
            { date: '2026-02-01', amount: '300.00' },
            { date: '2026-02-10', amount: '300.00' },
          ],
        }),
      ),
    ).rejects.toThrow(/at most 2/);
    expect(await f.db.tenant(f.tenantId, (tx) => loadTranches(tx, loanId))).toEqual([]);
    // Without tranches a tranche product's loan disburses its whole principal, as before.
    await f.db.tenant(f.tenantId, (tx) => disburseLoan(tx, f.checker, { loanId }));
    await expect(f.db.tenant(f.tenantId, (tx) => disburseNextTranche(tx, f.checker, { loanId }))).rejects.toThrow(
      /Every tranche/,
    );
    expect((await checkLedger(db, [f.tenantId])).differences).toEqual([]);
  });

  /**
   * A recalculating progressive product paid out in tranches (Fineract's create4IProgressive of
   * BaseLoanIntegrationTest with multi-disbursement, as LoanInterestRefundTest uses it): 9.99 %,
   * actual/actual, daily interest and daily rest, 12 months.
   */
  const recalculatingTranches = {
    scheduleType: 'PROGRESSIVE' as const,
    multiDisbursement: true,
    maxTranches: 2,
    annualInterestRate: '9.99',
    interestCalculationPeriod: 'DAILY' as const,
    daysInYear: 'ACTUAL' as const,
    daysInMonth: 'ACTUAL' as const,
    interestRecalculation: true,
    recalculationRestFrequency: 'DAILY' as const,
    preClosureStrategy: 'TILL_PRE_CLOSURE_DATE' as const,
  };

  /** The same loan as terms of the schedule contract, for the engine on its own. */
  function engineTerms(
    currency: string,
    disbursements: { date: string; amount: string }[],
    transactions: { date: string; amount: string }[],
    asOf: string,
  ) {
    return {
      principal: '1000.00',
      currency,
      annualInterestRate: '9.99',
      numberOfRepayments: 12,
      repaymentFrequency: 'MONTHS',
      disbursementDate: disbursements[0].date,
      scheduleType: 'PROGRESSIVE',
      interestCalculationPeriod: 'DAILY',
      daysInYear: 'ACTUAL',
      daysInMonth: 'ACTUAL',
      interestRecalculation: { restFrequency: 'DAILY', preClosureStrategy: 'TILL_PRE_CLOSURE_DATE' },
      disbursements,
      transactions: transactions.map((t) => ({ type: 'REPAYMENT', ...t })),
      asOf,
    };
  }
  const toMinor = (s: string) => BigInt(s.replace('.', ''));
  const decimal = (m: bigint) => `${m / 100n}.${String(m % 100n).padStart(2, '0')}`;

  /** The engine's schedule of some terms, as [due date, principal, interest] rows. */
  const engineDues = (terms: Record<string, unknown>) =>
    (
      previewSchedule(terms) as { installments: { dueDate: string; principal: string; interest: string }[] }
    ).installments.map((i) => [i.dueDate, toMinor(i.principal), toMinor(i.interest)]);

  /** A loan's state, its dues, and the ledger check run after every step of the recalculating tests. */
  function probe(f: LendingFixture, loanId: string) {
    const state = () => f.db.tenant(f.tenantId, (tx) => openLoanForCommand(tx, f.checker, loanId));
    const dues = async () => (await state()).installments.map((i) => [i.due_date, i.principal_due, i.interest_due]);
    async function ledgerClean() {
      const s = await state();
      const ledger = await f.db.tenant(f.tenantId, (tx) => loanLedgerBalances(tx, loanId));
      const o = loanOutstanding(s.installments);
      expect(ledger.get('LOAN_PORTFOLIO') ?? 0n).toBe(o.principal);
      expect(ledger.get('INTEREST_RECEIVABLE') ?? 0n).toBe(o.interest);
      for (const i of s.installments) {
        expect(i.principal_paid <= i.principal_due && i.interest_paid <= i.interest_due).toBe(true);
      }
      expect((await checkLedger(db, [f.tenantId])).differences).toEqual([]);
    }
    /** Paying `amount` closes the loan with nothing owed and the ledger clean. */
    async function paysOff(amount: string) {
      const closed = await f.db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount }));
      expect(closed.loan.status).toBe('CLOSED_OBLIGATIONS_MET');
      expect(loanOutstanding((await state()).installments)).toEqual({
        principal: 0n,
        interest: 0n,
        fees: 0n,
        penalties: 0n,
      });
      await ledgerClean();
    }
    /**
     * Pays what is owed on the first installment overdue on `date` (the business date), then reverses
     * that payment; after each step the installments are the engine's (`termsFor` the repayments).
     */
    async function payLateThenReverse(
      date: string,
      payments: { date: string; amount: string }[],
      termsFor: (payments: { date: string; amount: string }[]) => Record<string, unknown>,
    ) {
      const overdue = (await state()).installments.find(
        (i) => i.due_date < date && i.principal_due + i.interest_due > i.principal_paid + i.interest_paid,
      )!;
      expect(overdue).toBeDefined();
      const owed = overdue.principal_due + overdue.interest_due - overdue.principal_paid - overdue.interest_paid;
      const late = await f.db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: decimal(owed) }));
      expect(await dues()).toEqual(engineDues(termsFor([...payments, { date, amount: decimal(owed) }])));
      await ledgerClean();
      await f.db.tenant(f.tenantId, (tx) =>
        reverseLoanTransaction(tx, f.checker, { loanId, transactionId: late.transaction.id }),
      );
      expect(await dues()).toEqual(engineDues(termsFor(payments)));
      await ledgerClean();
      return overdue;
    }
    return { state, dues, ledgerClean, paysOff, payLateThenReverse };
  }

  test('recalculating progressive: tranches, early payment, second tranche, late payment, reversal, quote', async () => {
    const f = await createLendingFixture(db, { businessDate: '2024-01-01', product: recalculatingTranches });
    const { loanId } = await f.approvedLoan({
      principal: '1000.00',
      numberOfRepayments: 12,
      annualInterestRate: '9.99',
    });
    const tranches = [
      { date: '2024-01-01', amount: '600.00' },
      { date: '2024-02-10', amount: '400.00' },
    ];
    await f.db.tenant(f.tenantId, (tx) => setLoanTranches(tx, f.checker, { loanId, tranches }));
    const { state, dues, ledgerClean, paysOff, payLateThenReverse } = probe(f, loanId);

    // 1. First tranche.
    await f.db.tenant(f.tenantId, (tx) => disburseLoan(tx, f.checker, { loanId }));
    const paidOut = [tranches[0]];
    expect(await dues()).toEqual(engineDues(engineTerms(f.currency, paidOut, [], '2024-01-01')));
    await ledgerClean();

    // 2. Early payment on 20 January, before the first due date.
    await setBusinessDate(db, f.tenantId, '2024-01-20');
    const early = await f.db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: '150.00' }));
    const payments = [{ date: '2024-01-20', amount: '150.00' }];
    expect(await dues()).toEqual(engineDues(engineTerms(f.currency, paidOut, payments, '2024-01-20')));
    await ledgerClean();

    // 3. Second tranche on 10 February: the engine replays the early payment with it.
    await setBusinessDate(db, f.tenantId, '2024-02-10');
    const second = await f.db.tenant(f.tenantId, (tx) => disburseNextTranche(tx, f.checker, { loanId }));
    expect(second.transaction.principal_portion).toBe(40000n);
    paidOut.push(tranches[1]);
    const afterTranche = engineDues(engineTerms(f.currency, paidOut, payments, '2024-02-10'));
    expect(await dues()).toEqual(afterTranche);
    expect(second.installments.reduce((s, i) => s + i.principal_due, 0n)).toBe(100000n);
    await ledgerClean();

    // 4. On 15 April the installment due 1 April is partly unpaid (the early payment was spread over
    // the dues the tranche raised); it is paid late.
    await setBusinessDate(db, f.tenantId, '2024-04-15');
    // 5. Then reversed: the schedule is the engine's without it (as of today).
    const overdue = await payLateThenReverse('2024-04-15', payments, (txs) =>
      engineTerms(f.currency, paidOut, txs, '2024-04-15'),
    );
    expect(overdue.due_date).toBe('2024-04-01');

    // 6. Pre-closure quote on 15 April: every tranche counts; paying it closes the loan.
    const quote = await f.db.tenant(f.tenantId, (tx) => loanPreClosure(tx, f.tenantId, loanId, null));
    const engineQuote = (
      previewSchedule(engineTerms(f.currency, paidOut, payments, '2024-04-15')) as {
        preClosure: { principal: string; interest: string; total: string };
      }
    ).preClosure;
    expect(quote).toMatchObject({
      date: '2024-04-15',
      principal: engineQuote.principal,
      interest: engineQuote.interest,
      total: engineQuote.total,
    });
    // The quote owes the principal of both tranches not yet repaid (as the engine split the payments)
    // and the interest to date: less than everything still scheduled, which carries future interest.
    expect(toMinor(quote.principal) + toMinor(quote.interest)).toBe(toMinor(quote.total));
    expect(toMinor(quote.interest) > 0n).toBe(true);
    const o = loanOutstanding((await state()).installments);
    expect(toMinor(quote.total) < o.principal + o.interest).toBe(true);
    expect(toMinor(quote.principal) > 100000n - 30000n).toBe(true);
    await paysOff(quote.total);
    expect(early.transaction.amount).toBe(15000n);
  });

  test('recalculating progressive, Fineract LoanInterestRefundTest verifyUC05: 87.82 on the first due date, 921.85 to close on 9 February', async () => {
    const f = await createLendingFixture(db, { businessDate: '2021-01-01', product: recalculatingTranches });
    const { loanId } = await f.approvedLoan({
      principal: '1000.00',
      numberOfRepayments: 12,
      annualInterestRate: '9.99',
    });
    await f.db.tenant(f.tenantId, (tx) =>
      setLoanTranches(tx, f.checker, {
        loanId,
        tranches: [
          { date: '2021-01-01', amount: '500.00' },
          { date: '2021-01-07', amount: '500.00' },
        ],
      }),
    );
    await f.db.tenant(f.tenantId, (tx) => disburseLoan(tx, f.checker, { loanId }));
    await setBusinessDate(db, f.tenantId, '2021-01-07');
    await f.db.tenant(f.tenantId, (tx) => disburseNextTranche(tx, f.checker, { loanId }));
    await setBusinessDate(db, f.tenantId, '2021-02-01');
    const first = await f.db.tenant(
      f.tenantId,
      async (tx) => (await openLoanForCommand(tx, f.checker, loanId)).installments[0],
    );
    expect(first.principal_due + first.interest_due).toBe(8782n);
    await f.db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: '87.82' }));
    await setBusinessDate(db, f.tenantId, '2021-02-09');
    const quote = await f.db.tenant(f.tenantId, (tx) => loanPreClosure(tx, f.tenantId, loanId, null));
    // Fineract's interest refund on 9 February, 9.67, is the 7.66 paid with installment 1 plus these 2.01.
    expect(quote).toMatchObject({ principal: '919.84', interest: '2.01', total: '921.85' });
    expect((await checkLedger(db, [f.tenantId])).differences).toEqual([]);
  });

  /**
   * A recalculating cumulative product paid out in tranches: 12 %, daily interest over actual days,
   * daily rest, REDUCE_EMI_AMOUNT. The loan's schedule is the engine's for the tranches paid out so
   * far (their sum is the principal, as for a plain cumulative tranche loan) and the live repayments.
   */
  const cumulativeRecalculatingTranches = {
    scheduleType: 'CUMULATIVE' as const,
    multiDisbursement: true,
    maxTranches: 2,
    annualInterestRate: '12',
    interestCalculationPeriod: 'DAILY' as const,
    daysInYear: 'ACTUAL' as const,
    daysInMonth: 'ACTUAL' as const,
    interestRecalculation: true,
    recalculationRestFrequency: 'DAILY' as const,
    recalculationRescheduleStrategy: 'REDUCE_EMI_AMOUNT' as const,
    preClosureStrategy: 'TILL_PRE_CLOSURE_DATE' as const,
  };

  function cumulativeEngineTerms(
    currency: string,
    disbursements: { date: string; amount: string }[],
    transactions: { date: string; amount: string }[],
    asOf: string,
  ) {
    const lent = disbursements.reduce((s, d) => s + toMinor(d.amount), 0n);
    return {
      principal: decimal(lent),
      currency,
      annualInterestRate: '12',
      numberOfRepayments: 6,
      repaymentFrequency: 'MONTHS',
      disbursementDate: disbursements[0].date,
      scheduleType: 'CUMULATIVE',
      interestCalculationPeriod: 'DAILY',
      daysInYear: 'ACTUAL',
      daysInMonth: 'ACTUAL',
      interestRecalculation: {
        restFrequency: 'DAILY',
        rescheduleStrategy: 'REDUCE_EMI_AMOUNT',
        preClosureStrategy: 'TILL_PRE_CLOSURE_DATE',
      },
      ...(disbursements.length > 1 ? { disbursements } : {}),
      transactions: transactions.map((t) => ({ type: 'REPAYMENT', ...t })),
      asOf,
    };
  }

  test('recalculating cumulative: tranches, early payment, second tranche mid-period, late payment, reversal, quote, close, pay-off', async () => {
    const f = await createLendingFixture(db, { businessDate: '2024-01-01', product: cumulativeRecalculatingTranches });
    const { loanId } = await f.approvedLoan({ principal: '1000.00', numberOfRepayments: 6, annualInterestRate: '12' });
    const tranches = [
      { date: '2024-01-01', amount: '600.00' },
      { date: '2024-02-15', amount: '400.00' },
    ];
    await f.db.tenant(f.tenantId, (tx) => setLoanTranches(tx, f.checker, { loanId, tranches }));
    const { dues, ledgerClean, paysOff, payLateThenReverse } = probe(f, loanId);
    const quoteOf = (terms: ReturnType<typeof cumulativeEngineTerms>) =>
      (previewSchedule(terms) as { preClosure: { principal: string; interest: string; total: string } }).preClosure;

    // 1. First tranche.
    await f.db.tenant(f.tenantId, (tx) => disburseLoan(tx, f.checker, { loanId }));
    const paidOut = [tranches[0]];
    await ledgerClean();

    // 2. Early payment on 20 January, more than the first installment: principal in advance.
    await setBusinessDate(db, f.tenantId, '2024-01-20');
    await f.db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: '150.00' }));
    const payments = [{ date: '2024-01-20', amount: '150.00' }];
    expect(await dues()).toEqual(engineDues(cumulativeEngineTerms(f.currency, paidOut, payments, '2024-01-20')));
    await ledgerClean();

    // 3. Second tranche on 15 February, inside the second period: it bears interest from that day.
    await setBusinessDate(db, f.tenantId, '2024-02-15');
    const second = await f.db.tenant(f.tenantId, (tx) => disburseNextTranche(tx, f.checker, { loanId }));
    expect(second.transaction.principal_portion).toBe(40000n);
    paidOut.push(tranches[1]);
    const afterTranche = engineDues(cumulativeEngineTerms(f.currency, paidOut, payments, '2024-02-15'));
    expect(await dues()).toEqual(afterTranche);
    expect(second.installments.reduce((s, i) => s + i.principal_due, 0n)).toBe(100000n);
    // Without the tranche the engine would charge less interest: it is really in the schedule.
    const withoutTranche = engineDues(cumulativeEngineTerms(f.currency, [tranches[0]], payments, '2024-02-15'));
    const interestOf = (rows: (string | bigint)[][]) => rows.reduce((s, r) => s + (r[2] as bigint), 0n);
    expect(interestOf(afterTranche) > interestOf(withoutTranche)).toBe(true);
    await ledgerClean();

    // 4. On 15 April an installment is overdue; it is paid late.
    await setBusinessDate(db, f.tenantId, '2024-04-15');
    // 5. Then reversed: the schedule is the engine's without it (as of today).
    await payLateThenReverse('2024-04-15', payments, (txs) =>
      cumulativeEngineTerms(f.currency, paidOut, txs, '2024-04-15'),
    );

    // 6. Pre-closure quote on 15 April, the engine's; paying it closes the loan.
    const quote = await f.db.tenant(f.tenantId, (tx) => loanPreClosure(tx, f.tenantId, loanId, null));
    const engineQuote = quoteOf(cumulativeEngineTerms(f.currency, paidOut, payments, '2024-04-15'));
    expect(quote).toMatchObject({
      date: '2024-04-15',
      principal: engineQuote.principal,
      interest: engineQuote.interest,
      total: engineQuote.total,
    });
    expect(toMinor(quote.interest) > 0n).toBe(true);
    // 7. The daily close into 16 April recalculates the overdue principal's interest, with both tranches.
    await setBusinessDate(db, f.tenantId, '2024-04-16');
    const recalculated = await f.db.tenant(f.tenantId, (tx) =>
      recalculateOverdueInterest(tx, f.tenantId, '2024-04-16', 'close'),
    );
    expect(recalculated).toBe(1);
    expect(await dues()).toEqual(engineDues(cumulativeEngineTerms(f.currency, paidOut, payments, '2024-04-16')));
    await ledgerClean();

    // 8. Paid off on 22 April, between the due dates of 1 April and 1 May: the quote (interest of the
    // period to that day) closes the loan, its installment falling due that day (Fineract's rule).
    await setBusinessDate(db, f.tenantId, '2024-04-22');
    const payoff = await f.db.tenant(f.tenantId, (tx) => loanPreClosure(tx, f.tenantId, loanId, null));
    expect(payoff.total).toBe(quoteOf(cumulativeEngineTerms(f.currency, paidOut, payments, '2024-04-22')).total);
    await paysOff(payoff.total);
    const closed = (await dues()).at(-1)!;
    expect(closed[0]).toBe('2024-04-22');
  });

  test('the simulator pays a tranche out once it is expected, through the command', async () => {
    const f = await createLendingFixture(db, {
      businessDate: '2026-01-15',
      product: { scheduleType: 'PROGRESSIVE', multiDisbursement: true },
    });
    const { loanId } = await f.approvedLoan({ principal: '3000.00', numberOfRepayments: 12 });
    await f.db.tenant(f.tenantId, async (tx) => {
      await setLoanTranches(tx, f.checker, {
        loanId,
        tranches: [
          { date: '2026-01-15', amount: '1000.00' },
          { date: '2026-02-20', amount: '1000.00' },
          { date: '2026-04-10', amount: '1000.00' },
        ],
      });
      await disburseLoan(tx, f.checker, { loanId });
    });
    await setBusinessDate(db, f.tenantId, '2026-02-10');
    expect(await f.db.tenant(f.tenantId, (tx) => simulateNextTranche(tx, f.checker, loanId))).toBeNull();
    await setBusinessDate(db, f.tenantId, '2026-02-20');
    const paid = await f.db.tenant(f.tenantId, (tx) => simulateNextTranche(tx, f.checker, loanId));
    expect(paid).toMatchObject({ number: 2, date: '2026-02-20', amount: 100000n });
    expect(await f.db.tenant(f.tenantId, (tx) => simulateNextTranche(tx, f.checker, loanId))).toBeNull();
    const installments = await f.db.tenant(f.tenantId, (tx) => loadInstallments(tx, loanId));
    expect(installments.reduce((s, i) => s + i.principal_due, 0n)).toBe(200000n);
    expect((await checkLedger(db, [f.tenantId])).differences).toEqual([]);
  });
});
