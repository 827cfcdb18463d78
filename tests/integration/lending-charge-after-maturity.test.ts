import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { applyLoanCharge } from '#lib/lending/commands/apply-loan-charge.ts';
import { repayLoan } from '#lib/lending/commands/repay-loan.ts';
import { reverseLoanTransaction } from '#lib/lending/commands/reverse-loan-transaction.ts';
import { waiveLoanCharges } from '#lib/lending/commands/waive-loan-charges.ts';
import { checkLedger } from '#lib/lending/ledger/check-ledger.ts';
import { getLoanView } from '#lib/lending/loans.ts';
import { openLoanForCommand } from '#lib/lending/commands/common.ts';
import { replaceLoanSchedule } from '#lib/lending/schedule-sync.ts';
import { createProduct } from '#lib/lending/products.ts';
import { createLendingFixture, setBusinessDate, type LendingFixture } from '../support/lending-fixtures.ts';
import { refused } from '../support/refused.ts';

/**
 * A specified-due-date charge dated after a live loan's last due date (Fineract's "charge after
 * maturity", tests/fixtures/fineract-charge-after-maturity-cases.json): the loan gets one N+1
 * installment carrying it; repayments pay it, the loan closes only once it is settled, a waiver
 * keeps it (settled), reversing its only charge removes it, and the ledger stays equal to the
 * installments throughout.
 */
