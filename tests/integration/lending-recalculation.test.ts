import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { repayLoan } from '#lib/lending/commands/repay-loan.ts';
import { reverseLoanTransaction } from '#lib/lending/commands/reverse-loan-transaction.ts';
import { openLoanForCommand } from '#lib/lending/commands/common.ts';
import { loanOutstanding } from '#lib/lending/installments.ts';
import { loanLedgerBalances } from '#lib/lending/ledger/post-entry.ts';
import { checkLedger } from '#lib/lending/ledger/check-ledger.ts';
import { preClosureOf } from '#lib/lending/recalculation.ts';
import { createLendingFixture, setBusinessDate, type LendingFixture } from '../support/lending-fixtures.ts';

/**
 * Interest recalculation on the books: a progressive product with interest recalculation (the
 * LP2_ADV_PYMNT_INTEREST_DAILY_EMI_360_30_INTEREST_RECALCULATION_TILL_PRECLOSE product of Fineract's
 * Loan.feature, "Early pay-off loan with interest, TILL_PRECLOSE product"): repayments rewrite the
 * future installments through the engine, the ledger follows, the pre-closure quote closes the loan.
 */
describe.each(testDbKinds())('interest recalculation on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db, {
      businessDate: '2024-01-01',
      currency: 'EUR',
      product: {
        code: 'RECALC7',
        annualInterestRate: '7',
        scheduleType: 'PROGRESSIVE',
        interestCalculationPeriod: 'DAILY',
        daysInYear: '360',
        daysInMonth: '30',
        minRepayments: 1,
        interestRecalculation: true,
        recalculationRestFrequency: 'DAILY',
        preClosureStrategy: 'TILL_PRE_CLOSURE_DATE',
      },
    });
  });
  afterAll(async () => {
    await drop();
  });

  const state = (loanId: string) => f.db.tenant(f.tenantId, (tx) => openLoanForCommand(tx, f.checker, loanId));
  const dues = (rows: Awaited<ReturnType<typeof state>>['installments']) =>
    rows.map((r) => [r.due_date, r.principal_due, r.interest_due]);
  async function ledgerMatches(loanId: string) {
    const s = await state(loanId);
    const ledger = await f.db.tenant(f.tenantId, (tx) => loanLedgerBalances(tx, loanId));
    const o = loanOutstanding(s.installments);
    expect(ledger.get('INTEREST_RECEIVABLE') ?? 0n).toBe(o.interest);
    expect(ledger.get('LOAN_PORTFOLIO') ?? 0n).toBe(o.principal);
    expect((await checkLedger(db, [f.tenantId])).differences).toEqual([]);
  }

  test('Fineract pay-off scenario: quote, pay-off, closed loan, ledger in balance', async () => {
    await setBusinessDate(db, f.tenantId, '2024-01-01');
    const { loanId } = await f.disbursedLoan({ principal: '100.00', numberOfRepayments: 6 });
    expect(dues((await state(loanId)).installments)).toEqual([
      ['2024-02-01', 1643n, 58n],
      ['2024-03-01', 1652n, 49n],
      ['2024-04-01', 1662n, 39n],
      ['2024-05-01', 1672n, 29n],
      ['2024-06-01', 1681n, 20n],
      ['2024-07-01', 1690n, 10n],
    ]);
    await setBusinessDate(db, f.tenantId, '2024-02-01');
    await f.db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: '17.01' }));
    await ledgerMatches(loanId);

    await setBusinessDate(db, f.tenantId, '2024-02-15');
    const quote = preClosureOf(await state(loanId), '2024-02-15', '2024-02-15');
    expect(quote).toMatchObject({ principal: 8357n, interest: 24n, total: 8381n });

    const paid = await f.db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: '83.81' }));
    expect(paid.loan.status).toBe('CLOSED_OBLIGATIONS_MET');
    const s = await state(loanId);
    expect(dues(s.installments)).toEqual([
      ['2024-02-01', 1643n, 58n],
      ['2024-03-01', 1677n, 24n],
      ['2024-04-01', 1701n, 0n],
      ['2024-05-01', 1701n, 0n],
      ['2024-06-01', 1701n, 0n],
      ['2024-07-01', 1577n, 0n],
    ]);
    expect(loanOutstanding(s.installments)).toEqual({ principal: 0n, interest: 0n, fees: 0n, penalties: 0n });
    await ledgerMatches(loanId);
  });

  test('an early repayment lowers the later interest on the installments and in the ledger; its reversal restores it', async () => {
    await setBusinessDate(db, f.tenantId, '2024-01-01');
    const { loanId } = await f.disbursedLoan({ principal: '1000.00', numberOfRepayments: 6 });
    const beforeRows = (await state(loanId)).installments;
    const before = beforeRows.reduce((s, r) => s + r.interest_due, 0n);
    const receivableBefore = (await f.db.tenant(f.tenantId, (tx) => loanLedgerBalances(tx, loanId))).get(
      'INTEREST_RECEIVABLE',
    );
    await setBusinessDate(db, f.tenantId, '2024-01-10');
    const { transaction } = await f.db.tenant(f.tenantId, (tx) =>
      repayLoan(tx, f.checker, { loanId, amount: '400.00' }),
    );
    const s = await state(loanId);
    const after = s.installments.reduce((sum, r) => sum + r.interest_due, 0n);
    expect(after).toBeLessThan(before);
    // The installment paid in advance carries none; the ones after the next carry less (the next one
    // takes the interest the prepaid periods did not recognise, as in Fineract's model).
    expect(s.installments[1].interest_due).toBe(0n);
    for (const k of [3, 4, 5]) expect(s.installments[k].interest_due).toBeLessThan(beforeRows[k].interest_due);
    const receivableAfter = (await f.db.tenant(f.tenantId, (tx) => loanLedgerBalances(tx, loanId))).get(
      'INTEREST_RECEIVABLE',
    );
    expect(receivableAfter ?? 0n).toBeLessThan(receivableBefore ?? 0n);
    await ledgerMatches(loanId);

    await f.db.tenant(f.tenantId, (tx) =>
      reverseLoanTransaction(tx, f.checker, { loanId, transactionId: transaction.id }),
    );
    const restored = (await state(loanId)).installments.reduce((sum, r) => sum + r.interest_due, 0n);
    expect(restored).toBe(before);
    await ledgerMatches(loanId);
  });

  test('a late repayment leaves more interest on the loan', async () => {
    await setBusinessDate(db, f.tenantId, '2024-01-01');
    const { loanId } = await f.disbursedLoan({ principal: '1000.00', numberOfRepayments: 6 });
    const before = (await state(loanId)).installments.reduce((s, r) => s + r.interest_due, 0n);
    await setBusinessDate(db, f.tenantId, '2024-02-20');
    const first = (await state(loanId)).installments[0];
    await f.db.tenant(f.tenantId, (tx) =>
      repayLoan(tx, f.checker, {
        loanId,
        amount: (first.principal_due + first.interest_due).toString().replace(/(\d\d)$/, '.$1'),
      }),
    );
    const after = (await state(loanId)).installments.reduce((s, r) => s + r.interest_due, 0n);
    expect(after).toBeGreaterThan(before);
    await ledgerMatches(loanId);
  });

  test('a product without recalculation has no pre-closure quote', async () => {
    const plain = await createLendingFixture(db, { businessDate: '2024-01-01' });
    const { loanId } = await plain.disbursedLoan({ principal: '100.00', numberOfRepayments: 3 });
    const s = await plain.db.tenant(plain.tenantId, (tx) => openLoanForCommand(tx, plain.checker, loanId));
    expect(() => preClosureOf(s, '2024-01-10', '2024-01-10')).toThrow(/does not recalculate/);
  });
});
