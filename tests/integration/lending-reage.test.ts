import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { repayLoan } from '#lib/lending/commands/repay-loan.ts';
import { reverseLoanTransaction } from '#lib/lending/commands/reverse-loan-transaction.ts';
import { reAgeLoan, reAmortizeLoan, undoReAgeLoan, undoReAmortizeLoan } from '#lib/lending/commands/reage-loan.ts';
import { getLoanView } from '#lib/lending/loans.ts';
import { checkLedger } from '#lib/lending/ledger/check-ledger.ts';
import { listAudit } from '#lib/audit/record-audit.ts';
import { createLendingFixture, setBusinessDate, type LendingFixture } from '../support/lending-fixtures.ts';
import { refused } from '../support/refused.ts';

/**
 * Re-age and re-amortisation through the commands, on the loan of Fineract's LoanReAging.feature /
 * LoanReAmortization.feature scenarios (LP2_DOWNPAYMENT_AUTO_ADVANCED_PAYMENT_ALLOCATION: 0 %,
 * progressive, advanced allocation, 25 % down payment, 3 × 15 days, installments in multiples of 1).
 * The expected schedules are the ones those scenarios assert (cited per test).
 */
describe.each(testDbKinds())('re-age and re-amortisation on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  const view = (loanId: string) => db.tenant(f.tenantId, (tx) => getLoanView(tx, loanId));
  const schedule = async (loanId: string) =>
    (await view(loanId)).installments.map((i) => [i.dueDate, i.principal, i.outstanding.total]);
  const at = (date: string) => setBusinessDate(db, f.tenantId, date);

  /** A 0 % loan disbursed on 2024-01-01 with its down payment paid, as the scenarios start. */
  async function loan(principal: string, productId?: string) {
    await at('2024-01-01');
    const { loanId } = await f.disbursedLoan({ principal, numberOfRepayments: 3, productId });
    if (!productId) {
      await db.tenant(f.tenantId, (tx) =>
        repayLoan(tx, f.checker, { loanId, amount: (Number(principal) / 4).toFixed(2) }),
      );
    }
    return loanId;
  }

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db, {
      currency: 'EUR',
      businessDate: '2024-01-01',
      product: {
        code: 'LP2DP',
        name: 'Down payment, advanced allocation',
        annualInterestRate: '0',
        scheduleType: 'PROGRESSIVE',
        repaymentEvery: 15,
        repaymentFrequency: 'DAYS',
        downPaymentPercent: '25',
        installmentAmountInMultiplesOf: 1,
        allocationStrategy: 'advanced-payment-allocation-strategy',
      },
    });
  });
  afterAll(async () => {
    // The ledger agrees with every loan after all the re-ages, repayments and undos of this file.
    expect((await checkLedger(db)).differences).toEqual([]);
    await drop();
  });

  test('re-age an overdue loan, repay the first new installment, undo (LoanReAging.feature happy path + undo)', async () => {
    const loanId = await loan('1000.00');
    const original = await schedule(loanId);
    expect(original).toEqual([
      ['2024-01-01', '250.00', '0.00'],
      ['2024-01-16', '250.00', '250.00'],
      ['2024-01-31', '250.00', '250.00'],
      ['2024-02-15', '250.00', '250.00'],
    ]);
    const request = {
      loanId,
      startDate: '2024-03-01',
      frequencyType: 'MONTHS' as const,
      frequencyNumber: 1,
      numberOfInstallments: 6,
    };

    // Before maturity a re-age is refused (LoanReAgingValidator).
    await at('2024-02-14');
    expect(await refused(db.tenant(f.tenantId, (tx) => reAgeLoan(tx, f.admin, request)))).toMatchObject({
      code: 'CONFLICT',
      details: { reason: 'reage_before_maturity' },
    });
    await at('2024-02-20');
    // A start date before the maturity date is refused.
    expect(
      await refused(db.tenant(f.tenantId, (tx) => reAgeLoan(tx, f.admin, { ...request, startDate: '2024-02-14' }))),
    ).toMatchObject({ code: 'BAD_REQUEST', field: 'startDate' });

    const { transaction } = await db.tenant(f.tenantId, (tx) => reAgeLoan(tx, f.admin, request));
    expect(transaction).toMatchObject({ type: 'REAGE', amount: 75000n, principal_portion: 75000n });
    // LoanReAging.feature lines 27-38.
    expect(await schedule(loanId)).toEqual([
      ['2024-01-01', '250.00', '0.00'],
      ['2024-01-16', '0.00', '0.00'],
      ['2024-01-31', '0.00', '0.00'],
      ['2024-02-15', '0.00', '0.00'],
      ['2024-03-01', '125.00', '125.00'],
      ['2024-04-01', '125.00', '125.00'],
      ['2024-05-01', '125.00', '125.00'],
      ['2024-06-01', '125.00', '125.00'],
      ['2024-07-01', '125.00', '125.00'],
      ['2024-08-01', '125.00', '125.00'],
    ]);
    expect((await view(loanId)).outstanding.principal).toBe('750.00');
    // Once a day.
    expect(await refused(db.tenant(f.tenantId, (tx) => reAgeLoan(tx, f.admin, request)))).toMatchObject({
      details: { reason: 'reshape_once_a_day' },
    });
    // A transaction before the re-age cannot be reversed under it.
    const downPayment = (await view(loanId)).transactions.find((t) => t.type === 'REPAYMENT')!;
    expect(
      await refused(
        db.tenant(f.tenantId, (tx) => reverseLoanTransaction(tx, f.admin, { loanId, transactionId: downPayment.id })),
      ),
    ).toMatchObject({ details: { reason: 'undo_later_reshape_first' } });

    await at('2024-03-01');
    const repayment = await db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: '125.00' }));
    expect((await schedule(loanId))[4]).toEqual(['2024-03-01', '125.00', '0.00']);
    // No undo after a repayment (LoanReAgingValidator.validateUndoReAge).
    expect(await refused(db.tenant(f.tenantId, (tx) => undoReAgeLoan(tx, f.admin, { loanId })))).toMatchObject({
      details: { reason: 'repayment_after_reshape' },
    });
    await db.tenant(f.tenantId, (tx) =>
      reverseLoanTransaction(tx, f.admin, { loanId, transactionId: repayment.transaction.id }),
    );
    const undone = await db.tenant(f.tenantId, (tx) => undoReAgeLoan(tx, f.admin, { loanId }));
    expect(undone.transaction).toMatchObject({ type: 'REVERSAL', reverses_id: transaction.id });
    // Back to the schedule of lines 113-118.
    expect(await schedule(loanId)).toEqual(original);
    const after = await view(loanId);
    expect(after.transactions.find((t) => t.id === transaction.id)).toMatchObject({ type: 'REAGE', isReversed: true });
    expect(await refused(db.tenant(f.tenantId, (tx) => undoReAgeLoan(tx, f.admin, { loanId })))).toMatchObject({
      details: { reason: 'no_reage' },
    });
    const actions = (await db.tenant(f.tenantId, (tx) => listAudit(tx, 'loan', loanId))).map((a) => a.action);
    expect(actions).toEqual(expect.arrayContaining(['loan.reage', 'loan.undo_reage']));
  });

  test('re-age after a partial payment: 54 × 5 + 55 (partial principal payment scenario)', async () => {
    const loanId = await loan('500.00');
    await at('2024-01-16');
    await db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: '50.00' }));
    await at('2024-02-27');
    await db.tenant(f.tenantId, (tx) =>
      reAgeLoan(tx, f.admin, {
        loanId,
        startDate: '2024-03-01',
        frequencyType: 'MONTHS',
        frequencyNumber: 1,
        numberOfInstallments: 6,
      }),
    );
    // LoanReAging.feature lines 520-531.
    expect(await schedule(loanId)).toEqual([
      ['2024-01-01', '125.00', '0.00'],
      ['2024-01-16', '50.00', '0.00'],
      ['2024-01-31', '0.00', '0.00'],
      ['2024-02-15', '0.00', '0.00'],
      ['2024-03-01', '54.00', '54.00'],
      ['2024-04-01', '54.00', '54.00'],
      ['2024-05-01', '54.00', '54.00'],
      ['2024-06-01', '54.00', '54.00'],
      ['2024-07-01', '54.00', '54.00'],
      ['2024-08-01', '55.00', '55.00'],
    ]);
    await at('2024-02-29');
    await db.tenant(f.tenantId, (tx) => undoReAgeLoan(tx, f.admin, { loanId }));
    // Lines 535-540: the 50 stays paid on installment 2.
    expect(await schedule(loanId)).toEqual([
      ['2024-01-01', '125.00', '0.00'],
      ['2024-01-16', '125.00', '75.00'],
      ['2024-01-31', '125.00', '125.00'],
      ['2024-02-15', '125.00', '125.00'],
    ]);
  });

  test('re-amortise, undo, and the refusals (LoanReAmortization.feature happy path and undo)', async () => {
    const loanId = await loan('500.00');
    await at('2024-01-25');
    const { transaction } = await db.tenant(f.tenantId, (tx) => reAmortizeLoan(tx, f.admin, { loanId }));
    expect(transaction).toMatchObject({ type: 'REAMORTIZE', amount: 12500n });
    // LoanReAmortization.feature lines 105-110.
    expect(await schedule(loanId)).toEqual([
      ['2024-01-01', '125.00', '0.00'],
      ['2024-01-16', '0.00', '0.00'],
      ['2024-01-31', '187.00', '187.00'],
      ['2024-02-15', '188.00', '188.00'],
    ]);
    expect(await refused(db.tenant(f.tenantId, (tx) => reAmortizeLoan(tx, f.admin, { loanId })))).toMatchObject({
      details: { reason: 'reshape_once_a_day' },
    });
    await at('2024-01-26');
    await db.tenant(f.tenantId, (tx) => undoReAmortizeLoan(tx, f.admin, { loanId }));
    // Lines 118-123.
    expect(await schedule(loanId)).toEqual([
      ['2024-01-01', '125.00', '0.00'],
      ['2024-01-16', '125.00', '125.00'],
      ['2024-01-31', '125.00', '125.00'],
      ['2024-02-15', '125.00', '125.00'],
    ]);
    // After maturity a re-amortisation is refused.
    await at('2024-02-16');
    expect(await refused(db.tenant(f.tenantId, (tx) => reAmortizeLoan(tx, f.admin, { loanId })))).toMatchObject({
      details: { reason: 'reamortize_after_maturity' },
    });
  });

  test('an interest-bearing cumulative loan cannot be re-aged or re-amortised', async () => {
    const other = await createLendingFixture(db, { currency: 'EUR', businessDate: '2024-01-01' });
    const { loanId } = await other.disbursedLoan({ principal: '1200.00', numberOfRepayments: 3 });
    await setBusinessDate(db, other.tenantId, '2024-05-01');
    const error = await refused(
      db.tenant(other.tenantId, (tx) =>
        reAgeLoan(tx, other.admin, {
          loanId,
          startDate: '2024-06-01',
          frequencyType: 'MONTHS',
          frequencyNumber: 1,
          numberOfInstallments: 3,
        }),
      ),
    );
    expect(error).toMatchObject({ code: 'CONFLICT', details: { reason: 'reshape_not_supported' } });
    await setBusinessDate(db, other.tenantId, '2024-02-01');
    expect(await refused(db.tenant(other.tenantId, (tx) => reAmortizeLoan(tx, other.admin, { loanId })))).toMatchObject(
      { details: { reason: 'reshape_not_supported' } },
    );
  });
});