describe.each(testDbKinds())('charge after maturity on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  let zeroRate: string;
  let recalculating: string;
  const view = (loanId: string) => db.tenant(f.tenantId, (tx) => getLoanView(tx, loanId));
  const rows = async (loanId: string) =>
    (await view(loanId)).installments.map((i) => ({
      number: i.number,
      fromDate: i.fromDate,
      dueDate: i.dueDate,
      additional: i.additional,
      principal: i.principal,
      fees: i.fees,
      penalties: i.penalties,
    }));
  const charge = (loanId: string, kind: 'fee' | 'penalty', amount: string, dueDate: string) =>
    db.tenant(f.tenantId, (tx) => applyLoanCharge(tx, f.admin, { loanId, kind, amount, dueDate }));
  const repay = (loanId: string, amount: string) =>
    db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount }));
  const ledgerClean = async () => expect((await checkLedger(db, [f.tenantId])).differences).toEqual([]);

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db, { businessDate: '2026-01-15' });
    const base = {
      currency: 'USD',
      digitsAfterDecimal: 2,
      minPrincipal: 1_000n,
      maxPrincipal: 100_000_000n,
      minRepayments: 1,
      maxRepayments: 36,
      repaymentFrequency: 'MONTHS' as const,
      interestCalculationPeriod: 'SAME_AS_REPAYMENT_PERIOD' as const,
    };
    ({ zeroRate, recalculating } = await db.tenant(f.tenantId, async (tx) => ({
      zeroRate: (
        await createProduct(tx, f.tenantId, { ...base, code: 'ZERO', name: 'No interest', annualInterestRate: '0' })
      ).id,
      recalculating: (
        await createProduct(tx, f.tenantId, {
          ...base,
          code: 'RECALC',
          name: 'Recalculating',
          annualInterestRate: '7',
          scheduleType: 'PROGRESSIVE',
          interestCalculationPeriod: 'DAILY',
          interestRecalculation: true,
          recalculationRestFrequency: 'DAILY',
        })
      ).id,
    })));
  });
  afterAll(async () => {
    expect((await checkLedger(db)).differences).toEqual([]);
    await drop();
  });

  test('charges after maturity go onto one N+1 installment that repayments pay; the loan closes once it is paid', async () => {
    await setBusinessDate(db, f.tenantId, '2026-01-15');
    const { loanId } = await f.disbursedLoan({ productId: zeroRate, principal: '1000.00', numberOfRepayments: 1 });
    await setBusinessDate(db, f.tenantId, '2026-02-20');
    await repay(loanId, '800.00');

    const { transaction: first } = await charge(loanId, 'fee', '20.00', '2026-02-20');
    expect(first.installment_number).toBe(2);
    expect(await rows(loanId)).toEqual([
      {
        number: 1,
        fromDate: '2026-01-15',
        dueDate: '2026-02-15',
        additional: false,
        principal: '1000.00',
        fees: '0.00',
        penalties: '0.00',
      },
      {
        number: 2,
        fromDate: '2026-02-15',
        dueDate: '2026-02-20',
        additional: true,
        principal: '0.00',
        fees: '20.00',
        penalties: '0.00',
      },
    ]);
    // A later charge after maturity moves the N+1 due date; an earlier one keeps it.
    await charge(loanId, 'fee', '3.00', '2026-02-25');
    await charge(loanId, 'penalty', '5.00', '2026-02-18');
    let loan = await view(loanId);
    expect(loan.installments).toHaveLength(2);
    expect(loan.installments[1]).toMatchObject({
      dueDate: '2026-02-25',
      additional: true,
      fees: '23.00',
      penalties: '5.00',
      total: '28.00',
    });
    expect(loan.outstanding).toMatchObject({ principal: '200.00', fees: '23.00', penalties: '5.00', total: '228.00' });
    // The loan's maturity is still its last regular due date (Fineract leaves the N+1 installment out).
    const [{ maturity_date }] = await db.tenant(f.tenantId, (tx) =>
      tx.query<{ maturity_date: string }>(`select maturity_date from loans where id = $1`, [loanId]),
    );
    expect(maturity_date).toBe('2026-02-15');
    await ledgerClean();

    // The principal alone leaves the N+1 installment owed: the loan stays active.
    await repay(loanId, '200.00');
    loan = await view(loanId);
    expect(loan.status).toBe('ACTIVE');
    expect(loan.outstanding.total).toBe('28.00');
    // mifos-standard: the penalty and fees of the N+1 installment, then closed.
    const { transaction: last } = await repay(loanId, '28.00');
    expect({ fees: last.fee_portion, penalties: last.penalty_portion, principal: last.principal_portion }).toEqual({
      fees: 2300n,
      penalties: 500n,
      principal: 0n,
    });
    loan = await view(loanId);
    expect(loan.status).toBe('CLOSED_OBLIGATIONS_MET');
    expect(loan.installments[1].paid).toMatchObject({ fees: '23.00', penalties: '5.00' });
    await ledgerClean();
  });

  test('an interest-bearing loan gets the N+1 installment too, before its last due date is reached', async () => {
    await setBusinessDate(db, f.tenantId, '2026-01-15');
    const { loanId } = await f.disbursedLoan({ principal: '1200.00', numberOfRepayments: 2 });
    const { transaction } = await charge(loanId, 'penalty', '9.99', '2026-04-01');
    expect(transaction.installment_number).toBe(3);
    const loan = await view(loanId);
    expect(loan.installments.map((i) => [i.dueDate, i.additional, i.interest, i.penalties])).toEqual([
      ['2026-02-15', false, '12.00', '0.00'],
      ['2026-03-15', false, '6.03', '0.00'],
      ['2026-04-01', true, '0.00', '9.99'],
    ]);
    await ledgerClean();
  });

  test('waiving the charge of the N+1 installment keeps it, settled; repaying the principal then closes the loan', async () => {
    // LoanWaiveChargeTest.test_LoanPaidByDateIsCorrect_WhenNPlusOneInstallmentCharge_IsWaived, on a loan.
    await setBusinessDate(db, f.tenantId, '2026-01-15');
    const { loanId } = await f.disbursedLoan({ productId: zeroRate, principal: '1000.00', numberOfRepayments: 1 });
    await setBusinessDate(db, f.tenantId, '2026-02-17');
    await charge(loanId, 'fee', '100.00', '2026-02-16');
    await db.tenant(f.tenantId, (tx) => waiveLoanCharges(tx, f.admin, { loanId }));
    let loan = await view(loanId);
    expect(loan.installments).toHaveLength(2);
    expect(loan.installments[1]).toMatchObject({
      dueDate: '2026-02-16',
      additional: true,
      fees: '100.00',
      waived: { fees: '100.00' },
    });
    expect(loan.installments[1].obligationsMetOn).toBe('2026-02-17');
    expect(loan.status).toBe('ACTIVE');
    await ledgerClean();
    await repay(loanId, '1000.00');
    loan = await view(loanId);
    expect(loan.status).toBe('CLOSED_OBLIGATIONS_MET');
    await ledgerClean();
  });

  test('reversing the only charge of the N+1 installment removes it (Fineract drops an empty additional installment)', async () => {
    await setBusinessDate(db, f.tenantId, '2026-01-15');
    const { loanId } = await f.disbursedLoan({ productId: zeroRate, principal: '1000.00', numberOfRepayments: 1 });
    await setBusinessDate(db, f.tenantId, '2026-02-17');
    const { transaction } = await charge(loanId, 'penalty', '15.00', '2026-02-17');
    expect((await view(loanId)).installments).toHaveLength(2);
    await db.tenant(f.tenantId, (tx) => reverseLoanTransaction(tx, f.admin, { loanId, transactionId: transaction.id }));
    const loan = await view(loanId);
    expect(loan.installments.map((i) => [i.number, i.additional])).toEqual([[1, false]]);
    expect(loan.outstanding.total).toBe('1000.00');
    await ledgerClean();
    // A new charge after maturity adds it again.
    await charge(loanId, 'fee', '4.00', '2026-02-17');
    expect((await view(loanId)).installments.map((i) => [i.number, i.additional, i.fees])).toEqual([
      [1, false, '0.00'],
      [2, true, '4.00'],
    ]);
    await repay(loanId, '1004.00');
    expect((await view(loanId)).status).toBe('CLOSED_OBLIGATIONS_MET');
    await ledgerClean();
  });

  test('a rewrite of the schedule (tranche, reschedule…) that ends before the N+1 installment keeps it and its charges', async () => {
    await setBusinessDate(db, f.tenantId, '2026-01-15');
    const { loanId } = await f.disbursedLoan({ productId: zeroRate, principal: '1000.00', numberOfRepayments: 2 });
    await setBusinessDate(db, f.tenantId, '2026-03-20');
    await charge(loanId, 'fee', '12.00', '2026-03-20');
    await repay(loanId, '300.00');
    await db.tenant(f.tenantId, async (tx) => {
      const state = await openLoanForCommand(tx, f.checker, loanId);
      // The regular installments as an engine would give them again (applied charges left out).
      const regular = state.installments
        .filter((r) => !r.is_additional)
        .map((r) => ({
          number: r.number,
          fromDate: r.from_date,
          dueDate: r.due_date,
          principal: r.principal_due,
          interest: r.interest_due,
          fees: 0n,
          penalties: 0n,
        }));
      await replaceLoanSchedule(tx, f.checker, state, regular, { date: state.today, description: 'Test rewrite' });
    });
    const loan = await view(loanId);
    expect(loan.installments.map((i) => [i.number, i.dueDate, i.additional, i.fees])).toEqual([
      [1, '2026-02-15', false, '0.00'],
      [2, '2026-03-15', false, '0.00'],
      [3, '2026-03-20', true, '12.00'],
    ]);
    expect(loan.outstanding.total).toBe('712.00');
    await ledgerClean();
  });

  test('refused: a date before the disbursement, and a charge after maturity on a recalculating product', async () => {
    await setBusinessDate(db, f.tenantId, '2026-01-15');
    const { loanId } = await f.disbursedLoan({ productId: zeroRate, principal: '1000.00', numberOfRepayments: 1 });
    expect(await refused(charge(loanId, 'fee', '1.00', '2026-01-01'))).toMatchObject({ field: 'dueDate' });
    const { loanId: recalculated } = await f.disbursedLoan({
      productId: recalculating,
      principal: '1000.00',
      numberOfRepayments: 2,
    });
    const error = await refused(charge(recalculated, 'fee', '1.00', '2026-06-01'));
    expect(error).toMatchObject({ field: 'dueDate', details: { reason: 'charge_after_maturity_recalculation' } });
    expect(error.message).toContain('03/15/2026');
    // Inside its schedule a charge is still taken.
    const { transaction } = await charge(recalculated, 'fee', '1.00', '2026-03-01');
    expect(transaction.installment_number).toBe(2);
    await ledgerClean();
  });
});
